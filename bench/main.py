"""The benchmarks at scale: each figure of the archive beside its baseline, measured in the same run.

`bench/run` calls this. It needs PostgreSQL (the production database): with
no DATABASE_URL it starts a throwaway cluster (`scripts/pgcluster.py`) and
removes it at the end. It then

1. migrates and writes a synthetic archive of `--scale` passages
   (`archive.importing.synthetic`), and builds the search index;
2. import: passages per second through the bulk path
   (`archive.importing.bulk.insert_passages`, COPY) against
   django-import-export's default row-by-row import of the same rows;
3. API: p50/p95 latency and requests per second of a page of events and of
   person details, served by gunicorn, against the same JSON built by one
   SQL statement (`bench/baseline_app.py`) under the same gunicorn settings
   and the same loopback load, in alternating rounds; and one request of
   each in this process, split into its SQL and its Python
   (`bench/breakdown.py`), beside the baseline's statement alone;
4. search: `archive.search.search()` for short and long terms against a
   plain `LIKE '%term%'` scan, with the plan of our query;
5. admin: p50/p95 render time of the admin changelists of passages and
   citations (and with `?q=江`), in-process through django.test.Client,
   against Django's stock ModelAdmin of the same models; and the SQL queries
   per request of every API list endpoint at page_size 50 against 200.

A figure that fails prints its error and is recorded as failed; the others
still run. Results go to `BENCHMARKS.md` (for people) and
`bench/results.json` (a list of `{name, value, unit, baseline,
baseline_value, ratio, better}` plus target and notes). Every write of the
import figure is rolled back, so the archive measured is the one generated.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import math
import os
import platform
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_SCALE = 1_000_000
# One, two, three and four characters (教导总队, the Training Division, occurs in the seeds), and pinyin.
SEARCH_TERMS = ("江", "撤退", "下关", "挹江门", "教导总队", "xiaguan")
# The name and title columns a plain admin search (icontains) would scan: the baseline of a pinyin query.
NAME_COLUMNS = (
    ("archive_person", "name"), ("archive_personname", "name"), ("archive_unit", "name"),
    ("archive_unitalias", "name"), ("archive_location", "name"), ("archive_locationalias", "name"),
    ("archive_event", "title"), ("archive_source", "title"),
)
SECRET = "bench-only-secret-key-not-for-production-0123456789"
REQUEST_TIMEOUT = 300.0
STAGES = ["import", "api", "search", "admin"]  # the choices of --only, in the order they run


@dataclass
class Figure:
    """One measured figure and its baseline; `ratio` is value / baseline_value."""

    name: str
    value: float | None
    unit: str
    baseline: str
    baseline_value: float | None
    better: str  # "higher" or "lower"
    target: str = ""
    met: bool | None = None
    notes: str = ""
    error: str = ""
    ratio: float | None = field(default=None)
    scale: int = 0  # passages in the archive it was measured on
    earlier: bool = False  # carried over from an earlier run's results (--supplement)

    def __post_init__(self) -> None:
        # No measurement (e.g. no request answered) is "no value", never NaN.
        if self.value is not None and math.isnan(self.value):
            self.value = None
        if self.baseline_value is not None and math.isnan(self.baseline_value):
            self.baseline_value = None
        if self.ratio is None and self.value is not None and self.baseline_value:
            self.ratio = self.value / self.baseline_value


@dataclass
class Run:
    args: argparse.Namespace
    figures: list[Figure] = field(default_factory=list)
    plans: dict[str, str] = field(default_factory=dict)
    context: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    done: list[str] = field(default_factory=list)
    finished: bool = False

    def add(self, figure: Figure) -> None:
        figure.scale = figure.scale or self.args.scale
        self.figures.append(figure)
        shown = "—" if figure.value is None else f"{figure.value:,.2f} {figure.unit}"
        base = "—" if figure.baseline_value is None else f"{figure.baseline_value:,.2f} {figure.unit}"
        ratio = "" if figure.ratio is None else f", ratio {figure.ratio:.2f}"
        state = {True: " [target met]", False: " [target MISSED]", None: ""}[figure.met]
        say(f"  {figure.name}: {shown} vs {base}{ratio}{state}{' ERROR ' + figure.error if figure.error else ''}")

    def fail(self, names: list[tuple[str, str, str]], error: BaseException) -> None:
        message = f"{type(error).__name__}: {error}"
        for name, unit, better in names:
            self.add(Figure(name, None, unit, "", None, better, error=message.splitlines()[0][:300]))


def say(message: str) -> None:
    stamp = time.strftime("%H:%M:%S", time.gmtime())
    print(f"[{stamp}] {message}", flush=True)


@contextmanager
def stage(run: Run, title: str, names: list[tuple[str, str, str]]) -> Iterator[None]:
    """Run one group of figures; on failure print the error, record it, and carry on."""
    say(f"{title} …")
    started = time.perf_counter()
    try:
        yield
    except Exception as error:  # a broken component must not stop the other figures
        traceback.print_exc()
        run.fail(names, error)
    say(f"{title}: {time.perf_counter() - started:.1f} s")


# ---------------------------------------------------------------- setup


def setup_django(url: str) -> None:
    os.environ.update(
        DATABASE_URL=url,
        DEBUG="0",
        SECRET_KEY=os.environ.get("SECRET_KEY") or SECRET,
        ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    import django

    django.setup()


def generate(run: Run) -> None:
    from django.core.management import call_command
    from django.db import connection

    from archive.importing import synthetic
    from archive.models import Source

    call_command("migrate", verbosity=0, interactive=False)
    prefix = f"syn{run.args.seed}-"
    existing = Source.objects.filter(slug__startswith=prefix).count()
    if existing:
        say(f"The database already holds the synthetic archive of seed {run.args.seed}: reused, not regenerated.")
        run.context["archive"] = "reused from an earlier run"
    else:
        corpus = synthetic.load_corpus(run.args.seed_dir)
        say(f"Generating {run.args.scale:,} passages (seed {run.args.seed}) from {', '.join(corpus.files)}")
        summary = synthetic.generate(passages=run.args.scale, seed=run.args.seed, corpus=corpus, progress=say)
        for line in synthetic.describe(summary):
            say(line)
        run.context["archive"] = ", ".join(f"{name} {count:,}" for name, count in sorted(summary.counts.items()))
        run.context["checksum"] = summary.checksum
        run.add(
            Figure(
                "generate: synthetic archive, passages/s (all records, citations, history; one transaction)",
                summary.rate(),
                "passages/s",
                "",
                None,
                "higher",
                notes=f"{summary.passages:,} passages in {summary.seconds:.0f} s",
            )
        )
        run.add(
            Figure(
                "generate: peak RSS of the generator process",
                summary.peak_rss_mib,
                "MiB",
                "",
                None,
                "lower",
                notes="flat as N grows: rows are streamed source by source",
            )
        )
    started = time.perf_counter()
    vacuum()
    say(f"VACUUM (ANALYZE): {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM archive_passage")
        run.context["passages in the database"] = f"{cursor.fetchone()[0]:,}"
        cursor.execute("SHOW server_version")
        run.context["PostgreSQL"] = cursor.fetchone()[0]


def vacuum() -> None:
    """Vacuum the database and refresh its statistics, as autovacuum does once it has caught up.

    Done after each stage that writes many rows: left to autovacuum, the pass
    over them would run, on the same 2 cores, in the middle of later figures.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")


