"""One API request in this process, split into its SQL and its Python, beside the baseline's statement alone.

What bounds the figures under load, measured rather than asserted: the
requests go through django.test.Client with no HTTP and no load, once with
the response cache off and once as served: from the response cache, or for a
plain detail from its stored document before the view (`bench/breakdown.py`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from urllib.parse import urlsplit

from bench.figures import Figure, Run
from bench.measuring import client_get, median_ms
from bench.stages.api_documents import endpoints

# Runs of a baseline statement before it is timed, as a gunicorn worker has run it when measured: its
# plan takes longer to make than the statement to run, and PostgreSQL keeps one for good only after
# psycopg has prepared the statement (at its 5th run) and five plans made for their parameters.
SETTLED = 12


def _baseline(base: str, paths: list[str]) -> Callable[[], bytes | None]:
    """The baseline's statement of each path in turn: it reads the same documents as the API."""
    from bench import baseline_app

    rotation = itertools.cycle(urlsplit(path) for path in paths)

    def answer() -> bytes | None:
        asked = next(rotation)
        return baseline_app.document(base, asked.path, asked.query)

    return answer


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
        if baseline_app._connection is not None:
            baseline_app._connection.close()
            baseline_app._connection = None
