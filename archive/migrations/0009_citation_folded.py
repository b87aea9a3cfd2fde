"""The folded quote and claim of every citation, for the admin's search box.

Filled here for existing rows; afterwards `FoldedQuoteAndClaim.pre_save`
writes it on every insert and save, and a trigger sets it to NULL when a
write changes the quote or claim without it (the search folds NULL rows in
Python, so no match is missed).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

import archive.models.citations

BATCH_SIZE = 5000

SQLITE_CREATE = [
    # SQLite cannot assign NEW in a BEFORE trigger: clear the column after the write.
    """
    CREATE TRIGGER archive_citation_folded_stale
    AFTER UPDATE OF quote, claim ON archive_citation
    WHEN (NEW.quote IS NOT OLD.quote OR NEW.claim IS NOT OLD.claim) AND NEW.folded IS OLD.folded
    BEGIN UPDATE archive_citation SET folded = NULL WHERE id = NEW.id; END;
    """
]
SQLITE_DROP = ["DROP TRIGGER IF EXISTS archive_citation_folded_stale"]

POSTGRES_CREATE = [
    """
    CREATE FUNCTION archive_citation_folded_stale() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (NEW.quote IS DISTINCT FROM OLD.quote OR NEW.claim IS DISTINCT FROM OLD.claim)
         AND NEW.folded IS NOT DISTINCT FROM OLD.folded THEN
        NEW.folded := NULL;
      END IF;
      RETURN NEW;
    END $$;
    """,
    """
    CREATE TRIGGER archive_citation_folded_stale BEFORE UPDATE ON archive_citation
    FOR EACH ROW EXECUTE FUNCTION archive_citation_folded_stale();
    """,
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS archive_citation_folded_stale ON archive_citation",
    "DROP FUNCTION IF EXISTS archive_citation_folded_stale()",
]


def _run(schema_editor: Any, sqlite: list[str], postgres: list[str]) -> None:
    for statement in {"sqlite": sqlite, "postgresql": postgres}.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


def create_trigger(apps: Any, schema_editor: Any) -> None:
    _run(schema_editor, SQLITE_CREATE, POSTGRES_CREATE)


def drop_trigger(apps: Any, schema_editor: Any) -> None:
    _run(schema_editor, SQLITE_DROP, POSTGRES_DROP)


def fill(apps: Any, schema_editor: Any) -> None:
    citation = apps.get_model("archive", "Citation")
    rows = citation.objects.using(schema_editor.connection.alias).order_by("pk").values_list("pk", "quote", "claim")
    last = 0
    with schema_editor.connection.cursor() as cursor:
        while True:
            batch = list(rows.filter(pk__gt=last)[:BATCH_SIZE])
            if not batch:
                return
            last = batch[-1][0]
            cursor.executemany(
                "UPDATE archive_citation SET folded = %s WHERE id = %s",
                [(archive.models.citations.fold_quote_and_claim(quote, claim), pk) for pk, quote, claim in batch],
            )


class Migration(migrations.Migration):
    dependencies = [("archive", "0008_search_order_and_numeric_grams")]

    operations = [
        migrations.AddField(
            model_name="citation",
            name="folded",
            field=archive.models.citations.FoldedQuoteAndClaim(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="citation",
            index=models.Index(
                condition=models.Q(("folded__isnull", True)), fields=["id"], name="citation_unfolded"
            ),
        ),
        migrations.RunPython(create_trigger, drop_trigger),
    ]
