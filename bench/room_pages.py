"""Page weight and time per page of the reading room's pages, in each language, on the shipped collection.

Serves each page in-process (Django's test client: middleware, selectors,
templates) against the database of DATABASE_URL (`make setup` loads the
collection) and reports, per page: the HTML's size, the size with the page's
own stylesheets and scripts (what a first visit downloads from the app, the
vendored Leaflet included on the map), the p50 time of ROUNDS renderings
after one to warm up, and the number of queries. Compare a branch's figures
with the ones already in BENCHMARKS.md by running it on each.

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
from pathlib import Path

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


def measure(rounds: int) -> list[tuple[str, str, int, int, float, int]]:
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    rows = []
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
            rows.append((language, path, len(response.content), len(response.content) + _assets(html),
                         statistics.median(times), len(queries.captured_queries)))
    return rows


def report(rows: list[tuple[str, str, int, int, float, int]], rounds: int) -> str:
    from django.db import connection

    lines = [
        BEGIN,
        "## The reading room's pages: weight and time",
        "",
        f"`bench/room_pages.py` on {connection.vendor}, the shipped collection, in-process (middleware, selectors, "
        f"templates; no network): the HTML's size, with the page's own stylesheets and scripts, and the p50 of "
        f"{rounds} renderings after one to warm up.",
        "",
        "| language | page | HTML KB | with CSS/JS KB | p50 ms | queries |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {language} | `{path}` | {html / 1024:.1f} | {full / 1024:.1f} | {ms:.1f} | {queries} |"
              for language, path, html, full, ms, queries in rows]
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
