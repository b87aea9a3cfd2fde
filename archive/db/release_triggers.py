"""Triggers that keep a release as it was made: no UPDATE or DELETE of a release or its files.

A CHECK constraint cannot refuse a change of a row; a trigger can, on both
engines, whatever code (or SQL by hand) asks for it. PostgreSQL's TRUNCATE,
which skips row triggers, is left to the database's owner: it is what
`manage.py flush` uses to empty a whole database, a release's table included.
"""

from __future__ import annotations

from .triggers import _run

RELEASE_IMMUTABLE = "a release is never changed after it is made"
_TABLES = ("archive_release", "archive_releasefile")

SQLITE_CREATE = [
    f"""
    CREATE TRIGGER {table}_immutable_{event.lower()}
    BEFORE {event} ON {table}
    BEGIN SELECT RAISE(ABORT, '{RELEASE_IMMUTABLE}'); END;
    """
    for table in _TABLES
    for event in ("UPDATE", "DELETE")
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS {table}_immutable_{e}" for table in _TABLES for e in ("update", "delete")]

POSTGRES_CREATE = [
    f"""
    CREATE FUNCTION archive_release_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '{RELEASE_IMMUTABLE}' USING ERRCODE = 'integrity_constraint_violation';
    END $$;
    """,
] + [
    f"""
    CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION archive_release_immutable();
    """
    for table in _TABLES
]
POSTGRES_DROP = [
    *[f"DROP TRIGGER IF EXISTS {table}_immutable ON {table}" for table in _TABLES],
    "DROP FUNCTION IF EXISTS archive_release_immutable()",
]


def create(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_CREATE, POSTGRES_CREATE)


def drop(apps: object, schema_editor: object) -> None:
    _run(schema_editor, SQLITE_DROP, POSTGRES_DROP)
