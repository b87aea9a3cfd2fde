"""Readers while curators write: the share of answers not built again, and p95, beside a read-only run.

One server as served (response cache on). The same readers' load (the events
page and the detail of a score of persons) runs twice: with nobody writing,
then while a curator changes one event a second through the code path of the
admin (`records.record_update`, a revision, approved by a reviewer with
`revisions.approve_revision`). A write invalidates the documents that show
what it changed (`archive.freshness`), so readers of other records keep their
cached answers; before, any commit emptied the cache for everyone. A person's
detail, and the events page as first shown, are answered from their stored
documents before the view while those are current
(`archive.api.stored_answers`); such an answer counts as not built, as a
cache hit does.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure, Run, say
from bench.stages.api import gunicorn
from bench.stages.api_documents import person_slugs

WRITES_PER_SECOND = 1.0
# The readers' load is repeated until each phase has lasted this long, so that the curator makes a score of writes.
PHASE_SECONDS = 20.0


def _bench_users() -> tuple[Any, Any]:
    from django.contrib.auth.models import Group, Permission, User

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)
    accounts = []
    for name, role in (("bench-curator", "curator"), ("bench-reviewer", "reviewer")):
        account, _ = User.objects.get_or_create(username=name, defaults={"is_staff": True})
        account.groups.add(Group.objects.get(name=role))
        accounts.append(account)
    return accounts[0], accounts[1]


def _edit_one_event(slugs: list[str], rng: random.Random, curator: Any, reviewer: Any) -> None:
    from archive.models import Event
    from archive.services import decisions, records, revisions

    event = Event.objects.get(slug=rng.choice(slugs))
    event.description = f"{event.description.split(' · ')[0]} · {rng.randrange(10**6)}"
    revision = records.record_update(record=event, by=curator, reason="bench: a curator at work")
    if revision is not None:
        revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))


class Curator(threading.Thread):
    """Changes a random approved event once a second until stopped; counts the writes."""

    def __init__(self, slugs: list[str]) -> None:
        super().__init__(daemon=True)
        self.slugs = slugs
        self.stop = threading.Event()
        self.writes = 0
        self.errors: list[str] = []

    def run(self) -> None:
        from django.db import connection

        curator, reviewer = _bench_users()
        rng = random.Random(1)
        try:
            while not self.stop.is_set():
                started = time.perf_counter()
                try:
                    _edit_one_event(self.slugs, rng, curator, reviewer)
                    self.writes += 1
                except Exception as exc:  # a failed write is reported, the readers go on
                    self.errors.append(repr(exc))
                self.stop.wait(max(0.0, 1 / WRITES_PER_SECOND - (time.perf_counter() - started)))
        finally:
            connection.close()


def _for_a_while(port: int, paths: list[str], concurrency: int) -> Any:
    """The readers' requests, again and again, until `PHASE_SECONDS` have passed."""
    from bench import load

    result = load.LoadResult()
    started = time.perf_counter()
    while time.perf_counter() - started < PHASE_SECONDS:
        result.extend(load.drive(port, paths, concurrency, PHASE_SECONDS))
    return result


def mixed_figures(run: Run, url: str, log_dir: Path) -> None:
    from archive.models import Event
    from bench import load

    persons = person_slugs(20)
    events = list(Event.objects.approved().order_by("?").values_list("slug", flat=True)[:2000])
    if not persons or not events:
        raise RuntimeError("no approved person or event to read and write")
    requests = run.args.requests
    paths = [
        "/api/v1/events/?page_size=50" if i % 2 == 0 else f"/api/v1/persons/{persons[(i // 2) % len(persons)]}/"
        for i in range(requests)
    ]
    workers = run.args.workers
    with gunicorn("config.wsgi:application", url, workers, log_dir / "gunicorn-api-mixed.log") as port:
        warm = list(dict.fromkeys(paths)) * (2 * workers)
        load.drive(port, warm, run.args.concurrency, run.args.api_seconds / 4)
        quiet = _for_a_while(port, paths, run.args.concurrency)
        curator = Curator(events)
        curator.start()
        try:
            busy = _for_a_while(port, paths, run.args.concurrency)
        finally:
            curator.stop.set()
            curator.join()
    notes = (
        f"{len(busy.latencies)} requests with writes, {len(quiet.latencies)} without (half the events page, "
        f"half a score of person details), concurrency "
        f"{run.args.concurrency}, gunicorn {workers} sync workers; {curator.writes} event changes published in "
        f"{busy.wall:.0f} s through records.record_update and revisions.approve_revision"
    )
    for name, result in (("with writes", busy), ("without", quiet)):
        if result.failures:
            notes += f"; {name}: {len(result.failures)} requests failed, e.g. {result.failures[0]}"
    if curator.errors:
        notes += f"; {len(curator.errors)} writes failed, e.g. {curator.errors[0]}"
    say(f"  mixed: {len(busy.latencies)} and {len(quiet.latencies)} answers, {len(busy.failures)} failures")
    say(f"  mixed: {busy.hit_rate:.1%} not built with writes, {quiet.hit_rate:.1%} without")
    baseline_name = "the same readers with nobody writing, same run"
    run.add(
        Figure(
            "API with curators writing (1 write/s): answers not built (response cache or stored document)",
            busy.hit_rate * 100,
            "%",
            baseline_name,
            quiet.hit_rate * 100,
            "higher",
            target="ratio ≥ 0.9",
            met=busy.hit_rate >= 0.9 * quiet.hit_rate,
            notes=notes,
        )
    )
    run.add(
        Figure(
            "API with curators writing (1 write/s): p95 latency",
            busy.p95,
            "ms",
            baseline_name,
            quiet.p95,
            "lower",
            notes="the writer runs on the same 2 cores as the readers and the server",
        )
    )
    run.add(
        Figure(
            "API with curators writing (1 write/s): p50 latency",
            busy.p50,
            "ms",
            baseline_name,
            quiet.p50,
            "lower",
        )
    )
