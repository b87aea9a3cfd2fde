"""A cited passage keeps its words: the database refuses to change them under its citations.

Every citation points at a passage and at the exact words between its
offsets. An UPDATE that changes a passage's `text`, offsets, hash or source
while a citation (of any status) rests on it would leave every such quote
pointing at words the source no longer has, so a trigger refuses it, on
SQLite and on PostgreSQL alike.

The one lawful way to change a cited passage is the re-anchoring path
(`import_source --replace`, `archive.importing.source_text`): it plans where
every citation lands, then rewrites passages and citations in one
transaction. It asks leave for exactly the passages it rewrites by writing
their ids into `archive_passage_rewrite` inside that transaction and deleting
them before it commits (`rewriting`). A leave is never committed, so no other
connection ever sees one; a raw UPDATE without it is refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from django.db import connection, transaction

CITED_PASSAGE_CHANGED = "the text of a cited passage cannot change under its citations; re-anchor them instead"

# The columns that say which words a citation's offsets point at.
_GUARDED = ("text", "start", "end", "sha256", "source_id")
_CHANGED = " OR ".join(f'OLD."{c}" IS NOT NEW."{c}"' for c in _GUARDED)
_CHANGED_PG = " OR ".join(f'OLD."{c}" IS DISTINCT FROM NEW."{c}"' for c in _GUARDED)
_COLUMNS = ", ".join(f'"{c}"' for c in _GUARDED)

_CITED = "EXISTS (SELECT 1 FROM archive_citation WHERE passage_id = OLD.id)"
_NO_LEAVE = "NOT EXISTS (SELECT 1 FROM archive_passage_rewrite WHERE passage_id = OLD.id)"

LEAVE_TABLE = "CREATE TABLE archive_passage_rewrite (passage_id integer NOT NULL PRIMARY KEY)"

SQLITE_CREATE = [
    LEAVE_TABLE,
    f"""
    CREATE TRIGGER archive_cited_passage_unchanged
    BEFORE UPDATE OF {_COLUMNS} ON archive_passage
    WHEN ({_CHANGED}) AND {_CITED} AND {_NO_LEAVE}
    BEGIN SELECT RAISE(ABORT, '{CITED_PASSAGE_CHANGED}'); END;
    """,
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS archive_cited_passage_unchanged",
    "DROP TABLE IF EXISTS archive_passage_rewrite",
]

POSTGRES_CREATE = [
    LEAVE_TABLE,
    f"""
    CREATE FUNCTION archive_cited_passage_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF {_CITED} AND {_NO_LEAVE} THEN
        RAISE EXCEPTION '{CITED_PASSAGE_CHANGED}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$;
    """,
    f"""
    CREATE TRIGGER archive_cited_passage_unchanged BEFORE UPDATE OF {_COLUMNS} ON archive_passage
    FOR EACH ROW WHEN ({_CHANGED_PG}) EXECUTE FUNCTION archive_cited_passage_unchanged();
    """,
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS archive_cited_passage_unchanged ON archive_passage",
    "DROP FUNCTION IF EXISTS archive_cited_passage_unchanged()",
    "DROP TABLE IF EXISTS archive_passage_rewrite",
]


def create(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_CREATE, POSTGRES_CREATE)


def drop(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_DROP, POSTGRES_DROP)


def _run(schema_editor: object, sqlite: list[str], postgres: list[str]) -> None:
    vendor = schema_editor.connection.vendor  # type: ignore[attr-defined]  # a schema editor, passed untyped by the migration
    for statement in {"sqlite": sqlite, "postgresql": postgres}.get(vendor, []):
        schema_editor.execute(statement)  # type: ignore[attr-defined]  # a schema editor, passed untyped by the migration


@contextlib.contextmanager
def rewriting(passage_ids: Iterable[int]) -> Iterator[None]:
    """Leave, inside the caller's transaction, to rewrite these cited passages; withdrawn on leaving."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("rewriting() runs inside the transaction that re-anchors the citations")
    ids = sorted(set(passage_ids))
    # A savepoint: when the rewrite fails, rolling it back withdraws the leave with it.
    with transaction.atomic(), connection.cursor() as cursor:
        for chunk in _chunks(ids):
            cursor.execute(
                "INSERT INTO archive_passage_rewrite (passage_id) VALUES " + ", ".join(["(%s)"] * len(chunk)), chunk
            )
        yield
        for chunk in _chunks(ids):
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(f"DELETE FROM archive_passage_rewrite WHERE passage_id IN ({marks})", chunk)


def _chunks(ids: list[int], size: int = 500) -> Iterator[list[int]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]
