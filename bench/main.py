"""The benchmarks at scale: each figure of the archive beside its baseline, measured in the same run.

`bench/run` calls this. It needs PostgreSQL (the production database): with
no DATABASE_URL it starts a throwaway cluster (`scripts/pgcluster.py`) and
removes it at the end. It then

1. migrates and writes a synthetic archive of `--scale` passages
   (`bench.synthetic`), and builds the search index;
2. import: passages per second through the bulk path
   (`archive.importing.bulk.insert_passages`, COPY) against
   django-import-export's default row-by-row import of the same rows;
3. API: its stored documents built for the whole archive
   (`manage.py build_documents`, `bench/stages/documents.py`); then p50/p95
   latency and requests per second of every kind of JSON document (the
   pages and details of each record kind, a source's passages, a passage;
   `bench/stages/api_documents.py`), served by gunicorn, against the same
   JSON built by one SQL statement (`bench/baseline_app.py`) under the same
   gunicorn settings and the same loopback load, in alternating rounds; and
   one request of each in this process, split into its SQL and its Python
   (`bench/breakdown.py`), beside the baseline's statement alone;
4. search: `archive.search.search()` for short and long terms against a
   plain `LIKE '%term%'` scan, with the plan of our query; and the first
   search and first page of events of a gunicorn worker just started,
   against the same request of a worker without stored name keys or
   warm-up;
5. admin: p50/p95 render time of the admin changelists of passages and
   citations (and with `?q=江`), in-process through django.test.Client,
   against Django's stock ModelAdmin of the same models; and the SQL queries
   per request of every API list endpoint at page_size 50 against 200;
3b. reads after writes (`bench/stages/reads_writes.py`): the store's size
   beside the passage table, before and after a `*` cycle; cold reads after
   each kind of write and filtered pages beside the baseline's statement
   with its cached plan; what a publish, a draft and a citation approval
   cost with the read machinery on and off; 300 approvals in one bulk call;
6. reconcile: 1,000 names through the reconciliation service in batches of
   50 against a plain `icontains` lookup of the same names.

A figure that fails prints its error and is recorded as failed; the others
still run. Results go to `BENCHMARKS.md` (for people) and
`bench/results.json` (a list of `{name, value, unit, baseline,
baseline_value, ratio, better}` plus target and notes). Every write of the
import figure is rolled back, so the archive measured is the one generated.

This module is the entry point: the options, the order of the stages and
the cluster. Each stage is a module of `bench/stages/`; `bench/figures.py`
holds what they share and `bench/report.py` writes the report.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.figures import DEFAULT_SCALE, Run, say, stage  # noqa: E402  (ROOT first, for `python bench/main.py`)
from bench.measuring import in_process  # noqa: E402
from bench.report import write_report  # noqa: E402
from bench.stages.admin import admin_figures  # noqa: E402
from bench.stages.api import api_figures  # noqa: E402
from bench.stages.api_in_process import api_breakdown_figures  # noqa: E402
from bench.stages.api_mixed import mixed_figures  # noqa: E402
from bench.stages.documents import build_documents  # noqa: E402
from bench.stages.first_request import first_request_figures  # noqa: E402
from bench.stages.floor import floor_figures  # noqa: E402
from bench.stages.generate import generate, setup_django  # noqa: E402
from bench.stages.importing import import_figures  # noqa: E402
from bench.stages.queries import api_query_figures  # noqa: E402
from bench.stages.reads_writes import reads_writes_figures  # noqa: E402
from bench.stages.reconcile import reconcile_figures  # noqa: E402
from bench.stages.search import build_index, long_lived_search_figures, search_figures  # noqa: E402

STAGES = ["import", "api", "writes", "search", "admin", "reconcile"]  # the choices of --only, in the order they run


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=DEFAULT_SCALE, help="passages in the synthetic archive")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seed-dir", default=None, help="seed texts (default fixtures/sources)")
    parser.add_argument(
        "--requests",
        type=int,
        default=400,
        help="requests per endpoint and server (a quarter for the documents besides events pages and person details)",
    )
    parser.add_argument("--concurrency", type=int, default=12)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (the same for both servers)")
    parser.add_argument(
        "--api-seconds",
        type=float,
        default=40,
        help="time budget per endpoint and server: no request starts after it (default 40; a quarter for the "
        "other documents)",
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
        with stage(run, "stored documents", [("stored documents", "documents/s", "higher")]):
            build_documents(run)
        with tempfile.TemporaryDirectory(prefix="archive-bench-") as logs, stage(run, "API", [("API", "ms", "lower")]):
            api_figures(run, url, Path(logs))
            floor_figures(run, url, Path(logs))
        with in_process(), stage(run, "API in one process", [("API in one process", "ms", "lower")]):
            api_breakdown_figures(run, url)
        with (
            tempfile.TemporaryDirectory(prefix="archive-bench-") as logs,
            stage(run, "API with curators writing", [("API with curators writing", "%", "higher")]),
        ):
            mixed_figures(run, url, Path(logs))
        finish_stage(run, "API")
    if "writes" in wanted:
        if "api" not in wanted and not _documents_stored():
            with stage(run, "stored documents", [("stored documents", "documents/s", "higher")]):
                build_documents(run)
        with in_process(), stage(run, "reads after writes, filtered pages, writes, store size",
                                 [("reads after writes", "ms", "lower")]):
            reads_writes_figures(run, url)
        finish_stage(run, "reads after writes")
    if "search" in wanted:
        with stage(run, "search index", [("search index", "passages/s", "higher")]):
            build_index(run)
        finish_stage(run, "search index")
        search_figures(run)
        long_lived_search_figures(run)
        with stage(run, "first request of a new worker", [("first request of a new worker", "ms", "lower")]):
            first_request_figures(run, url)
        finish_stage(run, "search")
    if "admin" in wanted:
        # After the search stage: `?q=` in the admin and the API's search read the search index.
        with in_process():
            with stage(run, "admin changelists", [("admin changelists", "ms", "lower")]):
                admin_figures(run)
            with stage(run, "API queries per request", [("API queries per request", "queries", "lower")]):
                api_query_figures(run)
        finish_stage(run, "admin")
    if "reconcile" in wanted:
        with in_process():
            reconcile_figures(run)
        finish_stage(run, "reconcile")
    run.finished = True


def _documents_stored() -> bool:
    """Whether the archive measured already has its stored documents (a database an earlier run left built)."""
    from archive.models import StoredDocument

    return StoredDocument.objects.exists()


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