def build_index(run: Run) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM archive_passagesearchentry")
        indexed = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM archive_passage")
        passages = cursor.fetchone()[0]
    if indexed != passages:
        started = time.perf_counter()
        how = "rebuild_search_index"
        # The command COPYs the entries and then builds the GIN index in one
        # transaction; PostgreSQL refuses CREATE INDEX while deferred foreign-key
        # checks of that COPY are pending. Checking them at once avoids it.
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            call_command("rebuild_search_index", verbosity=1)
        seconds = time.perf_counter() - started
        run.add(
            Figure(
                "search index: building it for the whole archive, passages/s",
                passages / seconds,
                "passages/s",
                "",
                None,
                "higher",
                notes=f"{passages:,} passages in {seconds:.0f} s by {how}, foreign keys checked immediately",
            )
        )
    vacuum()  # the new index rows, before the search figures


# ---------------------------------------------------------------- import


def _timed(function: Callable[[], Any]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def import_figures(run: Run) -> None:
    """Ours: insert_passages (COPY + bulk history); baseline: import-export's default Resource, row by row."""
    import tablib
    from django.db import transaction
    from import_export import resources

    from archive.importing import synthetic
    from archive.importing.bulk import insert_passages
    from archive.models import Passage, Source, SourceKind, Status
    from archive.text.segment import Segment, sha256_text

    # The rows come as sources of a realistic size (SOURCE_ROWS passages each):
    # django-import-export's default foreign-key widget loads the whole Source
    # row, full text included, for every passage, so one giant source would
    # make the baseline look far worse than it is. The baseline imports the
    # first source's rows, which are also the first rows ours writes.
    corpus = synthetic.load_corpus(run.args.seed_dir)
    ours_rows = min(50_000, max(run.args.baseline_rows * 5, run.args.scale // 20))
    size = run.args.baseline_rows
    rng = random.Random(f"bench-import:{run.args.seed}")
    chunks: list[tuple[str, list[Segment]]] = []
    for first in range(0, ours_rows, size):
        texts = synthetic.passage_texts(rng, corpus, "zh-Hans", min(size, ours_rows - first))
        segments, offset = [], 0
        for seq, text in enumerate(texts, start=1):
            segments.append(Segment(seq, offset, offset + len(text), text))
            offset += len(text) + 1
        chunks.append(("\n".join(texts), segments))

    def new_source(slug: str, full_text: str) -> Source:
        source = Source(
            slug=slug,
            title="import benchmark",
            kind=SourceKind.HISTORY,
            language="zh-Hans",
            text=full_text,
            status=Status.DRAFT,
        )
        source.length = len(full_text)
        Source.objects.bulk_create([source])
        return source

    with transaction.atomic():
        sources = [new_source(f"bench-import-ours-{n}", text) for n, (text, _segs) in enumerate(chunks)]

        def ours_import() -> None:
            for source, (_text, segments) in zip(sources, chunks, strict=True):
                insert_passages(source, segments, reason="benchmark")

        ours_seconds = _timed(ours_import)
        assert Passage.objects.filter(source__in=sources).count() == ours_rows
        transaction.set_rollback(True)

    class PassageResource(resources.ModelResource):
        class Meta:
            model = Passage

    full_text, sample = chunks[0]
    with transaction.atomic():
        source = new_source("bench-import-baseline", full_text)
        headers = ["id", "source", "seq", "text", "start", "end", "sha256", "role", "quotes"]
        dataset = tablib.Dataset(headers=headers)
        for seg in sample:
            dataset.append(["", source.pk, seg.seq, seg.text, seg.start, seg.end, sha256_text(seg.text), "body", ""])
        resource = PassageResource()
        result: list[Any] = []
        baseline_seconds = _timed(lambda: result.append(resource.import_data(dataset, dry_run=False)))
        if result[0].has_errors() or result[0].has_validation_errors():
            raise RuntimeError(
                f"django-import-export refused the rows: {result[0].base_errors or result[0].invalid_rows}"
            )
        assert Passage.objects.filter(source=source).count() == len(sample)
        transaction.set_rollback(True)

    ours = ours_rows / ours_seconds
    baseline = len(sample) / baseline_seconds
    ratio = ours / baseline
    run.add(
        Figure(
            "import: passages/s, bulk path (COPY + bulk history)",
            ours,
            "passages/s",
            "django-import-export, default ModelResource, row by row",
            baseline,
            "higher",
            target="ratio ≥ 30×",
            met=ratio >= 30,
            notes=f"ours {ours_rows:,} rows ({len(chunks)} sources of {size:,} passages) in {ours_seconds:.2f} s; "
            f"baseline the first source's {len(sample):,} rows, the same, in {baseline_seconds:.2f} s; "
            "both in a transaction that is rolled back, both with history",
        )
    )
    vacuum()  # the rows rolled back, before the API figures


# ---------------------------------------------------------------- API


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def gunicorn(app: str, url: str, workers: int, log: Path, extra: dict[str, str] | None = None) -> Iterator[int]:
    """Serve `app` with gunicorn on a loopback port; stop it (and only it) afterwards."""
    from bench import load

    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BENCH_DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **(extra or {}),
    }
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        "sync",
        "--timeout",
        str(int(REQUEST_TIMEOUT)),
        "--error-logfile",
        str(log),
        app,
    ]
    with log.open("ab") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        load.wait_until_serving(port, "/health/", process, log)
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _person_slugs(count: int) -> list[str]:
    """Approved persons with the most visible evidence: the detail pages worth reading."""
    from django.db.models import Count, Q

    from archive.models import Person, Status

    return list(
        Person.objects.approved()
        .annotate(n=Count("citations", filter=Q(citations__status=Status.APPROVED)))
        .order_by("-n", "slug")
        .values_list("slug", flat=True)[:count]
    )


def _same_documents(ours_port: int, baseline_port: int, paths: list[str]) -> str:
    from bench import load

    differing = []
    for path in paths:
        # Links carry the server's own host and port; compare the documents without them.
        a = json.loads(load.get(ours_port, path)[1].replace(f"127.0.0.1:{ours_port}".encode(), b"HOST"))
        b = json.loads(load.get(baseline_port, path)[1].replace(f"127.0.0.1:{baseline_port}".encode(), b"HOST"))
        if a != b:
            differing.append(path)
    if differing:
        return f"the baseline's JSON differs from the API's for {len(differing)} of {len(paths)} checked paths"
    return f"the baseline's JSON equals the API's for the {len(paths)} paths checked"


def api_figures(run: Run, url: str, log_dir: Path) -> None:
    """Latency and throughput of two endpoints: the API as served, the API with its response cache off, the baseline.

    As served, a repeated request is answered from the response cache
    (`archive.api.caching`) until the data changes; with the cache off each
    request builds its document, which is what the first reader after a
    change waits for. Both are set beside the same baseline.
    """
    from bench import load

    slugs = _person_slugs(20)
    if not slugs:
        raise RuntimeError("no approved person to ask for")
    requests = run.args.requests
    endpoints = {
        "events page (page_size=50)": ["/api/v1/events/?page_size=50"] * requests,
        "person detail": [f"/api/v1/persons/{slugs[i % len(slugs)]}/" for i in range(requests)],
    }
    workers = run.args.workers
    with (
        gunicorn("config.wsgi:application", url, workers, log_dir / "gunicorn-api.log") as ours,
        gunicorn(
            "config.wsgi:application", url, workers, log_dir / "gunicorn-api-uncached.log", {"API_CACHE_SECONDS": "0"}
        ) as uncached,
        gunicorn("bench.baseline_app:application", url, workers, log_dir / "gunicorn-baseline.log") as base,
    ):
        servers = {"ours": ours, "uncached": uncached, "baseline": base}
        check = ["/api/v1/events/?page_size=50"] + [f"/api/v1/persons/{slug}/" for slug in slugs]
        equivalence = _same_documents(ours, base, check)
        say(f"  {equivalence}")
        for title, paths in endpoints.items():
            # A slow endpoint on a large archive gets fewer requests (never fewer than
            # one per thread), so that the run stays bounded; every server gets the same.
            started = time.perf_counter()
            load.get(uncached, paths[0], timeout=REQUEST_TIMEOUT)
            probe = time.perf_counter() - started
            planned = len(paths)
            if probe * len(paths) / workers > run.args.api_seconds:
                paths = paths[: max(run.args.concurrency, int(run.args.api_seconds * workers / probe))]
            rounds = max(1, min(4, len(paths) // run.args.concurrency))
            # Each distinct path twice per worker: every worker has built (or stored) each document once.
            warm = list(dict.fromkeys(paths)) * (2 * workers)
            for port in servers.values():
                load.drive(port, warm, run.args.concurrency, run.args.api_seconds / 4)
            measured = {name: load.LoadResult() for name in servers}
            size = math.ceil(len(paths) / rounds)
            for index in range(rounds):
                chunk = paths[index * size : (index + 1) * size]
                # Rotate which server goes first, so drift of a shared machine falls on all.
                order = list(servers.items())
                order = order[index % len(order) :] + order[: index % len(order)]
                for name, port in order:
                    budget = run.args.api_seconds / rounds
                    measured[name].extend(load.drive(port, chunk, run.args.concurrency, budget))
            b = measured["baseline"]
            common = (
                f"{len(b.latencies)} requests each, concurrency {run.args.concurrency}, gunicorn {workers} sync "
                f"workers, {rounds} rotating round(s); {equivalence}"
            )
            if len(paths) < planned:
                common += (
                    f"; one uncached request took {probe:.1f} s, so {len(paths)} of the planned {planned} requests "
                    f"were made, to keep within {run.args.api_seconds:.0f} s per server"
                )
            for name, result in measured.items():
                if result.failures:
                    common += f"; {name}: {len(result.failures)} failed, e.g. {result.failures[0]}"
                if result.skipped:
                    common += (
                        f"; {name}: only {len(result.latencies)} of {len(paths)} requests made within the time "
                        f"budget of {run.args.api_seconds:.0f} s"
                    )
            variants = {
                "ours": (
                    f"API {title}",
                    "as served: repeated requests are answered from the response cache until the data changes; ",
                ),
                "uncached": (
                    f"API {title}, response cache off",
                    "every request builds its document (API_CACHE_SECONDS=0), as the first one after a write does; ",
                ),
            }
            for name, (label, how) in variants.items():
                _api_figures(run, label, measured[name], b, how + common)


def _api_figures(run: Run, label: str, a: Any, b: Any, notes: str) -> None:
    baseline_name = "one SQL statement with json_agg, tiny WSGI app, same gunicorn settings"
    run.add(
        Figure(
            f"{label}: p50 latency",
            a.p50,
            "ms",
            baseline_name,
            b.p50,
            "lower",
            target="ratio ≤ 2",
            met=a.p50 <= 2 * b.p50,
            notes=notes,
        )
    )
    run.add(
        Figure(
            f"{label}: p95 latency",
            a.p95,
            "ms",
            baseline_name,
            b.p95,
            "lower",
            target="ratio ≤ 2 and < 50 ms",
            met=a.p95 <= 2 * b.p95 and a.p95 < 50,
        )
    )
    run.add(
        Figure(
            f"{label}: requests/s",
            a.rps,
            "requests/s",
            baseline_name,
            b.rps,
            "higher",
            target="ratio ≥ 0.5",
            met=a.rps >= 0.5 * b.rps,
        )
    )


def api_breakdown_figures(run: Run, url: str) -> None:
    """One request of each benchmarked endpoint in this process: its SQL, its Python, its model instances.

    What bounds the figures under load, measured rather than asserted; the
    baseline is the baseline app's SQL statement alone, run from here.
    """
    from django.test import Client, override_settings

    from bench import baseline_app, breakdown

    client = Client()
    slugs = _person_slugs(20)
    repeat = max(10, run.args.admin_repeat * 3)
    base = "http://127.0.0.1"
    os.environ["BENCH_DATABASE_URL"] = url
    rotation = itertools.cycle(slugs)  # the baseline reads the same persons in turn
    endpoints: dict[str, tuple[list[str], Callable[[], Any]]] = {
        "events page (page_size=50)": (
            ["/api/v1/events/?page_size=50"],
            lambda: baseline_app._events(base, {"page_size": ["50"]}),
        ),
        "person detail": (
            [f"/api/v1/persons/{slug}/" for slug in slugs],
            lambda: baseline_app._person(base, next(rotation)),
        ),
    }
    baseline_name = "the baseline's SQL statement alone, run from this process"
    try:
        for title, (paths, baseline) in endpoints.items():
            base_ms = _median_ms(baseline, repeat)
            label = f"API in one process, {title}"
            with override_settings(API_CACHE_SECONDS=0):
                built = breakdown.measure(lambda path: _get(client, path), paths, repeat)
            cached = breakdown.measure(lambda path: _get(client, path), paths, repeat)
            notes = (
                f"median of {repeat} warm requests through django.test.Client, {len(set(paths))} distinct path(s); "
                f"{built.queries} SQL statements, timed at each execute (results included)"
            )
            rows = (
                ("response cache off: time of a request", built.total_ms, "ms", base_ms),
                ("response cache off: of which SQL", built.sql_ms, "ms", None),
                ("response cache off: of which Python", built.python_ms, "ms", None),
                ("response cache off: model instances built", built.instances, "instances", None),
                ("as served: time of an answer from the response cache", cached.total_ms, "ms", base_ms),
            )
            for index, (name, value, unit, baseline_value) in enumerate(rows):
                run.add(
                    Figure(
                        f"{label}, {name}",
                        value,
                        unit,
                        baseline_name if baseline_value is not None else "",
                        baseline_value,
                        "lower",
                        notes=notes if index == 0 else "",
                    )
                )
    finally:
        if baseline_app._connection is not None:
            baseline_app._connection.close()
            baseline_app._connection = None


# ---------------------------------------------------------------- search


def _median_ms(function: Callable[[], Any], repeat: int) -> float:
    function()  # warm the cache: both sides are measured warm
    return statistics.median(_timed(function) for _ in range(repeat)) * 1000


def _uses_entry_index(plan: str) -> bool:
    """The plan reads the passage search entries through one of their indexes, never a sequential scan.

    A rare term is found through the grams GIN index; a common one by walking
    the (source, seq) B-tree in archive order and stopping after the page.
    """
    table = "archive_passagesearchentry"
    indexed = "archive_pse_grams_gin" in plan or "archive_pse_source_seq" in plan
    return indexed and f"Seq Scan on {table}" not in plan


def _like_baseline(term: str) -> tuple[Callable[[], None], str, int]:
    """The plain scan a query is compared with, its description, and how many rows it matches."""
    from django.db import connection

    from archive.search.keys import is_latin_query

    if is_latin_query(term):
        # No LIKE on the text finds pinyin; the nearest plain scan is icontains over every name column.
        union = " UNION ALL ".join(
            f"SELECT id, {column} AS name FROM {table} WHERE {column} ILIKE %s" for table, column in NAME_COLUMNS
        )
        params = [f"%{term}%"] * len(NAME_COLUMNS)
        description = "ILIKE '%term%' over every name and title column (count + first 20)"
    else:
        union = "SELECT id, text FROM archive_passage WHERE text LIKE %s"
        params = [f"%{term}%"]
        description = "LIKE '%term%' sequential scan of passage text (count + first 20)"

    def baseline() -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM ({union}) found", params)
            cursor.fetchone()
            cursor.execute(f"SELECT * FROM ({union}) found ORDER BY id LIMIT 20", params)
            cursor.fetchall()

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({union}) found", params)
        matching = cursor.fetchone()[0]
    return baseline, description, matching


def search_figures(run: Run) -> None:
    from archive import search

    for term in SEARCH_TERMS:
        names = [(f"search “{term}”: latency", "ms", "lower")]
        with stage(run, f"search {term}", names):
            try:
                plan = search.explain(term)
            except Exception as error:  # the plan is printed when available; its absence is reported
                plan = f"(explain failed: {type(error).__name__}: {error})"
            run.plans[term] = plan
            print(plan, flush=True)
            uses_index = _uses_entry_index(plan)

            def ours(term: str = term) -> None:
                hits = search.search(term, limit=20)
                len(hits)

            baseline, description, matching = _like_baseline(term)
            ours_ms = _median_ms(ours, run.args.search_repeat)
            baseline_ms = _median_ms(baseline, run.args.search_repeat)
            found = search.find(term)
            what = "names contain it" if "name" in description else "passages contain it"
            run.add(
                Figure(
                    f"search “{term}”: latency (first 20 hits and the count)",
                    ours_ms,
                    "ms",
                    description,
                    baseline_ms,
                    "lower",
                    target="ratio < 1 and < 100 ms, plan uses an index of the entries",
                    met=ours_ms < baseline_ms and ours_ms < 100 and uses_index,
                    notes=f"{matching:,} {what} (the baseline's rows); search finds {len(found.records):,} records "
                    f"and {'' if found.count_exact else '≈'}{found.passage_count:,} visible passages; "
                    f"median of {run.args.search_repeat} warm runs; the plan "
                    f"{'reads' if uses_index else 'does NOT read'} the passage search entries through an index "
                    "(the grams GIN for a rare term, the (source, seq) B-tree walked in order for a common one), "
                    "no sequential scan of them",
                )
            )


# ---------------------------------------------------------------- admin


ADMIN_USER = "bench-admin"
ADMIN_QUERY = "江"
STOCK_ADMIN = "bench-stock-admin"  # URL prefix and name of the stock admin site
# The API's list endpoints; the passages of a source are added with a slug found at run time.
API_LISTS = ("sources", "persons", "units", "locations", "events", "citations")


@contextmanager
def _queries() -> Iterator[list[dict[str, str]]]:
    """Every SQL query run inside, on every database alias (the API reads may go to a replica).

    The list yielded is filled when the block ends.
    """
    from contextlib import ExitStack

    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    captured: list[dict[str, str]] = []
    with ExitStack() as stack:
        contexts = [stack.enter_context(CaptureQueriesContext(connection)) for connection in connections.all()]
        yield captured
    for context in contexts:
        captured.extend(context.captured_queries)


@contextmanager
def _in_process() -> Iterator[None]:
    """Settings for serving pages in this process, as the deployed site does after collectstatic.

    Without DEBUG the project stores static files by manifest, which exists
    only after `collectstatic`; the bench writes no files, so the admin's
    `{% static %}` is served by the plain storage (a string join instead of a
    dict lookup). The request log's line per request is muted: it would drown
    the bench's output (its middleware still times and counts each request).
    """
    import logging

    from django.conf import settings
    from django.test import override_settings

    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    storages = {**settings.STORAGES, "staticfiles": plain}
    request_log = logging.getLogger("archive.request")
    level = request_log.level
    request_log.setLevel(logging.WARNING)
    try:
        with override_settings(STORAGES=storages), warnings.catch_warnings():
            # WhiteNoise warns once that STATIC_ROOT does not exist: expected, nothing is collected.
            warnings.filterwarnings("ignore", message="No directory at")
            yield
    finally:
        request_log.setLevel(level)


def _get(client: Any, path: str) -> Any:
    # bench runs with ALLOWED_HOSTS=127.0.0.1; the test client's default "testserver" would be refused.
    response = client.get(path, HTTP_HOST="127.0.0.1")
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}")
    return response


def _admin_client() -> Any:
    """A test client logged in as a superuser, created if missing (with no usable password)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user_model = get_user_model()
    user = user_model.objects.filter(username=ADMIN_USER).first()
    if user is None:
        user = user_model.objects.create_superuser(ADMIN_USER, "bench@example.invalid", None)
    client = Client()
    # force_login skips authentication, so django-axes has no login to throttle.
    client.force_login(user)
    return client


def _stock_urlconf(models: list[type]) -> Any:
    """The project's routes plus a second admin site on which `models` have Django's stock ModelAdmin.

    The stock admins keep only the project's `search_fields` (Django's own
    icontains search over them), so that `?q=` searches on both sides;
    everything else (list_display, ordering, paginator, full counts) is Django's
    default. Served through the same client and middleware as the real admin.
    """
    import types

    from django.contrib import admin
    from django.urls import path

    import config.urls

    site = admin.AdminSite(name=STOCK_ADMIN)
    for model in models:
        fields = admin.site.get_model_admin(model).search_fields
        site.register(model, type(f"Stock{model.__name__}Admin", (admin.ModelAdmin,), {"search_fields": fields}))
    # A urlconf is any hashable object with `urlpatterns`; a module object needs no file.
    urlconf = types.ModuleType("bench_stock_admin_urls")
    urlconf.urlpatterns = [path(f"{STOCK_ADMIN}/", site.urls), *config.urls.urlpatterns]  # type: ignore[attr-defined]
    return urlconf


@dataclass
class Rendered:
    """Warm render times of one changelist (as a LoadResult), its SQL queries and rows shown."""

    times: Any  # bench.load.LoadResult, imported late like the other figures do
    queries: int
    rows: int


def _render(client: Any, path: str, repeat: int) -> Rendered:
    from bench import load

    _get(client, path)  # warm: templates, content types, the database's cache
    # Queries are counted on a render of their own, so that capturing them costs no timed render.
    with _queries() as captured:
        response = _get(client, path)
    times = load.LoadResult()
    for _ in range(repeat):
        times.latencies.append(_timed(lambda: _get(client, path)))
    return Rendered(times, len(captured), len(response.context_data["cl"].result_list))


def admin_figures(run: Run) -> None:
    """Our changelists of passages and citations against Django's stock ModelAdmin of the same models."""
    from django.test import override_settings

    from archive.models import Citation, Passage

    client = _admin_client()
    repeat = run.args.admin_repeat
    models = [Passage, Citation]
    with override_settings(ROOT_URLCONF=_stock_urlconf(models)):
        for model in models:
            for query in ("", f"?q={ADMIN_QUERY}"):
                page = f"archive/{model._meta.model_name}/{query}"
                ours = _render(client, f"/admin/{page}", repeat)
                stock = _render(client, f"/{STOCK_ADMIN}/{page}", repeat)
                title = f"admin {model._meta.model_name} changelist{' ' + query if query else ''}"
                notes = (
                    f"{ours.queries} SQL queries for a page of {ours.rows} rows (stock: {stock.queries} for "
                    f"{stock.rows} rows); {repeat} warm renders each through django.test.Client in-process, as a "
                    "superuser (p95 by nearest rank); baseline: Django's stock ModelAdmin with only the same "
                    "search_fields (icontains), on a second admin site in the same process"
                )
                baseline = "Django's stock admin.ModelAdmin changelist of the same model (same search_fields)"
                for label, ms, base_ms in (
                    ("p50", ours.times.p50, stock.times.p50),
                    ("p95", ours.times.p95, stock.times.p95),
                ):
                    run.add(
                        Figure(
                            f"{title}: {label} latency",
                            ms,
                            "ms",
                            baseline,
                            base_ms,
                            "lower",
                            target="< 300 ms",
                            met=ms < 300,
                            notes=notes if label == "p50" else "",
                        )
                    )


def _api_list_paths() -> list[str]:
    """Every list endpoint of the API, the passages of the approved historical source with the most of them."""
    from django.db.models import Count

    from archive.models import Source, Status

    source = (
        Source.objects.filter(status=Status.APPROVED, is_fiction=False)
        .annotate(n=Count("passages"))
        .order_by("-n", "slug")
        .values_list("slug", flat=True)
        .first()
    )
    if source is None:
        raise RuntimeError("no approved historical source to list the passages of")
    paths = [f"/api/v1/{name}/" for name in API_LISTS]
    return [*paths, f"/api/v1/sources/{source}/passages/", f"/api/v1/search/?q={ADMIN_QUERY}&type=passage"]


SMALL_PAGE, LARGE_PAGE = 50, 200


def _page_queries(client: Any, path: str, size: int) -> tuple[Counter[str], int]:
    """SQL queries of one warm request of a page of `size` rows, by the table they read first; and the rows."""
    from django.test import override_settings

    url = f"{path}{'&' if '?' in path else '?'}page_size={size}"
    # What is counted is building the page: a response from the cache would cost one query.
    with override_settings(API_CACHE_SECONDS=0):
        _get(client, url)  # warm: what a process does once (content types, cached lookups) is not counted
        with _queries() as captured:
            response = _get(client, url)
    tables = Counter(_first_table(query["sql"]) for query in captured)
    return tables, len(response.json()["results"])


def _first_table(sql: str) -> str:
    found = re.search(r'\bFROM\s+"?(\w+)', sql)
    return found.group(1) if found else "?"


def api_query_figures(run: Run) -> None:
    """The API's queries per request must not grow with the page: no query per row."""
    from django.test import Client

    client = Client()
    for path in _api_list_paths():
        # 50 and 200 rows rather than 5: five rows may hold no place with a grandparent,
        # and a prefetch with nothing to fetch is skipped, which is not a query per row.
        small, small_rows = _page_queries(client, path, SMALL_PAGE)
        large, large_rows = _page_queries(client, path, LARGE_PAGE)
        notes = (
            f"{small_rows} and {large_rows} rows; counted on every database alias with CaptureQueriesContext, "
            "one warm request each, through django.test.Client"
        )
        # Name the tables whose queries grow with the page: where a query per row (or level) comes from.
        grown = large - small
        if grown:
            notes += f"; more queries at {LARGE_PAGE} rows, by table read: " + ", ".join(
                f"{table} +{count}" for table, count in sorted(grown.items())
            )
        run.add(
            Figure(
                f"API queries per request: {path} (page_size {LARGE_PAGE})",
                large.total(),
                "queries",
                f"the same endpoint at page_size={SMALL_PAGE}",
                small.total(),
                "lower",
                target=f"equal at {SMALL_PAGE} and {LARGE_PAGE} rows",
                met=large.total() == small.total(),
                notes=notes,
            )
        )


# ---------------------------------------------------------------- report


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:,.1f} ms"
    if unit == "queries":
        return f"{value:,.0f} {unit}"
    if value < 100:
        return f"{value:,.2f} {unit}"
    return f"{value:,.0f} {unit}"


