"""What the reading room's timeline and map cost at scale, beside the bare query of the same window.

The synthetic archive (`python -m bench.synthetic`) is made in a throwaway
PostgreSQL cluster (or in the database of DATABASE_URL, migrated here), then,
for the default window (11–14 December 1937, fiction left out):

* the room's selectors: `archive.room.timeline.timeline` (events with their
  dated accounts, places and citations) and `archive.room.places.map_data`;
* the pages `/timeline/` and `/map/` as served in-process (selectors and templates);
* baselines in the same run: the bare query of the window's events
  (`values_list` of slug and bounds, no accounts, no places), the floor any
  timeline pays, and the API's event list of the same window (`/api/v1/events/`,
  response cache off, 100 a page).

Usage:
    .venv/bin/python bench/room_pictures.py [--passages 1000000] [--seed 1937] [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- room-pictures -->`` and ``<!-- /room-pictures -->``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- room-pictures -->", "<!-- /room-pictures -->"
ROUNDS = 7
BUDGET_MS = 300.0


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """DATABASE_URL if set, else a throwaway PostgreSQL cluster."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    sys.path.insert(0, str(ROOT))
    from scripts import pgcluster

    with pgcluster.cluster() as made:
        yield made


def _setup(url: str, work: Path, passages: int, seed: int) -> None:
    os.environ.update({
        "DATABASE_URL": url,
        "DEBUG": "1",
        "SECRET_KEY": "bench-room-pictures",
        "API_CACHE_SECONDS": "0",
        "API_ANON_RATE": "1000000/minute",
        "ROOM_RATE": "1000000/minute",
        "CACHE_DIR": str(work / "cache"),
        "ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    })
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from bench.synthetic.command import main as synthetic

    call_command("migrate", verbosity=0)
    synthetic(["--passages", str(passages), "--seed", str(seed), "--quiet"])


def _p50(work: Callable[[], Any]) -> tuple[float, int]:
    """Median milliseconds over ROUNDS runs (after one to warm up) and the queries of one run."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    work()
    times = []
    queries = 0
    for _ in range(ROUNDS):
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            work()
            times.append((time.perf_counter() - started) * 1000)
        queries = len(captured.captured_queries)
    return statistics.median(times), queries


def _ok(client: Any, path: str) -> Callable[[], Any]:
    def get() -> Any:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return response

    return get


def measure() -> tuple[list[tuple[str, float, int]], dict[str, int]]:
    from django.test import Client
    from django.utils import timezone

    from archive import mementos
    from archive.models import Event, Passage, Status
    from archive.models.registry import FictionMode
    from archive.room import places, timeline
    from archive.room.reading import DEFAULT_FROM, DEFAULT_TO, Window
    from archive.room.records import Now
    from archive.room.records_then import Then

    window = Window(DEFAULT_FROM, DEFAULT_TO)
    mode = FictionMode.EXCLUDE
    client = Client()
    in_window = Event.objects.filter(status=Status.APPROVED, fictional=False, earliest__lt=window.end,
                                     latest__gte=window.start)
    line = timeline.timeline(window, mode, Now())
    sizes = {
        "passages": Passage.objects.count(),
        "events": Event.objects.count(),
        "events in the window": in_window.count(),
        "events drawn": len(line.rows),
    }
    after, before = DEFAULT_FROM.date().isoformat(), DEFAULT_TO.date().isoformat()
    rows = [
        ("baseline: bare query of the window's events",
         *_p50(lambda: list(in_window.order_by("earliest").values_list("slug", "earliest", "latest")
                            [: timeline.MOST_EVENTS + 1]))),
        ("baseline: API event list of the window (100 a page)",
         *_p50(_ok(client, f"/api/v1/events/?after={after}&before={before}&page_size=100"))),
        ("timeline selector (`archive.room.timeline.timeline`)", *_p50(lambda: timeline.timeline(window, mode, Now()))),
        ("map selector (`archive.room.places.map_data`, with the window's events)",
         *_p50(lambda: places.map_data(mode, [row.event for row in timeline.timeline(window, mode, Now()).rows],
                                       Now()))),
        # The same picture as published now, read from the history (what `?as_of=` reads); not under the budget.
        ("timeline as of now, read from the history (`archive.room.records_then.Then`)",
         *_p50(lambda: timeline.timeline(window, mode, Then(mementos.Listing(timezone.now(), None))))),
        ("page `/timeline/`", *_p50(_ok(client, "/timeline/"))),
        ("page `/map/`", *_p50(_ok(client, "/map/"))),
        ("page `/timeline/?as_of=` today", *_p50(_ok(client, f"/timeline/?as_of={timezone.now().date().isoformat()}"))),
    ]
    return rows, sizes


def section(rows: list[tuple[str, float, int]], sizes: dict[str, int], engine: str) -> str:
    scale = ", ".join(f"{value:,} {name}" for name, value in sizes.items())
    lines = [
        BEGIN,
        "## The reading room's timeline and map",
        "",
        f"`bench/room_pictures.py` on {engine}: the synthetic archive ({scale}); the default window "
        f"(11–14 December 1937, fiction left out), p50 of {ROUNDS} runs after one to warm up. The budget of the "
        f"selectors is {BUDGET_MS:.0f} ms; the baselines are measured in the same run.",
        "",
        "| what | p50 ms | queries |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {ms:.1f} | {queries} |" for name, ms, queries in rows]
    lines += ["", END]
    return "\n".join(lines)


def write_report(text: str) -> None:
    current = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        current = head + text + rest.split(END, 1)[1]
    else:
        current = current.rstrip() + "\n\n" + text + "\n"
    REPORT.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1937)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="room-pictures-") as tmp, _database() as url:
        _setup(url, Path(tmp), args.passages, args.seed)
        from django.db import connection

        engine = connection.vendor
        rows, sizes = measure()
    text = section(rows, sizes, "PostgreSQL" if engine == "postgresql" else engine)
    print(text)
    if not args.no_write:
        write_report(text)
    slow = [name for name, ms, _ in rows if "selector" in name and ms > BUDGET_MS]
    if slow:
        print(f"over {BUDGET_MS:.0f} ms: {', '.join(slow)}", file=sys.stderr)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
