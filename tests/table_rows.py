"""The rows a load added to the tables of the project's models, read once and inserted again.

For the test suite's shared set-up: the rows that took seconds of loading to write are kept in
memory and inserted again with one INSERT per table (executed for many rows, after a DELETE of
any row under the same key), instead of being loaded again. Only rows the load added or changed
are kept (by primary key); a changed row (a counter the load moved on) replaces its older self.

Tables are filled parents first, so that the database's own checks (triggers that read a
citation's passage or a passage's source) see what they check; foreign keys are deferred to the
transaction's end on both engines, so the order within a table does not matter. Columns a
migration added beside a model's fields are kept too; generated columns are left to the
database. On PostgreSQL the sequences are moved past the ids written.
"""

from __future__ import annotations

from dataclasses import dataclass
from graphlib import TopologicalSorter
from typing import Any

from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, models


def _models_parents_first() -> list[type[models.Model]]:
    chosen = [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]
    chosen_set = set(chosen)
    graph: dict[type[models.Model], set[type[models.Model]]] = {}
    for model in chosen:
        parents = {
            field.related_model
            for field in model._meta.concrete_fields
            if field.is_relation and field.related_model is not model
        }
        graph[model] = {parent for parent in parents if parent in chosen_set}  # type: ignore[misc]
    # Sorted first, so that the order (and so the ids of anything the database numbers) never varies.
    ordered = sorted(chosen, key=lambda model: model._meta.db_table)
    sorter = TopologicalSorter({model: graph[model] for model in ordered})
    return list(sorter.static_order())


def _columns(model: type[models.Model]) -> list[str]:
    """The columns written: the model's, and any a migration added beside them (the search index's
    grams on PostgreSQL); generated columns are the database's."""
    named = [field.column for field in model._meta.concrete_fields if not field.generated]
    generated = {field.column for field in model._meta.concrete_fields if field.generated}
    return named + [column for column in _stored_columns(model._meta.db_table)
                    if column not in named and column not in generated]


_stored: dict[tuple[str, str], list[str]] = {}


def _stored_columns(table: str) -> list[str]:
    """The table's columns as the database has them, generated ones left out."""
    key = (connection.vendor, table)
    if key not in _stored:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                    "AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position", [table])
                _stored[key] = [row[0] for row in cursor.fetchall()]
            else:
                # table_xinfo's `hidden` is 2 or 3 for a generated column.
                cursor.execute(f"PRAGMA table_xinfo({connection.ops.quote_name(table)})")
                _stored[key] = [row[1] for row in cursor.fetchall() if row[6] == 0]
    return _stored[key]


@dataclass(frozen=True)
class TableRows:
    models: list[type[models.Model]]
    rows: dict[str, list[tuple[Any, ...]]]

    def added_since(self, before: TableRows) -> TableRows:
        """The rows that are here and were not `before`, or were but differently, by primary key."""
        added: dict[str, list[tuple[Any, ...]]] = {}
        for model in self.models:
            table = model._meta.db_table
            key = _columns(model).index(model._meta.pk.column)
            earlier = {row[key]: row for row in before.rows.get(table, [])}
            added[table] = [row for row in self.rows[table] if earlier.get(row[key]) != row]
        return TableRows(self.models, added)

    @classmethod
    def read(cls) -> TableRows:
        quote = connection.ops.quote_name
        chosen = _models_parents_first()
        rows: dict[str, list[tuple[Any, ...]]] = {}
        with connection.cursor() as cursor:
            for model in chosen:
                table, columns = model._meta.db_table, _columns(model)
                cursor.execute(
                    f"SELECT {', '.join(map(quote, columns))} FROM {quote(table)} "
                    f"ORDER BY {quote(model._meta.pk.column)}"
                )
                rows[table] = [tuple(row) for row in cursor.fetchall()]
        return cls(chosen, rows)

    def insert(self) -> None:
        """Write the rows again, in place of any row under the same key (inside the caller's transaction)."""
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            for model in self.models:
                table, columns = model._meta.db_table, _columns(model)
                if not self.rows[table]:
                    continue
                pk = model._meta.pk.column
                key = columns.index(pk)
                # Rows that stand under the same key (a counter's older value) make way first.
                cursor.executemany(
                    f"DELETE FROM {quote(table)} WHERE {quote(pk)} = %s", [(row[key],) for row in self.rows[table]]
                )
                placeholders = ", ".join(["%s"] * len(columns))
                cursor.executemany(
                    f"INSERT INTO {quote(table)} ({', '.join(map(quote, columns))}) "
                    f"VALUES ({placeholders})",
                    self.rows[table],
                )
            for statement in connection.ops.sequence_reset_sql(no_style(), self.models):
                cursor.execute(statement)