def _supplement(run: Run) -> list[Figure]:
    """Figures of an earlier run (`--supplement`) that this run has not (yet) measured."""
    if not run.args.supplement:
        return []
    measured = {f.name for f in run.figures}
    carried = []
    for item in json.loads(Path(run.args.supplement).read_text(encoding="utf-8")):
        if item["name"] in measured:
            continue
        known = {k: item.get(k) for k in ("value", "baseline_value", "ratio", "met")}
        carried.append(
            Figure(
                item["name"],
                unit=item["unit"],
                baseline=item.get("baseline") or "",
                better=item["better"],
                target=item.get("target") or "",
                notes=item.get("notes") or "",
                error=item.get("error") or "",
                scale=int(item.get("scale") or 0),
                earlier=True,
                **known,
            )
        )
    return carried


# What bounds each group of figures, as profiling on this kind of machine showed (2 cores
# shared by the servers, the load generator and PostgreSQL). A prefix ending in ":" names
# the figures as served, not those of the same name with the cache off.
LIMITS = [
    ("import", "the database's write path: COPY into the passage, search and history tables and their "
     "indexes; on the Python side, building the rows. The baseline is bound by a save() and a history "
     "row per record."),
    ("API events page (page_size=50), response cache off", "CPU of Python: under a load of 8 to 16 "
     "requests on 2 cores, the CPU time of a request sets the pace, the worker's and PostgreSQL's together. "
     "The in-process figures below split one request into its SQL and its Python (the ORM building the "
     "model instances counted there for 50 events with their places, participations and citations, DRF "
     "serialising them, the middleware). The baseline leaves all of it to PostgreSQL in one statement."),
    ("API person detail, response cache off", "CPU of Python as above, for a much smaller document: most of "
     "it is the ORM building and compiling the queries of a detail; the baseline's single cheap statement "
     "leaves it near the cost of the HTTP stack."),
    ("API events page (page_size=50):", "as served, a repeated request is answered from the response cache "
     "(middleware, throttling, one query for the data's generation: its time in one process is below), so "
     "gunicorn's sync workers, the loopback network stack and the load generator on the same 2 cores bound "
     "it."),
    ("API person detail:", "as above for cached answers; the first request for each person on each worker "
     "builds the document, and with a score of persons on several workers those builds weigh on the ratio, "
     "which lands near 2 from run to run (the in-process figures below set the cached answer beside the "
     "baseline's statement alone)."),
    ("API in one process", "one request at a time in the bench's own process through django.test.Client, "
     "with no HTTP and no load: what a request costs, and where; its SQL is each statement's execute, "
     "results included, and its Python the rest. The baseline is the baseline app's statement, run from "
     "the same process."),
    ("search", "passage hits come from the index in PostgreSQL (the first page walks an index in archive "
     "order, the count stops past 5,000); names are matched in an in-memory snapshot of the records, which a "
     "new process builds once (seconds at a million passages) and rebuilds when a record kind changes. The "
     "baseline reads every passage's text."),
    ("admin", "template rendering in Python for a page of 50 rows; with ?q=, the name snapshot of every "
     "status and a LIKE over the citations' stored folded quote and claim. The p95 of a few renders is the "
     "slowest of them, so one render slowed by the shared machine can miss the target alone."),
    ("API queries per request", "constant by construction: every nested relation is one prefetch query."),
]


