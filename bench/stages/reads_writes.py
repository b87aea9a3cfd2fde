"""Reads after writes, filtered pages, what writes pay for the readers, and the store's size, each beside its baseline.

All in this process, on the synthetic archive, after the API's stored
documents were built and its stages had read their pages:

- store size: the stored documents' table (with its indexes and TOAST)
  beside the passage table, now and after a `*` cycle (`*` bumped by a
  committed write, whose pruning runs, then every record's document built
  again), against the target of half the passage table;
- cold reads: after each kind of write (a record published through its
  revision, a source's edit published, `*` bumped), the first read of a
  detail and of a list page that the write made stale, p50 and p95 over
  several writes, beside the baseline's statement for the same path with
  its cached plan (`bench.baseline_app`). The write's own rebuild, which
  the writer's worker does after its response, is left out: the reader
  measured is one who comes before it;
- filtered and non-default pages (`?person=`, `?unit=`, `page_size=10`),
  warm, each path checked equal to the baseline's, beside the baseline;
- writes: a publish (a revision approved), a draft saved, a citation
  approved, each with the read machinery on (freshness tags bumped in the
  writer's transaction, the rebuild after the response) and off (the
  freshness receivers disconnected, no stored documents), alternating; and
  300 citations approved in one bulk call (`archive.services.bulk`).

Reads go through django.test.Client (the middleware and the views, no
HTTP); the baseline is its statement alone, from this process: no HTTP on
either side, and no WSGI or Django around the baseline's statement.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from bench.figures import Figure, Run, say, stage
from bench.measuring import client_get

BASE = "http://127.0.0.1"
API = "/api/v1"
SAMPLES = 20  # writes (or paths) per figure
WRITES = 15  # writes of each kind with the machinery on, and as many off
BULK = 300
SQL_BASELINE = "the baseline's statement for the same path with its cached plan, run from this process"


def _quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return statistics.median(ordered), p95


def _timed_ms(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


class _Baseline:
    """The baseline app's statements, run in this process on its own connections (plans cached there)."""

    def __init__(self, url: str) -> None:
        import os

        os.environ["BENCH_DATABASE_URL"] = url

    def get(self, path: str) -> bytes:
        from bench import baseline_app

        asked = urlsplit(path)
        body = baseline_app.document(BASE, asked.path, asked.query)
        if body is None:
            raise RuntimeError(f"the baseline has no answer for {path}")
        return body

    def settled(self, paths: list[str]) -> None:
        """Each statement run until its plan is chosen and cached, as in a worker that has served it before."""
        for path in paths:
            for _ in range(3):
                self.get(path)


def _pair(run: Run, label: str, ours: list[float], base: list[float], target_ratio: float, notes: str) -> None:
    for name, index in (("p50", 0), ("p95", 1)):
        a, b = _quantiles(ours)[index], _quantiles(base)[index]
        run.add(
            Figure(f"{label}: {name} latency", a, "ms", SQL_BASELINE, b, "lower",
                   target=f"ratio ≤ {target_ratio:g}", met=a <= target_ratio * b, notes=notes if index == 0 else "")
        )


# --- store size --------------------------------------------------------------------------


def _sizes() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size('archive_storeddocument'), pg_total_relation_size('archive_passage'), "
            "pg_total_relation_size('archive_documentversion'), (SELECT count(*) FROM archive_storeddocument), "
            "(SELECT count(*) FROM archive_documentversion), "
            "(SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relname = 'archive_storeddocument')"
        )
        store, passages, versions, rows, version_rows, dead = cursor.fetchone()
    return {"store": store, "passages": passages, "versions": versions, "rows": rows, "version_rows": version_rows,
            "dead": dead}


def _kinds_stored() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT split_part(tag, ':', 1) AS kind, variant LIKE 'page:%%' AS page, count(*) "
                       "FROM archive_storeddocument GROUP BY 1, 2 ORDER BY 1, 2")
        rows = cursor.fetchall()
    return ", ".join(f"{kind}{' pages' if page else ''} {count:,}" for kind, page, count in rows)


def _store_figure(run: Run, label: str, sizes: dict[str, int], notes: str) -> None:
    mib = 1024 * 1024
    run.add(
        Figure(f"store size {label}, beside the passage table", sizes["store"] / mib, "MiB",
               "the passage table (archive_passage with its indexes and TOAST)", sizes["passages"] / mib, "lower",
               target="ratio < 0.5", met=sizes["store"] < 0.5 * sizes["passages"],
               notes=f"{sizes['rows']:,} stored rows ({sizes['dead']:,} dead tuples counted by PostgreSQL); "
               f"version rows {sizes['version_rows']:,} ({sizes['versions'] / mib:.1f} MiB); {notes}")
    )


