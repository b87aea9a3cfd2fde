"""What a pending revision costs a reader: API reads of records with and without one.

A revision waits beside its published record (`archive.models.revisions`); the
API reads only the published rows, so a record with a pending change must cost
a reader exactly what it cost before. This script loads the shipped collection
into a throwaway SQLite file, reads the detail and a list page of every kind
with the response cache off, then proposes a change of each record read (the
way the admin does, through `archive.services.records.record_update`) and reads
them all again: queries and p50 time per read, the records without a pending
revision being the baseline, measured in the same run.

Usage:
    .venv/bin/python bench/revision_reads.py [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- revision-reads -->`` and ``<!-- /revision-reads -->``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- revision-reads -->", "<!-- /revision-reads -->"
KINDS = ("persons", "units", "locations", "events")
ROUNDS = 5


def _setup(work: Path) -> None:
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "DEBUG": "1",
            "SECRET_KEY": "bench-revision-reads",
            "API_CACHE_SECONDS": "0",
            "API_ANON_RATE": "100000/minute",
            "CACHE_DIR": str(work / "cache"),
            "ENV_FILE": "",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_collection", verbosity=0)


def _read(client: object, paths: list[str]) -> tuple[float, float]:
    """Queries per read and p50 milliseconds over `paths`, each read ROUNDS times."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    queries, times = [], []
    for path in paths:
        for _ in range(ROUNDS):
            reset_queries()  # the log is capped: a full one would count nothing
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(path)  # type: ignore[attr-defined]
                times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
            queries.append(len(captured.captured_queries))
    return statistics.mean(queries), statistics.median(times)


def measure() -> list[tuple[str, float, float, float, float]]:
    from django.contrib.auth.models import User
    from django.test import Client

    from archive.models import Event, Location, Person, Unit
    from archive.services import records

    client = Client()
    editor = User.objects.create_user("bench-editor", is_staff=True)
    models = {"persons": Person, "units": Unit, "locations": Location, "events": Event}
    rows = []
    for kind in KINDS:
        model = models[kind]
        chosen = list(model.objects.approved().order_by("pk")[:20])
        details = [f"/api/v1/{kind}/{record.slug}/" for record in chosen]
        lists = [f"/api/v1/{kind}/?page_size=50"]
        before_detail = _read(client, details)
        before_list = _read(client, lists)
        for record in chosen:
            fresh = model.objects.get(pk=record.pk)
            fresh.description = (getattr(fresh, "description", "") or "") + " (revised)"
            records.record_update(record=fresh, by=editor)
        after_detail = _read(client, details)
        after_list = _read(client, lists)
        rows.append((f"{kind} detail", *before_detail, *after_detail))
        rows.append((f"{kind} list (50)", *before_list, *after_list))
    return rows


def section(rows: list[tuple[str, float, float, float, float]]) -> str:
    lines = [
        BEGIN,
        "## API reads of records with a pending revision",
        "",
        "`bench/revision_reads.py`: the shipped collection on SQLite, response cache off; 20 records of each kind "
        f"read {ROUNDS} times each, then again once each has a pending revision (the baseline is the same records "
        "without one, in the same run).",
        "",
        "| read | queries, no revision (baseline) | queries, revision pending | p50 ms, baseline | p50 ms, pending |",
        "|---|---|---|---|---|",
    ]
    for name, q0, t0, q1, t1 in rows:
        lines.append(f"| {name} | {q0:.1f} | {q1:.1f} | {t0:.1f} | {t1:.1f} |")
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
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="revision-reads-") as tmp:
        _setup(Path(tmp))
        rows = measure()
    text = section(rows)
    print(text)
    worse = [name for name, q0, _t0, q1, _t1 in rows if q1 > q0]
    if worse:
        print(f"more queries with a pending revision: {', '.join(worse)}", file=sys.stderr)
    if not args.no_write:
        write_report(text)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
