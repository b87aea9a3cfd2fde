"""Counting rows without counting them all: exact when few, the planner's estimate when many.

A COUNT(*) over a third of a million matching rows costs more than the page
it accompanies. PostgreSQL's planner already knows about how many rows a
query returns (`pg_class.reltuples` for a whole table, the plan's row
estimate for a filtered one); beyond a threshold that estimate is what the
admin's paginator and the search API report, marked as such. Other databases
count exactly.
"""

from __future__ import annotations

import json

from django.db import connections
from django.db.models import QuerySet


def planner_estimate(queryset: QuerySet) -> int | None:
    """The rows PostgreSQL expects `queryset` to return, or None on other databases."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        if not queryset.query.where:
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", [queryset.model._meta.db_table]
            )
            row = cursor.fetchone()
            return int(row[0]) if row and row[0] and row[0] > 0 else None
        sql, params = queryset.order_by().values("pk").query.sql_with_params()
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def count_or_estimate(queryset: QuerySet, threshold: int) -> tuple[int, bool]:
    """`(count, exact)`: the exact count when the planner expects at most `threshold` rows."""
    estimate = planner_estimate(queryset)
    if estimate is not None and estimate > threshold:
        return estimate, False
    return queryset.count(), True
