"""The version of the data a connection sees: a token that changes whenever that data may have.

Also called the data's generation. It is what caches of derived results are
keyed by, hence the module's name: not a generator of data, a version of it.

Caches of derived results (rendered API pages, the names search compares)
are keyed by it, so that a write anywhere makes every stored result
unreachable at once and nothing has to be invalidated by hand, whatever path
wrote: the ORM, a bulk COPY, raw SQL or another process.

- PostgreSQL: the token is the connection's current snapshot (xmin, xmax and
  the transactions in progress), which says exactly which transactions it
  sees. Every commit changes it.
- SQLite: the token is `PRAGMA data_version` (changed by other connections'
  commits), `total_changes()` (this connection's rows written, rolled back
  or not, so it never repeats) and the schema version, tagged with a nonce of
  the connection, since the counters start again on a new one.

Inside a transaction the generation is unknown (None): its own writes may
not show in the token, and a rollback would bring back a token that was seen
with writes that never happened. Callers then store nothing.

The token is read before the data is, so a result stored under it is never
older than the state it names.
"""

from __future__ import annotations

import secrets

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

_NONCE = "_archive_data_version_nonce"


def _tag(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    setattr(connection, _NONCE, secrets.token_hex(8))


def connect() -> None:
    """Tag every new connection (called once the apps are ready)."""
    connection_created.connect(_tag, dispatch_uid="archive.data_version")


def _postgresql(connection: BaseDatabaseWrapper) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id_if_assigned() IS NULL, pg_current_snapshot()::text")
        clean, snapshot = cursor.fetchone()
    return f"pg:{snapshot}" if clean else None


def _sqlite(connection: BaseDatabaseWrapper) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT total_changes(), (SELECT data_version FROM pragma_data_version),"
            " (SELECT schema_version FROM pragma_schema_version)"
        )
        changes, version, schema = cursor.fetchone()
    nonce = getattr(connection, _NONCE, None)
    if nonce is None:  # opened before this module was imported
        _tag(None, connection)
        nonce = getattr(connection, _NONCE)
    return f"sqlite:{nonce}:{version}:{changes}:{schema}"


def current(using: str | None = None) -> str | None:
    """The generation of the archive's data on database `using`; None when it cannot be told.

    Without `using`, the database the router reads archive records from.
    """
    from archive.models import Source

    alias = using or router.db_for_read(Source)
    connection = connections[alias]
    if connection.in_atomic_block:
        return None  # a rollback would bring back a token seen with writes that never happened
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        token = _postgresql(connection)
    elif connection.vendor == "sqlite":
        token = _sqlite(connection)
    else:
        return None
    return f"{alias}:{token}" if token is not None else None
