"""A bounded loopback load: a fixed number of GET requests from a few Python threads.

The API figures compare two servers under the same load, so the load must be
simple, repeatable and gentle on a shared machine: 127.0.0.1 only, a fixed
number of requests, a fixed concurrency, one new connection per request (as
gunicorn's sync workers close each connection anyway). No external tool is
needed; the driver's own overhead is the same for both servers.
"""

from __future__ import annotations

import http.client
import statistics
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"


@dataclass
class LoadResult:
    """Latencies (seconds) of the successful requests, failures, and the wall time."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall: float = 0.0
    skipped: int = 0
    # Answers marked as given without building them: from the API's response cache, or from a
    # current stored document before the view (`archive.api.caching.HIT_HEADER`).
    hits: int = 0

    def extend(self, other: LoadResult) -> None:
        self.latencies.extend(other.latencies)
        self.failures.extend(other.failures)
        self.wall += other.wall
        self.skipped += other.skipped
        self.hits += other.hits

    @property
    def hit_rate(self) -> float:
        return self.hits / len(self.latencies) if self.latencies else float("nan")

    def percentile(self, q: float) -> float:
        """The q-th percentile (0–100) in milliseconds, nearest-rank on the sorted latencies."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
        return ordered[rank - 1] * 1000

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) * 1000 if self.latencies else float("nan")

    @property
    def p95(self) -> float:
        return self.percentile(95)

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0


# `archive.api.caching.HIT_HEADER` and its values, written out: the load runs apart from the app's code.
HIT_HEADER = "X-Archive-Cache"
UNBUILT = frozenset({"hit", "stored"})


def get(port: int, path: str, timeout: float = 300.0) -> tuple[int, bytes]:
    status, body, _hit = fetch(port, path, timeout)
    return status, body


def fetch(port: int, path: str, timeout: float = 300.0) -> tuple[int, bytes, bool]:
    """Status, body, and whether the answer was given without building it (response cache or stored answer)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Host": f"{HOST}:{port}", "Accept": "application/json"})
        response = connection.getresponse()
        return response.status, response.read(), response.getheader(HIT_HEADER) in UNBUILT
    finally:
        connection.close()


def drive(port: int, paths: Sequence[str], concurrency: int, budget: float | None = None) -> LoadResult:
    """GET every path once, `concurrency` at a time; return the latencies.

    With a `budget` (seconds), no request starts after it is spent, so that a
    slow endpoint on a large archive bounds the run instead of stretching it;
    `skipped` counts the paths left out.
    """
    result = LoadResult()
    deadline = None if budget is None else time.perf_counter() + budget
    lock = threading.Lock()
    queue = list(reversed(paths))

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                if deadline is not None and time.perf_counter() > deadline:
                    result.skipped += len(queue)
                    queue.clear()
                    return
                path = queue.pop()
            started = time.perf_counter()
            try:
                status, _body, hit = fetch(port, path)
            except OSError as exc:
                with lock:
                    result.failures.append(f"{path}: {exc}")
                continue
            elapsed = time.perf_counter() - started
            with lock:
                if status == 200:
                    result.latencies.append(elapsed)
                    result.hits += hit
                else:
                    result.failures.append(f"{path}: HTTP {status}")

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.wall = time.perf_counter() - started
    return result


def wait_until_serving(port: int, path: str, process: subprocess.Popen[bytes], log: Path, limit: float = 60) -> None:
    """Wait for the server to answer `path`, or fail with the end of its log."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            status, _ = get(port, path, timeout=5)
            if status < 500:
                return
        except OSError:
            pass
        time.sleep(0.3)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"server on port {port} did not answer {path}:\n{tail}")
