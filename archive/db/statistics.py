"""Planner statistics brought up to date after a bulk load, on PostgreSQL.

PostgreSQL plans a query from the row counts its last ANALYZE saw. When that
was an empty table (a new database, or one whose rows were all rolled back
or deleted, as between tests), a table just filled with thousands of rows is
still planned as empty: nested loops of full scans, seconds per lookup.
ANALYZE inside the load's transaction counts the rows the transaction itself
inserted, so every later query of the same load is planned for what is there.
SQLite plans without such statistics and needs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.apps import apps
from django.db import connections, models


def refresh_statistics(*, using: str = "default", written: Iterable[type[models.Model]] | None = None) -> None:
    """ANALYZE the tables of the models `written` (all of the archive's when None), many-to-many tables included."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    chosen = set(apps.get_app_config("archive").get_models()) if written is None else set(written)
    tables = {model._meta.db_table for model in chosen}
    tables |= {
        field.remote_field.through._meta.db_table  # type: ignore[union-attr]  # a many-to-many has its table
        for model in chosen
        for field in model._meta.local_many_to_many
    }
    if not tables:
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(table) for table in sorted(tables)))
