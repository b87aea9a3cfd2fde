"""The trigger that clears a citation's folded quote and claim when a write changes them without it.

`FoldedQuoteAndClaim.pre_save` writes the folded text on every insert and save;
a write that bypasses it (an `UPDATE` of the quote or claim alone) leaves the
column NULL, and the admin's search folds NULL rows in Python, so no match is missed.
"""

from __future__ import annotations

from .triggers import _run

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


def create(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_CREATE, POSTGRES_CREATE)


def drop(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_DROP, POSTGRES_DROP)
