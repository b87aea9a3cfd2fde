"""A cited passage keeps its words (a trigger on both engines); a curator's note may explain a passage."""

from django.db import migrations, models

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


class Migration(migrations.Migration):
    dependencies = [("archive", "0018_statement_basis")]

    operations = [
        migrations.RunPython(cited_passages.create, cited_passages.drop),
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
