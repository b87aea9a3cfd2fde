"""The API under gunicorn: p50/p95 latency and requests per second beside the hand-written SQL baseline.

Three servers run side by side with the same gunicorn settings: the API as
served (with its response cache), the API with the cache off, and the
baseline app (`bench/baseline_app.py`), which builds the same JSON in one
SQL statement. The same loopback load (`bench/load.py`) drives each in
rotating rounds, endpoint by endpoint (`bench/stages/api_documents.py`),
after a check that both answer the same documents.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.figures import ROOT, SECRET, Figure, Run, say
from bench.stages.api_documents import Endpoint, endpoints

REQUEST_TIMEOUT = 300.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def gunicorn(app: str, url: str, workers: int, log: Path, extra: dict[str, str] | None = None) -> Iterator[int]:
    """Serve `app` with gunicorn on a loopback port; stop it (and only it) afterwards."""
    from bench import load

    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BENCH_DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        # Plain HTTP on the loopback: without DEBUG, settings would redirect every request to HTTPS.
        "SECURE_SSL_REDIRECT": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # Each server counts its throttle in a store of its own (CACHE_DIR), at a rate the load never
        # reaches: the warm-up and the measured requests together pass 600 a minute from one address, and
        # a 429 is neither a latency of the API nor may it spill into the in-process figures that follow.
        # The throttle still counts every request, as at the served rate.
        "API_ANON_RATE": "100000000/second",
        "CACHE_DIR": str(log.parent / f"cache-{port}"),
        **(extra or {}),
    }
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        "sync",
        "--timeout",
        str(int(REQUEST_TIMEOUT)),
        "--error-logfile",
        str(log),
        app,
    ]
    with log.open("ab") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        load.wait_until_serving(port, "/health/", process, log)
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _same_documents(ours_port: int, baseline_port: int, paths: list[str]) -> str:
    from bench import load

    differing = []
    for path in paths:
        # Links carry the server's own host and port; compare the documents without them.
        a = json.loads(load.get(ours_port, path)[1].replace(f"127.0.0.1:{ours_port}".encode(), b"HOST"))
        b = json.loads(load.get(baseline_port, path)[1].replace(f"127.0.0.1:{baseline_port}".encode(), b"HOST"))
        if a != b:
            differing.append(path)
    if differing:
        return f"the baseline's JSON differs from the API's for {len(differing)} of {len(paths)} checked paths"
    return f"the baseline's JSON equals the API's for the {len(paths)} paths checked"


def api_figures(run: Run, url: str, log_dir: Path) -> None:
    """Latency and throughput of every kind of document: the API as served, with its response cache off, the baseline.

    As served, a repeated request is answered from the response cache
    (`archive.api.caching`) until the data changes; with the cache off each
    request builds its document, which is what the first reader after a
    change waits for. Both are set beside the same baseline.
    """
    workers = run.args.workers
    measured = endpoints()
    with (
        gunicorn("config.wsgi:application", url, workers, log_dir / "gunicorn-api.log") as ours,
        gunicorn(
            "config.wsgi:application", url, workers, log_dir / "gunicorn-api-uncached.log", {"API_CACHE_SECONDS": "0"}
        ) as uncached,
        gunicorn("bench.baseline_app:application", url, workers, log_dir / "gunicorn-baseline.log") as base,
    ):
        servers = {"ours": ours, "uncached": uncached, "baseline": base}
        equivalence = _same_documents(ours, base, [path for endpoint in measured for path in endpoint.paths])
        say(f"  {equivalence}")
        for endpoint in measured:
            _endpoint_figures(run, endpoint, servers, equivalence)
        run.context["baseline's plans"] = _baseline_plans(base, workers)


def _baseline_plans(port: int, workers: int) -> str:
    """Which plan each statement of the baseline app ran with, as its workers chose them (`/plans/`)."""
    from bench import load

    chosen: dict[str, set[str]] = {}
    for _ in range(4 * workers):  # gunicorn hands each request to any worker: ask often enough to reach each
        for name, choice in json.loads(load.get(port, "/plans/")[1]).items():
            chosen.setdefault(name, set()).add(choice["mode"])
    if not chosen:
        return "none chosen"
    return "; ".join(f"{name}: {'/'.join(sorted(modes))}" for name, modes in sorted(chosen.items())) + (
        " (each statement prepared, with the faster of the generic plan and a plan per run, chosen by each worker)")


def _endpoint_figures(run: Run, endpoint: Endpoint, servers: dict[str, int], equivalence: str) -> None:
    from bench import load

    workers = run.args.workers
    # An endpoint besides the main two gets a quarter of the requests and of the time, so that the run stays bounded.
    share = 1 if endpoint.main else 4
    budget = run.args.api_seconds / share
    paths = endpoint.requested(max(run.args.concurrency, run.args.requests // share))
    # A slow endpoint on a large archive gets fewer requests (never fewer than
    # one per thread), so that the run stays bounded; every server gets the same.
    started = time.perf_counter()
    load.get(servers["uncached"], paths[0], timeout=REQUEST_TIMEOUT)
    probe = time.perf_counter() - started
    planned = len(paths)
    if probe * len(paths) / workers > budget:
        paths = paths[: max(run.args.concurrency, int(budget * workers / probe))]
    rounds = max(1, min(4, len(paths) // run.args.concurrency))
    # Each distinct path eight times per worker: gunicorn hands a request to any worker, and with
    # fewer a worker is often left that has not built (or stored) some document yet, whose first
    # build then lands among the measured requests.
    warm = list(dict.fromkeys(paths)) * (8 * workers)
    for port in servers.values():
        load.drive(port, warm, run.args.concurrency, budget / 2)
    measured = {name: load.LoadResult() for name in servers}
    size = math.ceil(len(paths) / rounds)
    for index in range(rounds):
        chunk = paths[index * size : (index + 1) * size]
        # Rotate which server goes first, so drift of a shared machine falls on all.
        order = list(servers.items())
        order = order[index % len(order) :] + order[: index % len(order)]
        for name, port in order:
            measured[name].extend(load.drive(port, chunk, run.args.concurrency, budget / rounds))
    b = measured["baseline"]
    common = (
        f"{len(b.latencies)} requests each over {len(set(paths))} distinct path(s), concurrency "
        f"{run.args.concurrency}, gunicorn {workers} sync workers, {rounds} rotating round(s); {equivalence}"
    )
    if len(paths) < planned:
        common += (
            f"; one uncached request took {probe:.1f} s, so {len(paths)} of the planned {planned} requests "
            f"were made, to keep within {budget:.0f} s per server"
        )
    for name, result in measured.items():
        if result.failures:
            common += f"; {name}: {len(result.failures)} failed, e.g. {result.failures[0]}"
        if result.skipped:
            common += (
                f"; {name}: only {len(result.latencies)} of {len(paths)} requests made within the time "
                f"budget of {budget:.0f} s"
            )
    _api_figures(
        run, f"API {endpoint.title}", measured["ours"], b, cached=True,
        notes="as served: repeated requests are answered from the response cache until the data changes, and a plain "
        "detail or a page as first shown from its current stored document before it; " + common,
    )
    _api_figures(
        run, f"API {endpoint.title}, response cache off", measured["uncached"], b, cached=False,
        notes="no response cache (API_CACHE_SECONDS=0): every request reads its stored documents; "
        + common,
    )


def _api_figures(run: Run, label: str, a: Any, b: Any, *, cached: bool, notes: str) -> None:
    """p50, p95 and requests/s beside the baseline's: within twice its latency; a cached answer also under 50 ms."""
    baseline_name = "one SQL statement with json_agg, tiny WSGI app, same gunicorn settings"
    run.add(
        Figure(
            f"{label}: p50 latency",
            a.p50,
            "ms",
            baseline_name,
            b.p50,
            "lower",
            target="ratio ≤ 2",
            met=a.p50 <= 2 * b.p50,
            notes=notes,
        )
    )
    run.add(
        Figure(
            f"{label}: p95 latency",
            a.p95,
            "ms",
            baseline_name,
            b.p95,
            "lower",
            target="ratio ≤ 2 and < 50 ms" if cached else "ratio ≤ 2",
            met=a.p95 <= 2 * b.p95 and (a.p95 < 50 or not cached),
        )
    )
    run.add(
        Figure(
            f"{label}: requests/s",
            a.rps,
            "requests/s",
            baseline_name,
            b.rps,
            "higher",
            target="ratio ≥ 0.5",
            met=a.rps >= 0.5 * b.rps,
        )
    )
