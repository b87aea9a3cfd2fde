"""A cited passage keeps its words (a trigger on both engines); a curator's note may explain a passage;
the stored documents, which now say each account's basis, are built again."""

from django.db import migrations, models
from django.db.models import F

from archive.db import cited_passages

NOTE_MODELS = [
    ("person", "person"),
    ("unit", "unit"),
    ("post", "post"),
    ("location", "location"),
    ("event", "event"),
    ("participation", "participation"),
    ("citation", "citation"),
    ("passage", "passage"),
]


def documents_stale(apps: object, schema_editor: object) -> None:
    """The API's stored documents now carry each account's basis: none stored before is current."""
    versions = apps.get_model("archive", "DocumentVersion")  # type: ignore[attr-defined]  # the migration's app registry
    alias = schema_editor.connection.alias  # type: ignore[attr-defined]  # a schema editor, passed untyped
    versions.objects.using(alias).get_or_create(tag="*")
    versions.objects.using(alias).filter(tag="*").update(version=F("version") + 1)


class Migration(migrations.Migration):
    dependencies = [("archive", "0019_releases")]

    operations = [
        migrations.RunPython(cited_passages.create, cited_passages.drop),
        migrations.RunPython(documents_stale, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="curatornote",
            name="model",
            field=models.CharField(choices=NOTE_MODELS, max_length=16, verbose_name="model"),
        ),
        migrations.AlterField(
            model_name="historicalcuratornote",
            name="model",
            field=models.CharField(choices=NOTE_MODELS, max_length=16, verbose_name="model"),
        ),
    ]
