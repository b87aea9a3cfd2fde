"""Citing, submitting, approving and rejecting 300 citations: one by one, and in bulk, on SQLite and PostgreSQL.

The one-record services (`archive.services.review`) are what the admin's
actions and the review queue called for every selected record; the bulk
services (`archive.services.bulk`) decide them all in one transaction. Both
run here on the same kind of data, in the same process: 300 draft citations
of approved people in an approved source, made by a curator, submitted by
her and decided by a reviewer, each decision carrying the pin the queue
would have shown (computed before the clock starts, as the queue page does).
The figures are wall time and SQL statements of the whole call.

Each engine runs in a process of its own (`--worker URL`). PostgreSQL: a
fresh database on the server of DATABASE_URL when that is a postgres URL
(the role needs CREATEDB); otherwise only SQLite is measured.

Usage:
    .venv/bin/python bench/bulk_review.py [--items 300] [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- bulk-review -->`` and ``<!-- /bulk-review -->``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- bulk-review -->", "<!-- /bulk-review -->"
BENCH_DATABASE = "bench_bulk_review"
LIMIT_SECONDS = 3.0


def engine_env(url: str, work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "1",
        "SECRET_KEY": "bench-bulk-review",
        "CACHE_DIR": str(work / "cache"),
        "ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }


def _source_with_lines(slug: str, lines: list[str], curator: Any) -> tuple[Any, list[Any]]:
    """An approved source whose passages are ``lines``, written in bulk (the bench's own set-up)."""
    from archive.models import Passage, Source, Status
    from archive.text.segment import sha256_text

    text = "\n".join(lines)
    source = Source.objects.bulk_create(
        [Source(slug=slug, title=slug, kind="history", language="zh-Hans", text=text, sha256=sha256_text(text),
                length=len(text), file_name=f"{slug}.txt", status=Status.APPROVED, created_by=curator)]
    )[0]
    offset, passages = 0, []
    for seq, line in enumerate(lines, start=1):
        passages.append(Passage(source=source, seq=seq, text=line, start=offset, end=offset + len(line),
                                sha256=sha256_text(line)))
        offset += len(line) + 1
    return source, Passage.objects.bulk_create(passages)


def _build(items: int, accounts: str = "bench") -> dict[str, Any]:
    """Four sets of `items` draft citations, the people they cite, and the two accounts (`accounts`-curator, …)."""
    from django.contrib.auth.models import Group, User

    from archive.models import Citation, Person, Status

    curator = User.objects.create_user(f"{accounts}-curator", is_staff=True)
    curator.groups.add(Group.objects.get(name="curator"))
    reviewer = User.objects.create_user(f"{accounts}-reviewer", is_staff=True)
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    lines = [f"第{n}段：唐生智在挹江门下令撤退，第{n}次。" for n in range(4 * items)]
    _source, passages = _source_with_lines("bench-source", lines, curator)
    people = Person.objects.bulk_create(
        [Person(slug=f"bench-person-{n}", name=f"唐{n}", status=Status.APPROVED, created_by=curator)
         for n in range(20)]
    )
    citations = []
    for n, passage in enumerate(passages):
        start = passage.text.index("唐生智")
        citations.append(Citation(slug=f"bench-citation-{n}", passage=passage, quote="唐生智", start=start,
                                  end=start + 3, claim="named here", person=people[n % len(people)],
                                  status=Status.DRAFT, created_by=curator, modified_by=curator))
    citations = Citation.objects.bulk_create(citations)
    Citation.history.bulk_history_create(citations, default_user=curator, default_change_reason="created")
    pks = [c.pk for c in citations]
    sets = [pks[n * items : (n + 1) * items] for n in range(4)]
    return {"curator": curator, "reviewer": reviewer, "sets": sets}


def _timed(call: Any) -> tuple[float, int]:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    reset_queries()  # the log is capped: a full one would count nothing
    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        call()
        seconds = time.perf_counter() - started
    return seconds, len(captured.captured_queries)


def _pins(pks: list[int]) -> dict[int, str]:
    from archive.models import Citation
    from archive.services import decisions

    return {c.pk: decisions.record_pin(c, []) for c in Citation.objects.filter(pk__in=pks)}


def worker(items: int) -> dict[str, Any]:
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.management import call_command

    from archive.models import Citation, Status
    from archive.services import bulk, review

    call_command("migrate", verbosity=0)
    built = _build(items)
    curator, reviewer = built["curator"], built["reviewer"]
    one_a, bulk_b, one_c, bulk_d = built["sets"]

    def fresh(pks: list[int]) -> list[Citation]:
        return list(Citation.objects.filter(pk__in=pks).order_by("pk"))

    def keys(pks: list[int]) -> list[tuple[type[Citation], int]]:
        return [(Citation, pk) for pk in pks]

    figures: dict[str, Any] = {}

    def one_submit() -> None:
        for citation in fresh(one_a):
            review.submit(citation, by=curator)

    figures["submit, one by one"] = _timed(one_submit)
    figures["submit, bulk"] = _timed(lambda: bulk.submit_many(records=keys(bulk_b), by=curator))

    pins_a, pins_b = _pins(one_a), _pins(bulk_b)

    def one_approve() -> None:
        for citation in fresh(one_a):
            review.approve(citation, by=reviewer, shown=pins_a[citation.pk])

    figures["approve, one by one"] = _timed(one_approve)
    figures["approve, bulk"] = _timed(
        lambda: bulk.approve_many(shown={(Citation, pk): pin for pk, pin in pins_b.items()}, by=reviewer)
    )

    bulk.submit_many(records=keys(one_c + bulk_d), by=curator)
    pins_c, pins_d = _pins(one_c), _pins(bulk_d)

    def one_reject() -> None:
        for citation in fresh(one_c):
            review.reject(citation, by=reviewer, note="not in the source", shown=pins_c[citation.pk])

    figures["reject, one by one"] = _timed(one_reject)
    figures["reject, bulk"] = _timed(
        lambda: bulk.reject_many(
            shown={(Citation, pk): pin for pk, pin in pins_d.items()}, by=reviewer, note="not in the source"
        )
    )
    figures.update(_mention_batches(items, curator))
    approved = Citation.objects.filter(pk__in=one_a + bulk_b, status=Status.APPROVED).count()
    rejected = Citation.objects.filter(pk__in=one_c + bulk_d, status=Status.REJECTED).count()
    history = Citation.history.filter(id__in=bulk_b, history_change_reason="approved").count()
    assert approved == 2 * items and rejected == 2 * items and history == items, (approved, rejected, history)
    return {"items": items, "figures": figures}


def _mention_batches(items: int, curator: Any) -> dict[str, tuple[float, int]]:
    """Citing every suggested mention of a source as drafts (`items` of them): one by one, and as one write."""
    from django.db import transaction

    from archive import fiction
    from archive.models import Citation, Location, Source, Status
    from archive.services import batches, mentions

    Location.objects.bulk_create(
        [Location(slug="bench-gate", name="挹江门", kind="gate", status=Status.APPROVED, created_by=curator)]
    )

    def source(slug: str) -> Source:
        return _source_with_lines(slug, [f"第{n}段：部队经挹江门撤退，第{n}次。" for n in range(items)], curator)[0]

    one, many = source("bench-mentions-one"), source("bench-mentions-bulk")

    def one_by_one() -> None:  # what the batch did before `cite_many`: `citation_create` a draft
        preview = batches.preview_mentions(source=one)
        with transaction.atomic(), fiction.deferred():
            made = [mentions._cite(s, p, by=curator, reason=mentions.BATCH_REASON) for p, s in preview.chosen]
            batches.record_batch(source=one, citations=made, by=curator)

    shown = batches.preview_mentions(source=many).digest  # read on the preview page, before the confirmation

    def in_bulk() -> None:
        mentions.cite_all_mentions(source=many, by=curator, shown=shown)

    figures = {"mention drafts, one by one": _timed(one_by_one), "mention drafts, bulk": _timed(in_bulk)}
    for made in (one, many):
        drafts = Citation.objects.filter(passage__source=made, status=Status.DRAFT).count()
        assert drafts == items, (made.slug, drafts)
    return figures


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@contextlib.contextmanager
def postgres_database(server: str, name: str = BENCH_DATABASE) -> Iterator[str]:
    """A fresh database `name` on the PostgreSQL server of `server`, dropped afterwards."""
    import psycopg

    admin_url = _with_database(server, "postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0")
    try:
        yield _with_database(server, name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(url: str, work: Path, items: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", "--items", str(items)],
        env=engine_env(url, work), cwd=ROOT, capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker on {url.split(':')[0]} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def section(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        BEGIN,
        "## Submitting, approving and rejecting in bulk",
        "",
        f"`bench/bulk_review.py`, {dt.date.today().isoformat()}, {os.cpu_count()} cores: "
        f"{next(iter(results.values()))['items']} draft citations per row, each call as a whole "
        "(the one-by-one rows are the one-record services the admin and the queue called per record; "
        "the bulk rows are `archive.services.bulk`, one transaction; the mention drafts are a source's "
        "suggested mentions cited as drafts, by `citation_create` each, or by `archive.services.mentions.cite_many` "
        "in one write, each as the confirmation runs it: the suggestions read again once). Limit: "
        f"{LIMIT_SECONDS:.0f} s for a bulk call.",
        "",
        "| engine | call | seconds | SQL statements |",
        "|---|---|---:|---:|",
    ]
    for engine, result in results.items():
        for name, (seconds, queries) in result["figures"].items():
            lines.append(f"| {engine} | {name} | {seconds:.2f} | {queries} |")
    lines += ["", END]
    return "\n".join(lines)


def write_report(text: str, begin: str = BEGIN, end: str = END) -> None:
    """Put `text` between the markers `begin` and `end` of BENCHMARKS.md (at its end if they are absent)."""
    current = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        current = head + text + rest.split(end, 1)[1]
    else:
        current = current.rstrip() + "\n\n" + text + "\n"
    REPORT.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.items)))
        return 0
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bulk-review-") as tmp:
        work = Path(tmp)
        results["SQLite"] = _run(f"sqlite:///{work / 'bench.sqlite3'}", work, args.items)
        server = os.environ.get("DATABASE_URL", "")
        if server.startswith(("postgres://", "postgresql://")):
            with postgres_database(server) as url:
                results["PostgreSQL"] = _run(url, work, args.items)
    text = section(results)
    print(text)
    if not args.no_write:
        write_report(text)
    slow = [
        f"{engine} {name}" for engine, result in results.items()
        for name, (seconds, _queries) in result["figures"].items()
        if "bulk" in name and seconds > LIMIT_SECONDS
    ]
    if slow:
        print(f"over {LIMIT_SECONDS} s: {', '.join(slow)}", file=sys.stderr)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