def _star_cycle() -> float:
    """`*` bumped by a committed write (its pruning runs after the commit), then every document built again."""
    from django.db import transaction

    from archive.api import stored
    from archive.freshness.signals import everything_changed
    from archive.management.commands.build_documents import RECORDS
    from archive.selectors import FictionMode

    started = time.perf_counter()
    with transaction.atomic():
        everything_changed()  # announced once committed: the stale rows are pruned then
    stored.build_every(RECORDS, [FictionMode.EXCLUDE, FictionMode.INCLUDE])
    return time.perf_counter() - started


# --- the read machinery off ------------------------------------------------------------------


@contextmanager
def machinery(on: bool) -> Iterator[None]:
    """The read machinery on (as served) or off: no freshness receivers, no stored documents."""
    from django.db.models.signals import m2m_changed, post_save, pre_delete, pre_save
    from django.test import override_settings

    from archive.freshness import signals, tags
    from archive.models import Event, Statement

    if on:
        yield
        return
    for model in tags.WATCHED:
        uid = f"archive.freshness.{model._meta.label_lower}"
        pre_save.disconnect(sender=model, dispatch_uid=f"{uid}.pre_save")
        post_save.disconnect(sender=model, dispatch_uid=f"{uid}.post_save")
        pre_delete.disconnect(sender=model, dispatch_uid=f"{uid}.pre_delete")
    for through in (Event.locations.through, Statement.citations.through):
        m2m_changed.disconnect(sender=through, dispatch_uid=f"archive.freshness.{through._meta.label_lower}")
    try:
        with override_settings(API_STORED_DOCUMENTS=False):
            yield
    finally:
        signals.connect()


@contextmanager
def _request() -> Iterator[dict[str, float]]:
    """A write as inside a request: the documents it touched are rebuilt after it, timed apart ("after")."""
    from django.core.signals import request_finished, request_started

    request_started.send(sender=None)
    timing: dict[str, float] = {}
    try:
        yield timing
    finally:
        timing["after"] = _timed_ms(lambda: request_finished.send(sender=None))


@contextmanager
def _no_rebuild() -> Iterator[None]:
    """A write whose writer has not yet rebuilt what it touched: its tags bumped, nothing refreshed or pruned."""
    from django.test import override_settings

    with override_settings(API_STORED_DOCUMENTS=False):
        yield


# --- the writes ----------------------------------------------------------------------------


def _accounts() -> dict[str, Any]:
    """The curator, the reviewer and four sets of draft citations (`bench.bulk_review`), written in bulk."""
    from archive.models import DocumentVersion
    from bench import bulk_review

    built = bulk_review._build(BULK, accounts="bench-writes")  # apart from the accounts of the API's writers
    DocumentVersion.objects.bump_everything()  # written without signals, as a load is
    return built


def _publish(record: Any, by: Any, reviewer: Any, **changes: Any) -> Callable[[], Any]:
    """A change proposed as a revision of a published record; the call returned approves it (the publish)."""
    from archive.services import decisions, records, revisions

    fresh = type(record)._default_manager.get(pk=record.pk)
    for name, value in changes.items():
        setattr(fresh, name, value)
    revision = records.record_update(record=fresh, by=by)
    assert revision is not None, "a published record's edit is a revision"
    shown = decisions.revision_pin(revision)
    return lambda: revisions.approve_revision(revision=revision, by=reviewer, shown=shown)


# --- figures -------------------------------------------------------------------------------


