"""Curators saving at once through the admin, on SQLite and PostgreSQL: errors, p95, every save stored.

SQLite serialises writers on the whole database file. Its transactions used
to start DEFERRED, taking the write lock only at their first write, too late
for the busy timeout to help: most of a crowd of simultaneous saves ended in
a 500 "database is locked" and the curator's work was lost. Settings now
start them IMMEDIATE (with WAL and a 20 s busy timeout), so writers queue.
This script measures that, beside the old DEFERRED mode in the same run, and
PostgreSQL, which locks rows and has no such mode.

Each figure is one run of `tests/integrity/concurrent_saves_probe.py` in a
process of its own: N curators, each with a draft open in the admin's change
form, press Save at the same moment (a barrier), one thread and one database
connection each, through Django's test client and so through the middleware
and the admin's change view; then the database is asked whether every change
was stored. Latency is from the POST to its answer, on this machine's cores
shared by all threads (the GIL included), so it shows how long the queue gets,
not what one browser waits on an idle server.

Usage:
    .venv/bin/python bench/concurrent_saves.py [--curators 16 64] [--engines sqlite postgresql] [--no-write]

PostgreSQL: a fresh database on the server of DATABASE_URL when that is a
postgres URL (the role needs CREATEDB), otherwise a throwaway cluster
(scripts/pgcluster.py); the database is dropped afterwards. Prints the
figures and writes them to BENCHMARKS.md between the markers
``<!-- concurrent-saves -->`` and ``<!-- /concurrent-saves -->``, adding the
section at the end when the markers are absent.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "integrity" / "concurrent_saves_probe.py"
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- concurrent-saves -->", "<!-- /concurrent-saves -->"
BENCH_DATABASE = "bench_concurrent_saves"


@dataclass
class Figure:
    engine: str
    mode: str
    curators: int
    saved: int
    errors: int
    stored: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    first_error: str


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def _env(database_url: str, cache_dir: Path, **extra: str) -> dict[str, str]:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ENV_FILE": "",
        "DEBUG": "1",
        "SECRET_KEY": "bench-concurrent-saves",
        "DATABASE_URL": database_url,
        "CACHE_DIR": str(cache_dir),
        # One line per failed request would bury the figures.
        "REQUEST_LOG_LEVEL": "CRITICAL",
        "LOG_LEVEL": "CRITICAL",
        **extra,
    }


def _run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _measure(engine: str, mode: str, curators: int, env: dict[str, str]) -> Figure:
    outcome: dict[str, Any] = json.loads(_run([str(PROBE), str(curators)], env).strip().splitlines()[-1])
    latencies = [float(value) for value in outcome["latencies_ms"]]
    saved = int(outcome["statuses"].get("302", 0))
    figure = Figure(
        engine=engine,
        mode=mode,
        curators=curators,
        saved=saved,
        errors=curators - saved,
        stored=int(outcome["stored"]),
        p50_ms=_percentile(latencies, 0.50),
        p95_ms=_percentile(latencies, 0.95),
        max_ms=max(latencies) if latencies else math.nan,
        first_error=(outcome["errors"] or [""])[0],
    )
    print(
        f"{engine:<10} {mode:<22} {curators:>3} curators: {figure.saved:>3} saved, {figure.errors:>3} errors, "
        f"{figure.stored:>3} stored, p50 {figure.p50_ms:7.0f} ms, p95 {figure.p95_ms:7.0f} ms"
        + (f"  ({figure.first_error})" if figure.first_error else ""),
        flush=True,
    )
    return figure


def sqlite_figures(sizes: list[int], work: Path) -> list[Figure]:
    url = f"sqlite:///{work / 'bench.sqlite3'}"
    _run(["manage.py", "migrate", "--noinput", "-v0"], _env(url, work / "cache"))
    figures = []
    for mode, label in (("DEFERRED", "DEFERRED (baseline)"), ("IMMEDIATE", "IMMEDIATE (as set)")):
        for curators in sizes:
            env = _env(url, work / "cache", SQLITE_TRANSACTION_MODE=mode)
            figures.append(_measure("SQLite", label, curators, env))
    return figures


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextlib.contextmanager
def _postgres_database() -> Iterator[str]:
    import psycopg

    given = os.environ.get("DATABASE_URL", "")
    with contextlib.ExitStack() as stack:
        if given.startswith(("postgres://", "postgresql://")):
            server = given
        else:
            sys.path.insert(0, str(ROOT))
            from scripts import pgcluster

            if pgcluster.find_bin_dir() is None:
                raise SystemExit("PostgreSQL: set DATABASE_URL to a server, or install its server binaries.")
            server = stack.enter_context(pgcluster.cluster())
        admin_url = _with_database(server, "postgres")
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}"')
            conn.execute(f"CREATE DATABASE \"{BENCH_DATABASE}\" ENCODING 'UTF8' TEMPLATE template0")
        try:
            yield _with_database(server, BENCH_DATABASE)
        finally:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}" WITH (FORCE)')


def postgres_figures(sizes: list[int], work: Path) -> list[Figure]:
    with _postgres_database() as url:
        env = _env(url, work / "cache")
        _run(["manage.py", "migrate", "--noinput", "-v0"], env)
        return [_measure("PostgreSQL", "row locks", curators, env) for curators in sizes]


def _section(figures: list[Figure]) -> str:
    rows = "\n".join(
        f"| {f.engine} | {f.mode} | {f.curators} | {f.saved} | {f.errors} | {f.stored} of {f.curators} | "
        f"{f.p50_ms:.0f} | {f.p95_ms:.0f} | {f.max_ms:.0f} |"
        for f in figures
    )
    errors = sorted({f.first_error for f in figures if f.first_error})
    seen = "".join(f"\n- `{error}`" for error in errors)
    return f"""{BEGIN}
## Concurrent curators saving through the admin

`bench/concurrent_saves.py`, {dt.date.today().isoformat()}, {os.cpu_count()} cores, Python {platform.python_version()}.
N curators each press Save on a draft in the admin's change form at the same moment (one thread and one
database connection each, through the test client, the middleware and the admin's change view); a save
is a 302, anything else an error; "stored" counts the changes found in the database afterwards. SQLite's
baseline is the old DEFERRED transaction mode, everything else as set (WAL, 20 s busy timeout), measured in
the same run. Latency is from the POST to its answer with every thread sharing this machine's cores, so it
is the length of the queue, not what one curator waits on an idle server.

| engine | transaction mode | curators | saved | errors | stored | p50 ms | p95 ms | max ms |
|---|---|---:|---:|---:|---:|---:|---:|---:|
{rows}
{"" if not seen else chr(10) + "Errors seen:" + seen + chr(10)}{END}"""


def write_report(figures: list[Figure]) -> None:
    section = _section(figures)
    text = REPORT.read_text() if REPORT.exists() else "# Benchmarks\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    REPORT.write_text(text)
    print(f"wrote the concurrent-saves section of {REPORT.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curators", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--engines", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"])
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="concurrent-saves-") as tmp:
        work = Path(tmp)
        if "sqlite" in args.engines:
            figures += sqlite_figures(args.curators, work)
        if "postgresql" in args.engines:
            figures += postgres_figures(args.curators, work)
    if not args.no_write:
        write_report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
