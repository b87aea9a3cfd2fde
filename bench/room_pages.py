"""Page weight and time per page of the reading room's pages, in each language, on the shipped collection.

Serves each page in-process (Django's test client: middleware, selectors,
templates) against the database of DATABASE_URL (`make setup` loads the
collection) and reports, per page: the HTML's size, the size with the page's
own stylesheets and scripts (what a first visit downloads from the app, the
vendored Leaflet included on the map), the p50 time of ROUNDS renderings
after one to warm up, and the number of queries. Beside each page's time
stands its baseline, timed the same way in the same run: the fastest honest
read of the page's data. On PostgreSQL a record's page (and a source's, and
the first page of a source's edition) is set beside the same data read as
documents by the hand-written SQL of `bench/baseline/` (the API's
baseline); the home page's lists beside their rows read with `.values()`; the search
page beside the archive's search alone; the pictures and the order of
battle beside their rows read with plain `.values()` queries. The ratio is
the page's p50 over the baseline's: what building and writing the page costs
over reading what it shows.

Usage:
    .venv/bin/python bench/room_pages.py [--rounds 5] [--no-write]

Writes BENCHMARKS.md between ``<!-- room-pages -->`` and ``<!-- /room-pages -->``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- room-pages -->", "<!-- /room-pages -->"
PAGES = ("/", "/search/?q=唐司令", "/search/?q=南京", "/people/tang-shengzhi/", "/events/meeting-1700-12-december/",
         "/places/nanjing/", "/units/74th-army/", "/sources/history-nanjing-retreat/", "/order-of-battle/",
         "/timeline/", "/map/")
LANGUAGES = ("en", "zh-hans", "zh-hant")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["ROOM_RATE"] = "1000000/minute"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _assets(html: str) -> int:
    """Bytes of the page's own stylesheets and scripts, read from the app's static files."""
    from django.contrib.staticfiles import finders

    total = 0
    for path in set(re.findall(r'(?:href|src)="/static/([^"]+\.(?:css|js))"', html)):
        found = finders.find(path)
        if found:
            total += Path(str(found)).stat().st_size
    return total


def _p50(run: Any, rounds: int) -> float:
    run()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _sql(statement: str, **params: Any) -> Callable[[], Any]:
    from django.db import connection

    def run() -> Any:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            return cursor.fetchone()

    return run


def _plain_reads(*reads: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: [list(read()) for read in reads]


def baselines() -> dict[str, tuple[str, Callable[[], Any]]]:
    """For each page, what its baseline is called and how to run it once."""
    from django.db import connection

    from archive import search
    from archive.models import Event, Location, Person, Post, Source, Unit
    from archive.models.curation import Status
    from archive.room.links import EDITION_PAGE
    from archive.room.views import LIST_PAGE

    approved = {"status": Status.APPROVED, "fictional": False}
    found: dict[str, tuple[str, Callable[[], Any]]] = {
        "/search/?q=唐司令": ("archive search alone", lambda: search.find("唐司令", fiction="exclude")),
        "/search/?q=南京": ("archive search alone", lambda: search.find("南京", fiction="exclude")),
        # The home page lists names: the same rows, the first hundred of each kind.
        "/": ("plain .values()", _plain_reads(*(
            (lambda model=model, order=order: model.objects.filter(**approved).values("slug", order, "fictional")
             .order_by(order, "slug")[:LIST_PAGE])
            for model, order in ((Person, "name"), (Unit, "name"), (Location, "name"), (Event, "earliest"))),
            lambda: Source.objects.filter(status=Status.APPROVED, is_fiction=False).values("slug", "title", "kind"))),
        "/order-of-battle/": ("plain .values()", _plain_reads(
            lambda: Unit.objects.filter(**approved).values("slug", "name", "echelon", "parent_id").order_by("name"),
            lambda: Post.objects.filter(**approved).values("unit_id", "person__slug", "person__name", "title",
                                                           "date_from", "date_to"))),
        "/timeline/": ("plain .values()", _plain_reads(
            lambda: Event.objects.filter(**approved, earliest__isnull=False)
            .values("slug", "title", "kind", "earliest", "latest").order_by("earliest", "latest"))),
        "/map/": ("plain .values()", _plain_reads(
            lambda: Location.objects.filter(**approved).values("slug", "name", "kind", "latitude", "longitude"))),
    }
    if connection.vendor != "postgresql":
        return found  # the hand-written SQL of bench/baseline/ is PostgreSQL's
    from bench.baseline import records, texts

    details = {**records.DETAILS, **texts.DETAILS}
    for path, kind, slug in (("/people/tang-shengzhi/", "persons", "tang-shengzhi"),
                             ("/events/meeting-1700-12-december/", "events", "meeting-1700-12-december"),
                             ("/places/nanjing/", "locations", "nanjing"), ("/units/74th-army/", "units", "74th-army")):
        found[path] = ("SQL document", _sql(details[kind], slug=slug, base=""))
    # The edition's first page: the source and its first passages, each with the citations resting on it.
    source, passages = (_sql(details["sources"], slug="history-nanjing-retreat", base=""),
                        _sql(texts.PAGES["passages of a source"], slug="history-nanjing-retreat", limit=EDITION_PAGE,
                             offset=0, base="", next="", previous=""))
    found["/sources/history-nanjing-retreat/"] = ("SQL documents", lambda: (source(), passages()))
    return found


Row = tuple[str, str, int, int, float, int, str, float | None]


def measure(rounds: int) -> list[Row]:
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    rows = []
    against = baselines()
    # A baseline reads no words of any language: it is timed once, in the same run, before the pages.
    base_times = {path: (name, _p50(run, rounds)) for path, (name, run) in against.items()}
    for language in LANGUAGES:
        client = Client()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        for path in PAGES:
            response = client.get(path)
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}: load the collection first (make setup)")
            html = response.content.decode()
            times = []
            for _ in range(rounds):
                with CaptureQueriesContext(connection) as queries:
                    start = time.perf_counter()
                    client.get(path)
                    times.append((time.perf_counter() - start) * 1000)
            name, base_ms = base_times.get(path, ("none", None))
            rows.append((language, path, len(response.content), len(response.content) + _assets(html),
                         statistics.median(times), len(queries.captured_queries), name, base_ms))
    return rows


def report(rows: list[Row], rounds: int) -> str:
    from django.db import connection

    lines = [
        BEGIN,
        "## The reading room's pages: weight and time",
        "",
        f"`bench/room_pages.py` on {connection.vendor}, the shipped collection, in-process (middleware, selectors, "
        f"templates; no network): the HTML's size, with the page's own stylesheets and scripts, and the p50 of "
        f"{rounds} renderings after one to warm up; beside it, in the same run, the p50 of its baseline (the "
        f"fastest honest read of the page's data: the hand-written SQL document of `bench/baseline/` on "
        f"PostgreSQL, the archive's search alone, plain `.values()` rows) and the page's time over it.",
        "",
        "| language | page | HTML KB | with CSS/JS KB | p50 ms | queries | baseline | baseline p50 ms "
        "| page ÷ baseline |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for language, path, html, full, ms, queries, name, base_ms in rows:
        base = f"{base_ms:.1f} | {ms / base_ms:.1f}×" if base_ms else "— | —"
        lines.append(f"| {language} | `{path}` | {html / 1024:.1f} | {full / 1024:.1f} | {ms:.1f} | {queries} "
                     f"| {name} | {base} |")
    return "\n".join([*lines, END])


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
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    _setup()
    text = report(measure(args.rounds), args.rounds)
    print(text)
    if not args.no_write:
        write_report(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