def reads_writes_figures(run: Run, url: str) -> None:
    from django.test import Client

    from archive.models import Event, Person, Source

    client = Client()
    baseline = _Baseline(url)
    try:
        first = _sizes()
        _store_figure(run, "after the stored documents were built and the API stages read their pages", first,
                      f"rows by kind: {_kinds_stored()}")
        built = _accounts()
        seconds = _star_cycle()
        _store_figure(run, "after a `*` cycle", _sizes(),
                      f"`*` bumped and committed (its pruning ran), then every record's document built again in "
                      f"{seconds:.0f} s; no VACUUM; rows by kind: {_kinds_stored()}")

        curator, reviewer = built["curator"], built["reviewer"]
        persons = list(Person.objects.approved().filter(fictional=False).order_by("slug")[:SAMPLES])
        sources = list(Source.objects.approved().filter(is_fiction=False).order_by("slug")[:SAMPLES])
        events = list(Event.objects.approved().filter(fictional=False).order_by("slug")
                      .values_list("slug", flat=True)[:SAMPLES])

        def person_publish(index: int) -> None:
            record = persons[index]
            _publish(record, curator, reviewer, description=f"{record.description} ({index})")()

        def source_edit(index: int) -> None:
            record = sources[index]
            _publish(record, curator, reviewer, title=f"{record.title} ({index})")()

        def star(index: int) -> None:
            from archive.freshness.signals import everything_changed

            everything_changed()

        cases = [
            ("a record published", person_publish,
             lambda i: [f"{API}/persons/{persons[i].slug}/", f"{API}/persons/"]),
            ("a source's edit published", source_edit,
             lambda i: [f"{API}/sources/{sources[i].slug}/", f"{API}/sources/", f"{API}/events/"]),
            ("`*` bumped", star, lambda i: [f"{API}/events/{events[i]}/", f"{API}/events/"]),
        ]
        # Each part a stage of its own: one that fails is recorded, and the others still run.
        for title, write, paths_of in cases:
            with stage(run, f"cold reads after {title}", [(f"cold read after {title}", "ms", "lower")]):
                _cold_reads(run, client, baseline, title, write, paths_of)
        with stage(run, "filtered pages", [("events page, filtered", "ms", "lower")]):
            _filtered(run, client, baseline)
        with stage(run, "write costs", [("write cost", "ms", "lower")]):
            _write_costs(run, built, persons)
        with stage(run, "bulk review", [(f"bulk review: {BULK} citations approved", "s", "lower")]):
            _bulk(run, built)
    finally:
        from bench import baseline_app

        baseline_app.close()


def _cold_reads(run: Run, client: Any, baseline: _Baseline, title: str, write: Callable[[int], None],
                paths_of: Callable[[int], list[str]]) -> None:
    """After each of SAMPLES writes: the first read of each path it made stale, and the baseline's."""
    from django.db import transaction

    ours: dict[int, list[float]] = {}
    base: dict[int, list[float]] = {}
    names: dict[int, str] = {}
    for index in range(SAMPLES):
        try:
            paths = paths_of(index)
        except IndexError:
            break
        for path in paths:  # warm: current before the write
            client_get(client, path)
        baseline.settled(paths)
        with _no_rebuild(), transaction.atomic():
            write(index)
        for position, path in enumerate(paths):
            names[position] = "detail" if position == 0 else f"page {urlsplit(path).path.removeprefix(API)}"
            ours.setdefault(position, []).append(_timed_ms(lambda path=path: client_get(client, path)))
            base.setdefault(position, []).append(_timed_ms(lambda path=path: baseline.get(path)))
    for position, name in names.items():
        target = 3 if position == 0 else 2
        _pair(run, f"cold read after {title}, {name}", ours[position], base[position], target,
              f"{len(ours[position])} writes, each followed by the first read of the {name} it made stale "
              "(before the writer's rebuild after its response), through django.test.Client, response cache as "
              "served; the baseline is the same path's statement right after it")


