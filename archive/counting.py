"""Counting rows without counting them all: exact when few, an estimate when many.

A COUNT(*) over a third of a million matching rows costs more than the page
it accompanies. PostgreSQL's planner already knows about how many rows a
query returns (`pg_class.reltuples` for a whole table, the plan's row
estimate for a filtered one); when it expects more than the threshold, that
estimate is what the admin's paginator and the search API report, marked as
such. When it expects fewer it can be far off (it takes the grams of a
search term as independent: a hundred where 58,000 match), so at most
threshold + 1 rows are counted (a COUNT over a LIMIT stops there) and an
estimate is given only beyond, never below what was counted. Other
databases count exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable

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


def count_or_estimate(queryset: QuerySet, threshold: int,
                      estimate: Callable[[], int | None] | None = None) -> tuple[int, bool]:
    """`(count, exact)`: exact when at most `threshold` rows match, else an estimate above `threshold`.

    `estimate`, if given, is a better guess than the planner's for when the
    planner expected at most `threshold` rows but more were counted.
    """
    if connections[queryset.db].vendor != "postgresql":
        return queryset.count(), True
    planned = planner_estimate(queryset)
    if planned is not None and planned > threshold:
        return planned, False
    counted = queryset.order_by()[: threshold + 1].count()
    if counted <= threshold:
        return counted, True
    guess = estimate() if estimate is not None else None
    return max(counted, guess or 0, planned or 0), False
