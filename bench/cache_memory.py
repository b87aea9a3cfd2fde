"""Memory of the serving process after many requests: identical, with junk parameters, all different.

The API's response cache once keyed on the raw query string: 400 requests
with junk parameters grew one worker by 200 MB. This script serves the
shipped collection with gunicorn (one sync worker, production settings, the
cache on) and measures the worker's resident memory (VmRSS) before and after
each workload, each on a fresh worker:

* identical: the same page of events, 10,000 times (one cache entry);
* junk parameters: 10,000 requests each with a new unknown parameter name
  and value (refused with 400, nothing stored);
* distinct questions: 10,000 valid requests that each ask something else
  (`before=` a different second, `page_size` 1–3), every answer stored
  until the byte ceiling `API_CACHE_MAX_BYTES` evicts the oldest.

It prints the figures and writes them into BENCHMARKS.md between the markers
`<!-- cache-memory -->` and `<!-- /cache-memory -->` (appended when absent).

    .venv/bin/python bench/cache_memory.py [--requests 10000] [--ceiling-mb 32]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
START, END = "<!-- cache-memory -->", "<!-- /cache-memory -->"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(workdir: Path, ceiling: int) -> dict[str, str]:
    return {
        **os.environ,
        "ENV_FILE": "",
        "DEBUG": "0",
        "SECRET_KEY": "bench-cache-memory-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
        "CACHE_DIR": str(workdir / "cache"),
        "SECURE_SSL_REDIRECT": "0",
        "API_ANON_RATE": "100000000/minute",
        "API_CACHE_SECONDS": "600",
        "API_CACHE_MAX_BYTES": str(ceiling),
        "API_CACHE_ENTRIES": "1000000",
        "LOG_LEVEL": "ERROR",
        "REQUEST_LOG_LEVEL": "ERROR",
        "AXES_ENABLED": "0",
    }


def _prepare(env: dict[str, str]) -> None:
    for command in (["migrate", "--noinput", "--verbosity", "0"], ["load_collection"]):
        subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def _worker_pid(master: int) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1)) / 1024


class Server:
    """gunicorn with one sync worker, so that one process answers every request."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = _free_port()
        self.process = subprocess.Popen(
            [str(Path(PYTHON).parent / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", "1", "--timeout", "120", "--max-requests", "0", "--error-logfile", "/dev/null"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.worker = _worker_pid(self.process.pid)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.get("/api/v1/")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def get(self, path: str) -> int:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", path, headers={"Host": "127.0.0.1"})
            response = connection.getresponse()
            response.read()
            return response.status
        finally:
            connection.close()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def _paths(kind: str, count: int) -> list[str]:
    base = "/api/v1/events/"
    if kind == "identical":
        return [f"{base}?page_size=20"] * count
    if kind == "junk":
        return [f"{base}?page_size=20&junk{n}={'x' * 64}{n}&utm_source=n{n}" for n in range(count)]
    start = dt.datetime(1937, 12, 1)
    return [f"{base}?page_size={n % 3 + 1}&before={(start + dt.timedelta(seconds=n)).isoformat()}"
            for n in range(count)]


def measure(env: dict[str, str], kind: str, count: int) -> dict[str, object]:
    server = Server(env)
    try:
        server.get("/api/v1/events/?page_size=20")  # every module loaded before the first figure
        before = _rss_mb(server.worker)
        started = time.monotonic()
        statuses: dict[int, int] = {}
        for path in _paths(kind, count):
            status = server.get(path)
            statuses[status] = statuses.get(status, 0) + 1
        seconds = time.monotonic() - started
        after = _rss_mb(server.worker)
    finally:
        server.stop()
    return {"kind": kind, "requests": count, "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1),
            "growth_mb": round(after - before, 1), "statuses": statuses, "seconds": round(seconds, 1)}


LABELS = {
    "identical": "identical requests",
    "junk": "a new unknown parameter each (400)",
    "distinct": "a different valid question each",
}


def report(results: list[dict[str, object]], ceiling: int) -> str:
    lines = [
        START,
        "## Memory of the serving process under the response cache",
        "",
        f"One gunicorn sync worker serving the shipped collection on SQLite, production settings, the "
        f"response cache on with a ceiling of {ceiling / 1024 / 1024:.0f} MB (`API_CACHE_MAX_BYTES`); resident "
        f"memory (VmRSS) of the worker after one warm-up request and after the workload "
        f"(`bench/cache_memory.py`, {dt.date.today().isoformat()}).",
        "",
        "| workload | requests | answers | RSS before | RSS after | growth | time |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for result in results:
        statuses = ", ".join(f"{count:,}× {status}" for status, count in sorted(result["statuses"].items()))  # type: ignore[attr-defined]
        lines.append(
            f"| {LABELS[str(result['kind'])]} | {result['requests']:,} | {statuses} | {result['rss_before_mb']} MB "
            f"| {result['rss_after_mb']} MB | {result['growth_mb']:+} MB | {result['seconds']} s |"
        )
    lines += [
        "",
        "Junk parameters are refused before any lookup and store nothing. Distinct valid questions are stored "
        "until the ceiling, then the least recently used are evicted; compare their growth with that of identical "
        "requests, which the cache holds as one entry. Times depend on the machine's other load.",
        END,
    ]
    return "\n".join(lines)


def write_section(section: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--ceiling-mb", type=int, default=32)
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md as it is")
    args = parser.parse_args()
    ceiling = args.ceiling_mb * 1024 * 1024
    workdir = Path(tempfile.mkdtemp(prefix="bench-cache-memory-"))
    try:
        env = _environment(workdir, ceiling)
        _prepare(env)
        results = []
        for kind in ("identical", "junk", "distinct"):
            result = measure(env, kind, args.requests)
            print(f"{LABELS[kind]:40} {result['requests']:>7,} requests  {result['statuses']}  "
                  f"RSS {result['rss_before_mb']} -> {result['rss_after_mb']} MB ({result['growth_mb']:+} MB) "
                  f"in {result['seconds']} s", flush=True)
            results.append(result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    section = report(results, ceiling)
    if not args.no_write:
        write_section(section)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
