"""Triggers that keep passages inside their source and quotes inside their passage.

A CHECK constraint sees one row only; these rules compare two tables, so they
are triggers, written once for SQLite and once for PostgreSQL. Both count
characters (code points), as Python does. A passage is checked against the
source's stored `length` (itself checked against its text), not the text, so
that a bulk load does not re-read a long source for every passage.
"""

from __future__ import annotations

PASSAGE_OUTSIDE = "passage offsets lie outside its source text"
QUOTE_MISMATCH = "citation quote is not the passage text at its offsets"

SQLITE_CREATE = [
    f"""
    CREATE TRIGGER archive_passage_within_source_{event.lower()}
    BEFORE {event} ON archive_passage
    WHEN NEW."end" > (SELECT length FROM archive_source WHERE id = NEW.source_id)
    BEGIN SELECT RAISE(ABORT, '{PASSAGE_OUTSIDE}'); END;
    """
    for event in ("INSERT", "UPDATE")
] + [
    f"""
    CREATE TRIGGER archive_citation_quote_in_passage_{event.lower()}
    BEFORE {event} ON archive_citation
    WHEN substr((SELECT text FROM archive_passage WHERE id = NEW.passage_id), NEW.start + 1, NEW."end" - NEW.start)
         IS NOT NEW.quote
    BEGIN SELECT RAISE(ABORT, '{QUOTE_MISMATCH}'); END;
    """
    for event in ("INSERT", "UPDATE")
]

SQLITE_DROP = [f"DROP TRIGGER IF EXISTS archive_passage_within_source_{e}" for e in ("insert", "update")] + [
    f"DROP TRIGGER IF EXISTS archive_citation_quote_in_passage_{e}" for e in ("insert", "update")
]

POSTGRES_CREATE = [
    f"""
    CREATE FUNCTION archive_passage_within_source() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW."end" > (SELECT length FROM archive_source WHERE id = NEW.source_id) THEN
        RAISE EXCEPTION '{PASSAGE_OUTSIDE}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$;
    """,
    """
    CREATE TRIGGER archive_passage_within_source BEFORE INSERT OR UPDATE ON archive_passage
    FOR EACH ROW EXECUTE FUNCTION archive_passage_within_source();
    """,
    f"""
    CREATE FUNCTION archive_citation_quote_in_passage() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF substr((SELECT text FROM archive_passage WHERE id = NEW.passage_id), NEW.start + 1, NEW."end" - NEW.start)
         IS DISTINCT FROM NEW.quote THEN
        RAISE EXCEPTION '{QUOTE_MISMATCH}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$;
    """,
    """
    CREATE TRIGGER archive_citation_quote_in_passage BEFORE INSERT OR UPDATE ON archive_citation
    FOR EACH ROW EXECUTE FUNCTION archive_citation_quote_in_passage();
    """,
]

POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS archive_passage_within_source ON archive_passage",
    "DROP FUNCTION IF EXISTS archive_passage_within_source()",
    "DROP TRIGGER IF EXISTS archive_citation_quote_in_passage ON archive_citation",
    "DROP FUNCTION IF EXISTS archive_citation_quote_in_passage()",
]


def create(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_CREATE, POSTGRES_CREATE)


def drop(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_DROP, POSTGRES_DROP)


def _run(schema_editor: object, sqlite: list[str], postgres: list[str]) -> None:
    vendor = schema_editor.connection.vendor  # type: ignore[attr-defined]  # a schema editor, passed untyped by the migration
    statements = {"sqlite": sqlite, "postgresql": postgres}.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement)  # type: ignore[attr-defined]  # a schema editor, passed untyped by the migration
