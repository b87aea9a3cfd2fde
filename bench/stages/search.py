"""Search: the search index built for the whole archive, then `archive.search` against a plain LIKE scan.

Terms of one to four characters and a pinyin one, each timed warm beside
the scan a plain implementation would do, with the plan of our query, which
must read the passage search entries through an index.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bench.figures import Figure, Run, stage
from bench.measuring import median_ms
from bench.stages.generate import vacuum

# One, two, three and four characters (教导总队, the Training Division, occurs in the seeds), and pinyin.
SEARCH_TERMS = ("江", "撤退", "下关", "挹江门", "教导总队", "xiaguan")
# The name and title columns a plain admin search (icontains) would scan: the baseline of a pinyin query.
NAME_COLUMNS = (
    ("archive_person", "name"), ("archive_personname", "name"), ("archive_unit", "name"),
    ("archive_unitalias", "name"), ("archive_location", "name"), ("archive_locationalias", "name"),
    ("archive_event", "title"), ("archive_source", "title"),
)


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
            ours_ms = median_ms(ours, run.args.search_repeat)
            baseline_ms = median_ms(baseline, run.args.search_repeat)
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


# Terms of three and four characters: the ones a generic plan of the prepared statement would read badly.
LONG_LIVED_TERMS = tuple(term for term in SEARCH_TERMS if len(term) in (3, 4) and not term.isascii())
LONG_LIVED_RUNS = 30  # past the fifth run, where PostgreSQL may settle a prepared statement on its generic plan


def long_lived_search_figures(run: Run) -> None:
    """The same search many times on one connection, as a worker that lives for hours runs it, beside LIKE.

    PostgreSQL may switch a prepared statement to its generic plan after five
    runs; the figure is the median of the runs after the tenth, and the
    connection's prepared statements are read for the generic plans they used.
    """
    from django.db import connection

    from archive import search

    for term in LONG_LIVED_TERMS:
        with stage(run, f"search {term} on a long-lived worker", [(f"search “{term}”, long-lived", "ms", "lower")]):
            times = []
            for _ in range(LONG_LIVED_RUNS):
                started = time.perf_counter()
                len(search.search(term, limit=20))
                times.append((time.perf_counter() - started) * 1000)
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*), coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0) "
                               "FROM pg_prepared_statements")
                statements, generic, custom = cursor.fetchone()
            baseline, description, _matching = _like_baseline(term)
            baseline_ms = median_ms(baseline, run.args.search_repeat)
            late = sorted(times[10:])
            ours_ms = late[len(late) // 2]
            run.add(
                Figure(
                    f"search “{term}” on a long-lived worker: latency of runs 11–{LONG_LIVED_RUNS} (first 20 and "
                    "the count)",
                    ours_ms,
                    "ms",
                    description,
                    baseline_ms,
                    "lower",
                    target="at least 3× faster (ratio ≤ 0.33)",
                    met=ours_ms * 3 <= baseline_ms,
                    notes=f"{LONG_LIVED_RUNS} runs of `archive.search.search` on this process's one connection: "
                    f"median {statistics.median(times[:5]):.1f} ms over runs 1–5, {ours_ms:.1f} ms over runs "
                    f"11–{LONG_LIVED_RUNS}, slowest {max(late):.1f} ms; the connection's prepared statements: "
                    f"{statements}, with {generic} generic and {custom} custom plans used",
                )
            )
