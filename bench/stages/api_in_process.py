"""One API request in this process, split into its SQL and its Python, beside the baseline's statement alone.

What bounds the figures under load, measured rather than asserted: the
requests go through django.test.Client with no HTTP and no load, once with
the response cache off and once as served: from the response cache, or for a
plain detail from its stored document before the view (`bench/breakdown.py`).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from bench.figures import Figure, Run
from bench.measuring import client_get, median_ms
from bench.stages.api_documents import endpoints

# Runs of a baseline statement before it is timed, as a gunicorn worker has run it when measured: its
# first run chooses its plan mode (`baseline_app._choose`) and makes its cached plan.
SETTLED = 12


def _baseline(base: str, paths: list[str]) -> Callable[[], bytes | None]:
    """The baseline's statement of each path in turn: it reads the same documents as the API."""
    from bench import baseline_app

    rotation = itertools.cycle(urlsplit(path) for path in paths)

    def answer() -> bytes | None:
        asked = next(rotation)
        return baseline_app.document(base, asked.path, asked.query)

    return answer


def explain_analyze(url: str, base: str, path: str) -> tuple[float, float]:
    """Planning and execution time (ms) of the baseline's statement of `path`, by EXPLAIN ANALYZE of a fresh plan."""
    import psycopg

    from bench import baseline_app

    asked = urlsplit(path)
    found = baseline_app.statement_for(base, asked.path, asked.query)
    assert found is not None, path
    statement, params = found
    with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as connection:
        connection.execute("SET TIME ZONE 'Asia/Shanghai'")
        for _ in range(2):  # the second, with the catalogue and the data cached as in the measured runs
            started = time.perf_counter()
            row = connection.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, params).fetchone()
            if time.perf_counter() - started > 1:
                break  # a slow statement once: its cache effects are small beside it
    assert row is not None
    plan = row[0][0]
    return float(plan["Planning Time"]), float(plan["Execution Time"])


def _plan_check(run: Run, url: str, base: str, title: str, path: str) -> None:
    """The baseline's time beside its statement's execution: a cached plan leaves the planning out."""
    from bench import baseline_app

    base_ms = median_ms(_baseline(base, [path]), 5)
    planning, execution = explain_analyze(url, base, path)
    asked = urlsplit(path)
    found = baseline_app.statement_for(base, asked.path, asked.query)
    mode = baseline_app.plan_choices.get(found[0], ("?", {}))[0] if found else "?"
    run.add(
        Figure(
            f"baseline check, {title}: the statement with its cached plan",
            base_ms,
            "ms",
            "its execution time by EXPLAIN ANALYZE (planning left out)",
            execution,
            "lower",
            target="within 1 ms of the execution time, or nearer it than execution + planning",
            met=base_ms < execution + max(1.0, planning / 2),
            notes=f"{path}: planning {planning:.1f} ms and execution {execution:.1f} ms by EXPLAIN ANALYZE; the "
            f"baseline runs it with the {mode} plan (the faster of its generic plan and one made per run, timed on "
            "its first use), prepared once per connection",
        )
    )


def api_breakdown_figures(run: Run, url: str) -> None:
    """One request of each benchmarked endpoint in this process: its SQL, its Python, its model instances.

    What bounds the figures under load, measured rather than asserted; the
    baseline is the baseline app's SQL statement alone, run from here.
    """
    from django.test import Client, override_settings

    from bench import baseline_app, breakdown

    client = Client()
    main_repeat = max(10, run.args.admin_repeat * 3)
    base = "http://127.0.0.1"
    os.environ["BENCH_DATABASE_URL"] = url
    baseline_name = "the baseline's SQL statement alone, run from this process"
    try:
        for endpoint in endpoints():
            title, paths = endpoint.title, endpoint.paths
            # The other endpoints get half the repeats: the split is what matters, and the run stays short.
            repeat = main_repeat if endpoint.main else max(5, main_repeat // 2)
            baseline = _baseline(base, paths)
            for _ in range(SETTLED):
                baseline()
            base_ms = median_ms(baseline, repeat)
            _plan_check(run, url, base, title, paths[0])
            label = f"API in one process, {title}"
            with override_settings(API_CACHE_SECONDS=0):
                built = breakdown.measure(lambda path: client_get(client, path), paths, repeat)
            cached = breakdown.measure(lambda path: client_get(client, path), paths, repeat)
            # The same answers built by the serializers, as before the stored documents and as a stale one is.
            with override_settings(API_CACHE_SECONDS=0, API_STORED_DOCUMENTS=False):
                serialized = breakdown.measure(lambda path: client_get(client, path), paths, repeat)
            notes = (
                f"median of {repeat} warm requests through django.test.Client, {len(set(paths))} distinct path(s); "
                f"{built.queries} SQL statements, timed at each execute (results included)"
            )
            rows = (
                ("response cache off: time of a request", built.total_ms, "ms", base_ms),
                ("response cache off: of which SQL", built.sql_ms, "ms", None),
                ("response cache off: of which Python", built.python_ms, "ms", None),
                ("response cache off: model instances built", built.instances, "instances", None),
                ("as served: time of an answer from the response cache or a stored answer", cached.total_ms, "ms",
                 base_ms),
                ("built by the serializers (no stored documents): time of a request", serialized.total_ms, "ms",
                 base_ms),
                ("built by the serializers: model instances built", serialized.instances, "instances", None),
            )
            for index, (name, value, unit, baseline_value) in enumerate(rows):
                run.add(
                    Figure(
                        f"{label}, {name}",
                        value,
                        unit,
                        baseline_name if baseline_value is not None else "",
                        baseline_value,
                        "lower",
                        notes=notes if index == 0 else "",
                    )
                )
    finally:
        baseline_app.close()
