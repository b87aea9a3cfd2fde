"""The first requests of a new worker: a search and a page of events, from a gunicorn worker just started.

A worker is new after every deploy and, with `--max-requests`, every few
thousand requests. Each measurement starts a server of one worker, waits for
its health check to answer (as a load balancer does before it sends
traffic), then times one request. Ours is the API as served: the keys of the
names are read from the database (`archive.search.stored_keys`) and the
worker warmed up while it loaded (`config.warm_up`). The baseline is the
same request with the stored keys removed and no warm-up (`bench.cold_app`),
as a new worker answered before: it computed the keys of every name. The
stored keys are written back afterwards.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, Run, say
from bench.stages.api import REQUEST_TIMEOUT, gunicorn

PATHS = {
    "search": "/api/v1/search/?q=%E6%B1%9F",  # q=江
    "events page (page_size=50)": "/api/v1/events/?page_size=50",
}
ROUNDS = 3
TARGET_SECONDS = 1.0


def _first(app: str, url: str, path: str, log: Path) -> tuple[float, float]:
    """Seconds from start until the health check answers, and of the first request after it."""
    from bench import load

    started = time.perf_counter()
    with gunicorn(app, url, 1, log) as port:
        ready = time.perf_counter() - started
        before = time.perf_counter()
        status, _body = load.get(port, path, timeout=REQUEST_TIMEOUT)
        seconds = time.perf_counter() - before
    if status != 200:
        raise RuntimeError(f"GET {path} answered {status}")
    return ready, seconds


def _measure(app: str, url: str, logs: Path) -> dict[str, tuple[list[float], list[float]]]:
    measured: dict[str, tuple[list[float], list[float]]] = {title: ([], []) for title in PATHS}
    for _round in range(ROUNDS):
        for title, path in PATHS.items():
            ready, seconds = _first(app, url, path, logs / "gunicorn-first.log")
            measured[title][0].append(ready)
            measured[title][1].append(seconds)
    return measured


def first_request_figures(run: Run, url: str) -> None:
    from archive.models import StoredNameKeys
    from archive.search import stored_keys

    with tempfile.TemporaryDirectory(prefix="archive-bench-") as folder:
        logs = Path(folder)
        stored = stored_keys.store_all()
        names = StoredNameKeys.objects.count()
        ours = _measure("config.wsgi:application", url, logs)
        StoredNameKeys.objects.all().delete()
        try:
            cold = _measure("bench.cold_app:application", url, logs)
        finally:
            started = time.perf_counter()
            stored_keys.store_all()
            again = time.perf_counter() - started
    say(f"  stored the keys of {names:,} names again in {again:.1f} s ({stored:,} were missing before the run)")
    for title, path in PATHS.items():
        (ours_ready, ours_seconds), (cold_ready, cold_seconds) = ours[title], cold[title]
        value, baseline = statistics.median(ours_seconds) * 1000, statistics.median(cold_seconds) * 1000
        run.add(
            Figure(
                f"first request of a new worker: {title}",
                value,
                "ms",
                "the same first request with no stored name keys and no warm-up, as a new worker answered before",
                baseline,
                "lower",
                target=f"< {TARGET_SECONDS:.0f} s" + (" and ratio < 0.5" if title == "search" else ""),
                met=value < TARGET_SECONDS * 1000 and (title != "search" or value < 0.5 * baseline),
                notes=(
                    f"GET {path}, the first request after the health check of a gunicorn server of one sync worker "
                    f"just started; median of {ROUNDS} servers each (ours "
                    f"{', '.join(f'{s * 1000:,.0f}' for s in ours_seconds)} ms, baseline "
                    f"{', '.join(f'{s * 1000:,.0f}' for s in cold_seconds)} ms); from start to the health check "
                    f"answering {statistics.median(ours_ready):.1f} s "
                    f"(baseline {statistics.median(cold_ready):.1f} s); "
                    f"{names:,} names with stored keys, {again:.1f} s to store them all"
                ),
            )
        )
