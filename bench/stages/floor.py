"""The fixed cost of the stack: a constant answered through Django's middleware, and through DRF, under the same load.

The smallest documents' baselines (a source, a passage, a citation) are a
lookup by key in a tiny WSGI app; beside them the API's figure includes the
stack every request passes through. These figures measure that stack alone,
served by gunicorn with the API's settings (`bench/floor_settings.py`), in
rotating rounds with the baseline's source detail, so that a reader can see
what no read path inside the stack could save.
"""

from __future__ import annotations

import math
from pathlib import Path

from bench.figures import Figure, Run, say
from bench.stages.api import gunicorn

FLOOR_PATHS = {
    "a constant from a Django view through every middleware": "/floor/django/",
    "a constant from a DRF view (negotiation, throttle, rendering) through every middleware": "/floor/drf/",
}


def floor_figures(run: Run, url: str, log_dir: Path) -> None:
    from bench import load
    from bench.stages.api_documents import source_detail_paths

    workers, concurrency = run.args.workers, run.args.concurrency
    count = max(concurrency, run.args.requests // 4)
    details = source_detail_paths()
    # No search is asked for: reading the search's snapshot at a million passages would only load the 2 cores.
    extra = {"DJANGO_SETTINGS_MODULE": "bench.floor_settings", "API_CACHE_SECONDS": "0", "WARM_SEARCH": "0"}
    baseline_app = "bench.baseline_app:application"
    with (
        gunicorn(baseline_app, url, workers, log_dir / "gunicorn-floor-baseline.log") as baseline_port,
        gunicorn("config.wsgi:application", url, workers, log_dir / "gunicorn-floor.log", extra) as floor,
    ):
        plans = {"baseline": (baseline_port, [details[i % len(details)] for i in range(count)])}
        plans.update({name: (floor, [path] * count) for name, path in FLOOR_PATHS.items()})
        for port, paths in plans.values():
            load.drive(port, list(dict.fromkeys(paths)) * (8 * workers), concurrency)
        measured = {name: load.LoadResult() for name in plans}
        rounds = 4
        size = math.ceil(count / rounds)
        for index in range(rounds):
            order = list(plans.items())
            order = order[index % len(order) :] + order[: index % len(order)]
            for name, (port, paths) in order:
                measured[name].extend(load.drive(port, paths[index * size : (index + 1) * size], concurrency))
    base = measured["baseline"]
    for name in FLOOR_PATHS:
        result = measured[name]
        notes = (
            f"{len(result.latencies)} requests, concurrency {concurrency}, gunicorn {workers} sync workers, "
            f"{rounds} rotating rounds with the baseline's source detail; no target: the part of every API "
            "answer that no read path can save"
        )
        if result.failures:
            notes += f"; {len(result.failures)} failed, e.g. {result.failures[0]}"
        for label, value, baseline_value in (("p50", result.p50, base.p50), ("p95", result.p95, base.p95)):
            run.add(Figure(
                f"API stack floor, {name}: {label} latency", value, "ms",
                "the baseline's source detail (one statement, tiny WSGI app)", baseline_value, "lower", notes=notes,
            ))
        say(f"  stack floor, {name}: p50 {result.p50:.2f} ms beside the baseline's {base.p50:.2f} ms")
