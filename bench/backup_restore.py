"""What backing up, restoring and releasing cost: `export_collection`, `restore` and `release`, timed.

Loads the shipped collection into a throwaway SQLite file (or, with
``--database-url postgres://…``, into that PostgreSQL database, dropped and
created again), then times
`export_collection` into a new directory (the collection and `backup/`,
every row), `restore` of that export into a second, empty and migrated
SQLite file (every row inserted in one transaction, the keys checked, the
search index rebuilt), and `release` on the first (the snapshot of
everything published, its files and checksums). With ``--passages N`` it then adds a synthetic
archive of about N passages (`bench.synthetic`, the generator of
bench/stages/generate.py) to the same database and times the three again.
Each step is timed once (a second export, restore or release is not the
same work); the row count of the export and its size on disk are printed.

On PostgreSQL the baseline is measured in the same run, on the same
database: `pg_dump --format=custom` of it and `pg_restore` of that dump into
another empty database (schema, rows, indexes and constraints). The restored
databases are named after the first (``<name>_restored_1``,
``<name>_pg_restore``…) and dropped at the end. The section is rewritten
after every step, so a run stopped early keeps the figures it has.

Usage:
    .venv/bin/python bench/backup_restore.py [--passages N] [--database-url URL] [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- backup-restore -->`` and ``<!-- /backup-restore -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- backup-restore -->", "<!-- /backup-restore -->"
BASE_URL = "http://127.0.0.1"
RESTORED = ("restored-1", "restored-2")


def _setup(work: Path, url: str | None) -> None:
    os.environ.update(
        {
            "DATABASE_URL": url or f"sqlite:///{work / 'bench.sqlite3'}",
            "DEBUG": "1",
            "SECRET_KEY": "bench-backup-restore",
            "API_CACHE_SECONDS": "0",
            "CACHE_DIR": str(work / "cache"),
            "ALLOWED_HOSTS": "127.0.0.1",
            "ENV_FILE": "",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    # Each restore goes into an empty database of its own, as after a disaster.
    for alias in RESTORED:
        name = f"{_pg_name()}_{alias.replace('-', '_')}" if url else str(work / f"{alias}.sqlite3")
        settings.DATABASES[alias] = {**settings.DATABASES["default"], "NAME": name}
    if url:
        restored = [settings.DATABASES[alias]["NAME"] for alias in RESTORED]
        for name in [_pg_name(), *restored, _pg_name() + "_pg_restore"]:
            _recreate(name)
    call_command("migrate", verbosity=0)
    call_command("load_collection", verbosity=0)


def _pg_name() -> str:
    from urllib.parse import urlparse

    return urlparse(os.environ["DATABASE_URL"]).path.lstrip("/")


def _admin_sql(statement: str) -> None:
    """One statement on the server's `postgres` database (CREATE/DROP DATABASE cannot run in a transaction)."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    server = url[: url.rindex("/")] + "/postgres"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(statement)  # type: ignore[arg-type]


def _recreate(name: str, drop_only: bool = False) -> None:
    _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if not drop_only:
        _admin_sql(f'CREATE DATABASE "{name}"')


def _pg_baseline(work: Path) -> tuple[float, float, float]:
    """Seconds of pg_dump (custom format) of the archive and of pg_restore of it into an empty database.

    And the MiB of the dump.
    """
    import subprocess

    from django.db import connections

    connections.close_all()
    url = os.environ["DATABASE_URL"]
    dump = work / "archive.pgdump"
    target = _pg_name() + "_pg_restore"
    _recreate(target)
    dumped = _timed(lambda: subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", url], check=True))
    restored = _timed(
        lambda: subprocess.run(
            ["pg_restore", "--no-owner", f"--dbname={url[: url.rindex('/')]}/{target}", str(dump)], check=True
        )
    )
    return dumped, restored, dump.stat().st_size / 2**20


def _timed(step: object) -> float:
    started = time.perf_counter()
    step()  # type: ignore[operator]
    return time.perf_counter() - started


def _size(directory: Path) -> float:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file()) / 2**20


