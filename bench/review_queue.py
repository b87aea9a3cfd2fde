"""The review queue with 1,000 items waiting: time to answer and size of the page, on SQLite and PostgreSQL.

The queue reads a light index of everything waiting and renders one page of
it (`archive.admin.review_queue`). This script fills an empty database with
1,000 items of the kinds a working day leaves: a batch of 400 suggested
mentions, 300 loose citations by three curators in two sources, 200 new people
with a citation each, and 100 pending changes of published people; then a
reviewer reads the queue through the test client (the middleware and the
template included): the first page, a filtered page, a later page and the
batch opened. Figures: p50 and worst of five reads, SQL statements, bytes.

Each engine runs in a process of its own; PostgreSQL on the server of
DATABASE_URL when that is a postgres URL.

Usage:
    .venv/bin/python bench/review_queue.py [--no-write]

Writes its figures to BENCHMARKS.md between ``<!-- review-queue -->`` and
``<!-- /review-queue -->``. Limits: 300 ms and 150 kB a page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bulk_review import engine_env, postgres_database, write_report  # noqa: E402

BEGIN, END = "<!-- review-queue -->", "<!-- /review-queue -->"
LIMIT_MS, LIMIT_KB = 300, 150
ROUNDS = 5
PASSAGE = (
    "十二月十二日傍晚，唐生智在百子亭官邸召集各军师长开会，宣布撤退命令，"
    "部队经挹江门向下关撤退，江边船只不足，秩序大乱。"
)


def _build() -> dict[str, Any]:
    from django.contrib.auth.models import Group, User

    from archive.models import Batch, Citation, Passage, Person, Source, Status
    from archive.services import records
    from archive.text.segment import sha256_text

    curators = []
    for n in range(3):
        made = User.objects.create_user(f"bench-curator-{n}", is_staff=True)
        made.groups.add(Group.objects.get(name="curator"))
        curators.append(made)
    reviewer = User.objects.create_user("bench-reviewer", is_staff=True)
    reviewer.groups.add(Group.objects.get(name="reviewer"))

    def source(slug: str, passages: int) -> list[Passage]:
        lines = [f"第{n}段：{PASSAGE}" for n in range(passages)]
        text = "\n".join(lines)
        made = Source.objects.bulk_create([Source(
            slug=slug, title=f"Bench {slug}", kind="history", language="zh-Hans", text=text,
            sha256=sha256_text(text), length=len(text), file_name=f"{slug}.txt", status=Status.APPROVED)])[0]
        rows, offset = [], 0
        for seq, line in enumerate(lines, start=1):
            rows.append(Passage(source=made, seq=seq, text=line, start=offset, end=offset + len(line),
                                sha256=sha256_text(line)))
            offset += len(line) + 1
        return Passage.objects.bulk_create(rows)

    first, second = source("bench-a", 600), source("bench-b", 400)
    published = Person.objects.bulk_create(
        [Person(slug=f"published-{n}", name=f"唐{n}", status=Status.APPROVED, created_by=curators[0])
         for n in range(100)]
    )
    new_people = Person.objects.bulk_create(
        [Person(slug=f"new-{n}", name=f"新{n}", status=Status.IN_REVIEW, created_by=curators[n % 3],
                modified_by=curators[n % 3]) for n in range(200)]
    )

    def citation(passage: Passage, target: Person, by: User, n: int, status: str) -> Citation:
        start = passage.text.index("唐生智")
        return Citation(slug=f"bench-citation-{n}", passage=passage, quote="唐生智", start=start, end=start + 3,
                        claim="named here", person=target, status=status, created_by=by, modified_by=by)

    rows = [citation(first[n], published[n % 100], curators[0], n, Status.IN_REVIEW) for n in range(400)]
    rows += [citation((first + second)[400 + n], published[n % 100], curators[n % 3], 400 + n, Status.IN_REVIEW)
             for n in range(300)]
    rows += [citation(second[300 + n % 100], new_people[n], curators[n % 3], 700 + n, Status.IN_REVIEW)
             for n in range(200)]
    made = Citation.objects.bulk_create(rows)
    Citation.history.bulk_history_create(made, default_change_reason="submitted for review")
    Person.history.bulk_history_create(new_people, default_change_reason="submitted for review")
    batch = Batch.objects.create(source=first[0].source, created_by=curators[0], size=400)
    batch.citations.add(*made[:400])
    for n, person in enumerate(published):
        live = Person.objects.get(pk=person.pk)
        live.description = f"第{n}次修改：{PASSAGE}"
        records.record_update(record=live, by=curators[n % 3])
    # The 200 citations of new people are their evidence (shown with them), not items of their own.
    Citation.objects.filter(pk__in=[c.pk for c in made[700:]]).update(status=Status.DRAFT)
    return {"reviewer": reviewer, "batch": batch.pk}


def _read(client: Any, path: str) -> dict[str, Any]:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    times, cpu, size, queries = [], [], 0, 0
    client.get(path)  # warm: the first read of a process compiles templates
    for _round in range(ROUNDS):
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            started, used = time.perf_counter(), time.process_time()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
        assert response.status_code == 200, (path, response.status_code)
        size, queries = len(response.content), len(captured.captured_queries)
    return {"p50": statistics.median(times), "max": max(times), "cpu": statistics.median(cpu), "kb": size / 1024,
            "queries": queries}


def worker() -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from archive.admin import review_queue

    call_command("migrate", verbosity=0)
    built = _build()
    client = Client()
    client.force_login(built["reviewer"])
    waiting = len(review_queue.everything(built["reviewer"]))
    paths = {
        "first page": "/admin/curate/review/",
        "citations of one source, newest first": "/admin/curate/review/?kind=citation&source=bench-b&sort=newest",
        "page 4": "/admin/curate/review/?page=4",
        "the batch opened (400 items)": f"/admin/curate/review/?batch={built['batch']}",
        "changes of published records": "/admin/curate/review/?change=revision",
    }
    reads = {name: _read(client, path) for name, path in paths.items()}
    return {"waiting": waiting, "reads": reads, "load": os.getloadavg()[0]}


def _run(url: str, work: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--worker"], env=engine_env(url, work), cwd=ROOT,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"worker failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def section(results: dict[str, dict[str, Any]]) -> str:
    waiting = next(iter(results.values()))["waiting"]
    lines = [
        BEGIN,
        "## The review queue with 1,000 items waiting",
        "",
        f"`bench/review_queue.py`, {dt.date.today().isoformat()}, {os.cpu_count()} cores: {waiting} items waiting "
        "(a batch of 400 mentions, 300 loose citations, 200 new people with their evidence, 100 changes of "
        f"published people), read by a reviewer through the test client; {ROUNDS} reads each after a warm one. "
        f"Limits: {LIMIT_MS} ms and {LIMIT_KB} kB a page. Load average while measured: "
        f"{next(iter(results.values()))['load']:.1f} (the machine is shared: above its {os.cpu_count()} cores, "
        "every figure waits for a core as well; the CPU column is the time the application's own process "
        "computed, which waiting for a core does not lengthen, the database server's work excluded).",
        "",
        "| engine | page | p50 ms | worst ms | CPU p50 ms | kB | SQL statements |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for engine, result in results.items():
        for name, read in result["reads"].items():
            lines.append(
                f"| {engine} | {name} | {read['p50']:.0f} | {read['max']:.0f} | {read['cpu']:.0f} | {read['kb']:.0f} "
                f"| {read['queries']} |"
            )
    lines += ["", END]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker()))
        return 0
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="review-queue-") as tmp:
        work = Path(tmp)
        results["SQLite"] = _run(f"sqlite:///{work / 'bench.sqlite3'}", work)
        server = os.environ.get("DATABASE_URL", "")
        if server.startswith(("postgres://", "postgresql://")):
            with postgres_database(server, "bench_review_queue") as url:
                results["PostgreSQL"] = _run(url, work)
    text = section(results)
    print(text)
    if not args.no_write:
        write_report(text, BEGIN, END)
    over = [
        f"{engine} {name}" for engine, result in results.items() for name, read in result["reads"].items()
        if read["p50"] > LIMIT_MS or read["kb"] > LIMIT_KB
    ]
    if over:
        print(f"over {LIMIT_MS} ms or {LIMIT_KB} kB: {', '.join(over)}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
