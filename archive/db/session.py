"""PostgreSQL settings for the statements of one block, put back after it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections, transaction


@contextmanager
def local_settings(using: str, settings: dict[str, str]) -> Iterator[None]:
    """PostgreSQL settings local to a transaction (or savepoint), put back after it; nothing elsewhere.

    Set and read back in one statement each way. On other engines nothing is set.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield
        return
    names, values = list(settings), list(settings.values())
    nested = connection.in_atomic_block
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting(name), set_config(name, value, true) "
                           "FROM unnest(%s::text[], %s::text[]) AS s(name, value)", [names, values])
            previous = [row[0] for row in cursor.fetchall()]
        yield
        # A failed statement inside marks the block for rollback, which puts the settings back itself.
        if nested and not connection.needs_rollback:
            # Inside an outer transaction a savepoint's SET LOCAL outlives it: restore by hand.
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(name, value, true) FROM unnest(%s::text[], %s::text[]) "
                               "AS s(name, value)", [names, previous])