def write_report(run: Run) -> None:
    figures = run.figures + _supplement(run)
    results = [
        {
            "name": f.name,
            "value": None if f.value is None else round(f.value, 3),
            "unit": f.unit,
            "baseline": f.baseline or None,
            "baseline_value": None if f.baseline_value is None else round(f.baseline_value, 3),
            "ratio": None if f.ratio is None else round(f.ratio, 3),
            "better": f.better,
            "target": f.target or None,
            "met": f.met,
            "notes": f.notes or None,
            "error": f.error or None,
            "scale": f.scale,
            **({"from_earlier_run": True} if f.earlier else {}),
        }
        for f in figures
    ]
    Path(run.args.json).write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    minutes = (time.perf_counter() - run.started) / 60
    lines = [
        "# Benchmarks",
        "",
        "Written by `bench/run` (see the README); do not edit by hand, run it again.",
        "Each figure is measured side by side with its baseline in the same run, on the same database.",
        "",
        f"- scale: **{run.args.scale:,} passages** (seed {run.args.seed})"
        + ("" if run.args.scale == DEFAULT_SCALE else f" — smaller than the default {DEFAULT_SCALE:,}"),
        f"- date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}; whole run {minutes:.1f} min",
        f"- machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"PostgreSQL {run.context.get('PostgreSQL', '?')} (throwaway cluster, fsync off)",
    ]
    for key, value in run.context.items():
        if key != "PostgreSQL":
            lines.append(f"- {key}: {value}")
    if run.finished:
        lines.append("- state: **complete**, every stage ran")
    else:
        carried = sorted({f.scale for f in figures if f.earlier})
        lines.append(
            f"- state: **incomplete: this run at {run.args.scale:,} passages did not finish** — the stages done "
            f"are: {', '.join(run.done) or 'none'}."
            + (
                f" The figures of the other stages are from an earlier run at {', '.join(f'{n:,}' for n in carried)} "
                "passages, marked so in the table."
                if carried
                else ""
            )
        )
    lines += [
        "",
        "| name | ours | baseline | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for f in figures:
        ratio = "—" if f.ratio is None else f"{f.ratio:.2f}×"
        met = {True: "yes", False: "**no**", None: ""}[f.met]
        ours = f"error: {f.error}" if f.error else _fmt(f.value, f.unit)
        name = f"{f.name} *(at {f.scale:,} passages, from an earlier run)*" if f.earlier else f.name
        lines.append(f"| {name} | {ours} | {_fmt(f.baseline_value, f.unit)} | {ratio} | {f.target or ''} | {met} |")
    lines += [
        "",
        "`ratio` is ours ÷ baseline: higher is better for rates, lower for latencies.",
        "",
        "## What limits each figure",
        "",
    ]
    lines += [
        f"- **{prefix.rstrip(':')}**: {why}"
        for prefix, why in LIMITS
        if any(f.name.startswith(prefix) for f in figures)
    ]
    lines += [
        "",
        "## Baselines",
        "",
    ]
    seen = set()
    for f in figures:
        if f.baseline and f.baseline not in seen:
            seen.add(f.baseline)
            lines.append(f"- {f.baseline}")
    lines += ["", "## Notes", ""]
    for f in figures:
        if f.notes:
            lines.append(f"- **{f.name}**: {f.notes}")
    if run.plans:
        lines += ["", "## Plans of the search query (`archive.search.explain`)", ""]
        for term, plan in run.plans.items():
            lines += [f"### {term}", "", "```", plan, "```", ""]
    Path(run.args.markdown).write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    say(f"Wrote {run.args.markdown} and {run.args.json}")


# ---------------------------------------------------------------- main


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=DEFAULT_SCALE, help="passages in the synthetic archive")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seed-dir", default=None, help="seed texts (default fixtures/sources)")
    parser.add_argument("--requests", type=int, default=400, help="requests per endpoint and server")
    parser.add_argument("--concurrency", type=int, default=12)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (the same for both servers)")
    parser.add_argument(
        "--api-seconds",
        type=float,
        default=40,
        help="time budget per endpoint and server: no request starts after it (default 40)",
    )
    parser.add_argument("--baseline-rows", type=int, default=2000, help="rows imported by django-import-export")
    parser.add_argument("--search-repeat", type=int, default=5)
    parser.add_argument("--admin-repeat", type=int, default=7, help="warm renders of each admin page (default 7)")
    parser.add_argument("--markdown", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--json", default=str(ROOT / "bench" / "results.json"))
    parser.add_argument(
        "--supplement",
        default=None,
        metavar="RESULTS_JSON",
        help="results of an earlier (smaller) run, shown, marked, for figures this run has not measured",
    )
    parser.add_argument("--only", nargs="*", choices=STAGES, help="run only these figures")
    args = parser.parse_args(argv)
    if not 8 <= args.concurrency <= 16:
        parser.error("--concurrency is kept between 8 and 16: a bounded load on a shared machine")
    return args


def measure(run: Run, url: str) -> None:
    import tempfile

    setup_django(url)
    wanted = set(run.args.only or STAGES)
    # The figures that need no search index come first, and the report is
    # rewritten after each stage, so that a run stopped late still has them.
    with stage(run, "synthetic archive", [("generate", "passages/s", "higher")]):
        generate(run)
    finish_stage(run, "synthetic archive")
    if "import" in wanted:
        with stage(run, "import", [("import: passages/s", "passages/s", "higher")]):
            import_figures(run)
        finish_stage(run, "import")
    if "api" in wanted:
        with tempfile.TemporaryDirectory(prefix="archive-bench-") as logs, stage(run, "API", [("API", "ms", "lower")]):
            api_figures(run, url, Path(logs))
        with _in_process(), stage(run, "API in one process", [("API in one process", "ms", "lower")]):
            api_breakdown_figures(run, url)
        finish_stage(run, "API")
    if "search" in wanted:
        with stage(run, "search index", [("search index", "passages/s", "higher")]):
            build_index(run)
        finish_stage(run, "search index")
        search_figures(run)
        finish_stage(run, "search")
    if "admin" in wanted:
        # After the search stage: `?q=` in the admin and the API's search read the search index.
        with _in_process():
            with stage(run, "admin changelists", [("admin changelists", "ms", "lower")]):
                admin_figures(run)
            with stage(run, "API queries per request", [("API queries per request", "queries", "lower")]):
                api_query_figures(run)
        finish_stage(run, "admin")
    run.finished = True


def finish_stage(run: Run, name: str) -> None:
    run.done.append(name)
    write_report(run)


def _terminate(signum: int, frame: object) -> None:
    # Unwind through the finally blocks: stop the servers, remove the cluster, write the report.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    run = Run(args)
    signal.signal(signal.SIGTERM, _terminate)
    say(f"Benchmarks at {args.scale:,} passages")
    url = os.environ.get("DATABASE_URL", "")
    try:
        if url:
            if not url.startswith(("postgres://", "postgresql://")):
                raise SystemExit("bench/run measures PostgreSQL: DATABASE_URL must be a postgres:// URL")
            measure(run, url)
        else:
            from scripts import pgcluster

            say("No DATABASE_URL: starting a throwaway PostgreSQL cluster")
            with pgcluster.cluster() as url:
                measure(run, url)
    finally:
        if run.figures:
            write_report(run)
    say(f"Done in {(time.perf_counter() - run.started) / 60:.1f} min")
    return 0 if all(not f.error for f in run.figures) else 1


if __name__ == "__main__":
    sys.exit(main())