def _filtered(run: Run, client: Any, baseline: _Baseline) -> None:
    from django.test import override_settings

    from archive.models import Event, Participation
    from archive.selectors import visible_participation_q

    visible = Participation.objects.filter(visible_participation_q(), event__fictional=False)
    people = list(visible.exclude(person=None).values_list("person__slug", flat=True).distinct()[:SAMPLES])
    units = list(visible.exclude(unit=None).values_list("unit__slug", flat=True).distinct()[:SAMPLES])
    pages = -(-Event.objects.approved().filter(fictional=False).count() // 10)
    groups = {
        "?person=": [f"{API}/events/?person={slug}" for slug in people],
        "?unit=": [f"{API}/events/?unit={slug}" for slug in units],
        "page_size=10": [f"{API}/events/?page_size=10&page={n}" for n in range(1, min(SAMPLES, pages) + 1)],
    }
    for name, paths in groups.items():
        differing = []
        for path in paths:  # warm, and checked equal
            ours_doc = json.loads(client_get(client, path).content)
            if ours_doc != json.loads(baseline.get(path)):
                differing.append(path)
        baseline.settled(paths)
        ours, base = [], []
        with override_settings(API_CACHE_SECONDS=0):  # each request builds its page, as a new filter does
            for _ in range(3):
                for path in paths:
                    ours.append(_timed_ms(lambda path=path: client_get(client, path)))
                    base.append(_timed_ms(lambda path=path: baseline.get(path)))
        same = (f"the baseline's JSON differs from the API's for {len(differing)} of {len(paths)} paths, e.g. "
                f"{differing[0]}" if differing else f"the baseline's JSON equals the API's for all {len(paths)}")
        _pair(run, f"events page {name} (warm, never stored whole)", ours, base, 2,
              f"{len(paths)} distinct paths, 3 rounds, through django.test.Client with the response cache off "
              f"(API_CACHE_SECONDS=0: each request reads its records' keys and stored documents); {same}")


def _write_costs(run: Run, built: dict[str, Any], persons: list[Any]) -> None:
    from django.db import transaction

    from archive.models import Citation, Person
    from archive.services import bulk, decisions, records, review

    curator, reviewer = built["curator"], built["reviewer"]
    one_by_one, drafts = built["sets"][2], built["sets"][3]
    bulk.submit_many(records=[(Citation, pk) for pk in one_by_one], by=curator)
    pins = {c.pk: decisions.record_pin(c, []) for c in Citation.objects.filter(pk__in=one_by_one)}
    targets = list(Person.objects.approved().filter(fictional=False).order_by("-slug")[: 2 * WRITES])

    def publish(index: int) -> Callable[[], Any]:
        record = targets[index % len(targets)]
        return _publish(record, curator, reviewer, description=f"{record.description} [{index}]")

    def draft(index: int) -> Callable[[], Any]:
        citation = Citation.objects.get(pk=drafts[index])
        citation.claim = f"named here ({index})"
        return lambda: records.record_update(record=citation, by=curator)

    def approval(index: int) -> Callable[[], Any]:
        citation = Citation.objects.get(pk=one_by_one[index])
        return lambda: review.approve(citation, by=reviewer, shown=pins[citation.pk])

    for title, prepare, target in (("a publish (a revision approved)", publish, 1.5),
                                   ("a draft saved", draft, 1.2),
                                   ("a citation approved", approval, 1.5)):
        times: dict[bool, list[float]] = {True: [], False: []}
        after: list[float] = []
        for index in range(2 * WRITES):
            on = index % 2 == 0
            with machinery(on):
                call = prepare(index)
                with _request() as timing:
                    times[on].append(_timed_ms(lambda call=call: transaction.atomic(call)()))
                if on:
                    after.append(timing["after"])
        a, b = statistics.median(times[True]), statistics.median(times[False])
        run.add(
            Figure(f"write cost of {title}, read machinery on: p50", a, "ms",
                   "the same write with the read machinery off (no freshness receivers, no stored documents)", b,
                   "lower", target=f"ratio ≤ {target:g}", met=a <= target * b,
                   notes=f"{WRITES} writes each way, alternating, each in its transaction inside a request's "
                   f"signals; the rebuild of what it touched after the response (not in the writer's time) took "
                   f"{statistics.median(after):.1f} ms p50")
        )


def _bulk(run: Run, built: dict[str, Any]) -> None:
    from archive.models import Citation
    from archive.services import bulk, decisions

    curator, reviewer = built["curator"], built["reviewer"]
    seconds: dict[bool, float] = {}
    after = 0.0
    for on, pks in ((True, built["sets"][0]), (False, built["sets"][1])):
        keys = [(Citation, pk) for pk in pks]
        bulk.submit_many(records=keys, by=curator)
        shown = {(Citation, c.pk): decisions.record_pin(c, []) for c in Citation.objects.filter(pk__in=pks)}
        with machinery(on), _request() as timing:
            seconds[on] = _timed_ms(lambda shown=shown: bulk.approve_many(shown=shown, by=reviewer)) / 1000
        if on:
            after = timing["after"]
    approved = Citation.objects.filter(pk__in=built["sets"][0] + built["sets"][1], status="approved").count()
    assert approved == 2 * BULK, approved
    run.add(
        Figure(f"bulk review: {BULK} citations approved in one call, read machinery on", seconds[True], "s",
               "the same call with the read machinery off", seconds[False], "lower", target="< 3 s",
               met=seconds[True] < 3,
               notes=f"`archive.services.bulk.approve_many`, one transaction; the rebuild after the response took "
               f"{after:.0f} ms more, not in the reviewer's time")
    )
    say(f"  bulk approvals: {seconds[True]:.2f} s on, {seconds[False]:.2f} s off")