def measure(label: str, work: Path, into: str, results: list[dict[str, object]], report: Callable[[], None]
            ) -> None:
    """Export, restore (into the database ``into``) and release the archive as it stands.

    Seconds of each, rows and MiB of the export, added to a row of ``results``
    step by step (``report`` is called after each); on PostgreSQL also
    pg_dump and pg_restore of the same database.
    """
    from django.core.management import call_command
    from django.db import connection

    from archive.models import Passage, Release

    postgres = connection.vendor == "postgresql"
    row: dict[str, object] = {"archive": label, "passages": Passage.objects.count()}
    results.append(row)
    target = work / f"export-{label.replace(' ', '-')}"
    row["export"] = _timed(lambda: call_command("export_collection", str(target), verbosity=0))
    manifest = json.loads((target / "backup" / "manifest.json").read_text(encoding="utf-8"))
    files = manifest["files"] if isinstance(manifest, dict) else manifest
    row["rows"] = sum(int(item.get("rows", 0)) for item in files if isinstance(item, dict))
    row["mib"] = _size(target)
    # The export holds what it writes in memory: its peak, the process's so far (the generator's is flat and small).
    row["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report()
    call_command("migrate", database=into, verbosity=0)
    row["restore"] = _timed(lambda: call_command("restore", str(target), "--database", into, verbosity=0))
    report()
    if postgres:
        row["pg_dump"], row["pg_restore"], row["dump_mib"] = _pg_baseline(work)
        report()
    row["release"] = _timed(lambda: call_command("release", "--by", "bench", "--base-url", BASE_URL, verbosity=0))
    row["release_number"] = Release.objects.order_by("-number").values_list("number", flat=True).first()
    report()


def _cell(row: dict[str, object], key: str, form: str, unit: str = "") -> str:
    value = row.get(key)
    return "—" if value is None else format(value, form) + unit


def section(results: list[dict[str, object]], engine: str) -> str:
    postgres = engine == "PostgreSQL"
    lines = [
        BEGIN,
        "## Backing up, restoring and releasing",
        "",
        f"`bench/backup_restore.py`: {engine}, one run each: `export_collection` (collection and `backup/`), "
        "`restore` of that export into an empty, migrated database, then `release` (all its files). The larger "
        "archive adds synthetic sources, passages and records (`bench.synthetic`) to the shipped collection."
        + (
            " Baseline, in the same run on the same database: `pg_dump --format=custom` and `pg_restore` of that "
            "dump into an empty database. A dash: the step had not finished when the run stopped."
            if postgres
            else ""
        ),
        "",
    ]
    if postgres:
        lines += [
            "| archive | passages | rows exported | export size | export | peak memory of the export | restore "
            "| release | pg_dump (baseline) | pg_restore (baseline) | dump size |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
    else:
        lines += [
            "| archive | passages | rows exported | export size | export | restore | release |",
            "|---|---|---|---|---|---|---|",
        ]
    for r in results:
        line = (
            f"| {r['archive']} | {_cell(r, 'passages', ',')} | {_cell(r, 'rows', ',')} "
            f"| {_cell(r, 'mib', '.1f', ' MiB')} | {_cell(r, 'export', '.2f', ' s')} "
            + (f"| {_cell(r, 'rss_mib', ',.0f', ' MiB')} " if postgres else "")
            + f"| {_cell(r, 'restore', '.2f', ' s')} | {_cell(r, 'release', '.2f', ' s')} |"
        )
        if postgres:
            line += (
                f" {_cell(r, 'pg_dump', '.2f', ' s')} | {_cell(r, 'pg_restore', '.2f', ' s')} | "
                f"{_cell(r, 'dump_mib', '.1f', ' MiB')} |"
            )
        lines.append(line)
    lines += ["", END]
    return "\n".join(lines)


def write_report(text: str) -> None:
    current = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        current = head + text + tail
    else:
        current = current.rstrip() + "\n\n" + text + "\n"
    REPORT.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=0,
                        help="also time an archive grown by about this many synthetic passages")
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    parser.add_argument(
        "--database-url",
        help="a postgres:// URL: its database is dropped and created again, and the baseline is pg_dump/pg_restore",
    )
    args = parser.parse_args(argv)
    if args.database_url and not args.database_url.startswith(("postgres://", "postgresql://")):
        parser.error("--database-url must be a postgres:// URL")
    engine = "PostgreSQL" if args.database_url else "SQLite"
    results: list[dict[str, object]] = []

    def report() -> None:
        text = section(results, engine)
        print(text, flush=True)
        if not args.no_write:
            write_report(text)

    with tempfile.TemporaryDirectory(prefix="backup-restore-") as tmp:
        work = Path(tmp)
        _setup(work, args.database_url)
        try:
            measure("shipped collection", work, RESTORED[0], results, report)
            if args.passages:
                from bench import synthetic

                started = time.perf_counter()
                synthetic.generate(passages=args.passages, seed=1, corpus=synthetic.load_corpus())
                print(f"generated {args.passages:,} passages in {time.perf_counter() - started:.0f} s", flush=True)
                measure(f"shipped + {args.passages:,} synthetic passages", work, RESTORED[1], results, report)
        finally:
            if args.database_url:
                from django.conf import settings
                from django.db import connections

                connections.close_all()
                for alias in RESTORED:
                    _recreate(settings.DATABASES[alias]["NAME"], drop_only=True)
                _recreate(_pg_name() + "_pg_restore", drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
