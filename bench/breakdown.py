"""Where the time of one API request goes, measured in this process.

A latency under load says how long a reader waits, not why. Served
in-process through django.test.Client, one request is split into the time
its SQL statements take (each `execute`, results included, on every database
alias) and the rest, which is Python: middleware, the ORM building model
instances, DRF serialising them. The model instances built are counted too,
in a request of their own so that counting does not slow the timed ones.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Breakdown:
    requests: int
    total_ms: float  # median wall time of a request
    sql_ms: float  # median time in SQL of a request
    queries: int  # SQL statements of the last request
    instances: int  # model instances built by one request

    @property
    def python_ms(self) -> float:
        return max(0.0, self.total_ms - self.sql_ms)


@contextmanager
def _sql_timer() -> Iterator[list[float]]:
    """The time of each SQL statement run inside, in seconds, on every database alias."""
    from django.db import connections

    times: list[float] = []

    def timed(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            times.append(time.perf_counter() - started)

    with ExitStack() as stack:
        for connection in connections.all():
            stack.enter_context(connection.execute_wrapper(timed))
        yield times


@contextmanager
def _instance_counter() -> Iterator[list[int]]:
    from django.db.models.signals import post_init

    count = [0]

    def built(sender: type, **kwargs: Any) -> None:
        count[0] += 1

    post_init.connect(built, weak=False)
    try:
        yield count
    finally:
        post_init.disconnect(built)


def measure(get: Callable[[str], Any], paths: list[str], repeat: int) -> Breakdown:
    """`repeat` warm requests, cycling through `paths`, each read with `get(path)`."""
    for path in dict.fromkeys(paths):
        get(path)  # warm: what a process does once (content types, resolvers) is not counted
    totals, sqls = [], []
    queries = 0
    for index in range(repeat):
        path = paths[index % len(paths)]
        with _sql_timer() as times:
            started = time.perf_counter()
            get(path)
            totals.append(time.perf_counter() - started)
        sqls.append(sum(times))
        queries = len(times)
    with _instance_counter() as count:
        get(paths[0])
    return Breakdown(
        requests=repeat,
        total_ms=statistics.median(totals) * 1000,
        sql_ms=statistics.median(sqls) * 1000,
        queries=queries,
        instances=count[0],
    )

