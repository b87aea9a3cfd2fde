"""The passage index: writing entries, and finding them on each engine.

Entries are written in Python because folding (OpenCC, NFKC) happens there;
on PostgreSQL the 1- and 2-grams are computed at the same time and written in
the same COPY, since deriving them in SQL with a per-row function took eleven
minutes for a million passages. A lookup then is

* PostgreSQL: `grams @> ARRAY[...]` served by the GIN index (the character for
  a one-character term, the 2-grams for longer ones), plus `folded LIKE` to
  confirm the order of the 2-grams of a term of three or more characters;
* SQLite: `folded LIKE '%term%'` over the entries (a scan; SQLite is the demo
  database, not the one that holds a million passages).

Both return exactly the passages whose folded text contains the folded term,
so the two engines give the same results.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections, models, transaction

from archive import counting
from archive.db.session import local_settings
from archive.models import Passage, PassageSearchEntry, Source, Status
from archive.models.search_index import database_encoding_problem

from . import stored_keys
from .keys import grams, query_grams, search_key

TABLE = PassageSearchEntry._meta.db_table
GIN_INDEX = "archive_pse_grams_gin"
BATCH_SIZE = 5000

_checked: dict[tuple[str, str], str | None] = {}


class SearchBackendError(RuntimeError):
    """The database cannot serve search (e.g. it was created without UTF-8)."""


def ensure_usable(alias: str = "default") -> None:
    """Refuse to search a database whose encoding cannot hold Chinese text."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return
    marker = (alias, str(connection.settings_dict.get("NAME")))
    if marker not in _checked:
        _checked[marker] = database_encoding_problem(connection)
    problem = _checked[marker]
    if problem:
        raise SearchBackendError(problem)


# ---------------------------------------------------------------- writing


def _rows(passages: Iterable[tuple[int, int, int, str, str]]) -> Iterator[tuple[Any, ...]]:
    for pk, source_id, seq, text, sha256 in passages:
        folded = search_key(text)
        yield pk, source_id, seq, folded, sha256, grams(folded)


_FIELDS = ("pk", "source_id", "seq", "text", "sha256")


def _write(rows: Iterable[tuple[Any, ...]], alias: str) -> int:
    connection = connections[alias]
    written = 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor, cursor.copy(
            f"COPY {TABLE} (passage_id, source_id, seq, folded, text_sha256, grams) FROM STDIN"
        ) as copy:
            copy.set_types(["int8", "int8", "int4", "text", "text", "int8[]"])
            for row in rows:
                copy.write_row(row)
                written += 1
        return written
    entries = [
        PassageSearchEntry(passage_id=pk, source_id=source_id, seq=seq, folded=folded, text_sha256=sha)
        for pk, source_id, seq, folded, sha, _grams in rows
    ]
    PassageSearchEntry.objects.using(alias).bulk_create(entries, batch_size=BATCH_SIZE)
    return len(entries)


def _passage_ids(objects: Iterable[Any]) -> tuple[set[int], set[int]]:
    passage_ids: set[int] = set()
    source_ids: set[int] = set()
    for obj in objects:
        if isinstance(obj, Passage):
            passage_ids.add(obj.pk)
        elif isinstance(obj, Source):
            source_ids.add(obj.pk)
        elif isinstance(obj, models.QuerySet) and obj.model in (Passage, Source):
            target = passage_ids if obj.model is Passage else source_ids
            target.update(obj.values_list("pk", flat=True))
        # Persons, units, places and events are matched on the fly: nothing to write.
    return passage_ids, source_ids


def reindex(objects: Iterable[Any], *, using: str = "default") -> int:
    """Write the entries of the given passages, sources (all their passages) or querysets of them.

    Other records are accepted and ignored, because they are matched on the
    fly. Returns the number of entries written.
    """
    passage_ids, source_ids = _passage_ids(objects)
    if not passage_ids and not source_ids:
        return 0
    selection = models.Q(pk__in=passage_ids) | models.Q(source_id__in=source_ids)
    passages = Passage.objects.using(using).filter(selection)
    with transaction.atomic(using=using):
        PassageSearchEntry.objects.using(using).filter(
            models.Q(passage_id__in=passage_ids) | models.Q(passage__source_id__in=source_ids)
        ).delete()
        # Each batch is read before its COPY starts: a server-side cursor and a
        # COPY cannot share one connection.
        return sum(_write(_rows(batch), using) for batch in _batches(passages, BATCH_SIZE))


def index_record(record: Any) -> int:
    """Bring the index up to date for one record (a passage or a source; others need nothing)."""
    return reindex([record])


def _batches(queryset: models.QuerySet, batch_size: int) -> Iterator[list[tuple[int, int, int, str, str]]]:
    """Keyset pagination by primary key: no OFFSET, no open cursor beside the COPY."""
    last = 0
    while True:
        batch = list(queryset.filter(pk__gt=last).order_by("pk").values_list(*_FIELDS)[:batch_size])
        if not batch:
            return
        yield batch
        last = batch[-1][0]


def rebuild(*, using: str = "default", update_only: bool = False, batch_size: int = BATCH_SIZE,
            progress: Any = None) -> dict[str, int]:
    """Rebuild the whole index, or with `update_only` write only missing and stale entries; store name keys.

    A full rebuild on PostgreSQL empties the table, drops the GIN index, COPYs
    every entry and builds the index once at the end, which is much faster
    than maintaining it row by row.
    """
    connection = connections[using]
    postgres = connection.vendor == "postgresql"
    passages = Passage.objects.using(using)
    stats = {"written": 0, "removed": 0}
    with transaction.atomic(using=using):
        if postgres:
            # Django's foreign keys are deferred; rows written earlier in the same
            # transaction (a collection load) leave pending checks, which forbid
            # TRUNCATE and CREATE INDEX. Check them now, and the COPY's as it goes.
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        if update_only:
            stale = PassageSearchEntry.objects.using(using).exclude(text_sha256=models.F("passage__sha256"))
            stats["removed"] = stale.delete()[0]
            passages = passages.filter(search_entry__isnull=True)
        else:
            stats["removed"] = PassageSearchEntry.objects.using(using).count()
            with connection.cursor() as cursor:
                if postgres:
                    cursor.execute(f"TRUNCATE {TABLE}")
                    cursor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")
                else:
                    cursor.execute(f"DELETE FROM {TABLE}")
        for batch in _batches(passages, batch_size):
            stats["written"] += _write(_rows(batch), using)
            if progress:
                progress(stats["written"])
        if postgres:
            with connection.cursor() as cursor:
                if not update_only:
                    # A GIN over hundreds of grams per row is built much faster with room to sort in.
                    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
                    cursor.execute(f"CREATE INDEX {GIN_INDEX} ON {TABLE} USING gin (grams)")
                # Fresh statistics of both tables the lookup joins: the planner's
                # estimate is the count reported for a very common term.
                cursor.execute(f"ANALYZE {TABLE}")
                cursor.execute(f"ANALYZE {Source._meta.db_table}")
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    # A bulk load sent no signals: the names it wrote have their keys stored here, for new processes.
    stats["names"] = stored_keys.store_all(using=using)
    return stats


def stale_count(*, using: str = "default") -> dict[str, int]:
    """How far the index is behind the passages: missing and stale entries."""
    return {
        "missing": Passage.objects.using(using).filter(search_entry__isnull=True).count(),
        "stale": PassageSearchEntry.objects.using(using).exclude(text_sha256=models.F("passage__sha256")).count(),
    }


# ---------------------------------------------------------------- finding


class GramsContain(models.Expression):
    """`grams @> ARRAY[...]` on the entry table under whatever alias the query gives it.

    The column is not declared on the model (it exists on PostgreSQL only), so
    it is named here; the alias is looked up when compiling, because inside a
    subquery (`pk__in=...`) Django renames the table to U0.
    """

    output_field = models.BooleanField()
    conditional = True

    def __init__(self, wanted: list[int]) -> None:
        super().__init__()
        self.wanted = wanted

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        alias = compiler.quote_name_unless_alias(compiler.query.get_initial_alias())
        return f'{alias}."grams" @> %s::bigint[]', (self.wanted,)


def matching_entries(key: str, *, using: str = "default") -> models.QuerySet:
    """Entries whose folded text contains `key` (already folded), on either engine."""
    ensure_usable(using)
    entries = PassageSearchEntry.objects.using(using)
    if connections[using].vendor == "postgresql":
        entries = entries.filter(GramsContain(query_grams(key)))
        if len(key) > 2:
            entries = entries.filter(folded__contains=key)
        return entries
    return entries.filter(folded__contains=key)


def _visible(entries: models.QuerySet, *, fiction: str, using: str) -> models.QuerySet:
    sources = Source.objects.using(using).filter(status=Status.APPROVED)
    if fiction == "exclude":
        sources = sources.filter(is_fiction=False)
    elif fiction == "only":
        sources = sources.filter(is_fiction=True)
    return entries.filter(source_id__in=sources.values("id")).order_by("source_id", "seq")


def estimate_visible(key: str, *, fiction: str, using: str = "default") -> int | None:
    """The planner's estimate for the term's rarest 2-gram on PostgreSQL: an upper bound of the term's hits.

    The planner's estimate of the whole term multiplies its grams'
    frequencies as if they were independent, which they are not in words.
    """
    if connections[using].vendor != "postgresql":
        return None
    entries = PassageSearchEntry.objects.using(using)
    guesses = [
        counting.planner_estimate(_visible(entries.filter(GramsContain([gram])), fiction=fiction, using=using))
        for gram in query_grams(key)
    ]
    known = [guess for guess in guesses if guess is not None]
    return min(known) if known else None


def visible_entries(key: str, *, fiction: str, using: str = "default") -> models.QuerySet:
    """Matching entries of approved sources, by the fiction rule, in archive order.

    Archive order is (source id, passage number): the order in which sources
    entered the archive, then reading order. The entries' B-tree on exactly
    those columns lets PostgreSQL walk it and stop at the end of the page for
    a common term (a third of all passages contain 江), instead of sorting
    every match; sorting by title first cost seconds at a million passages.
    The sources are a subquery, not a join, for the same reason.
    """
    return _visible(matching_entries(key, using=using), fiction=fiction, using=using)


# Off while a common term's page is read: see `ordered_walk`.
# JIT and parallel workers cost more to start (~30 ms) than a walk that stops after a page.
_WALK_SETTINGS = {"enable_bitmapscan": "off", "enable_seqscan": "off", "jit": "off",
                  "max_parallel_workers_per_gather": "0"}
# The search statements are prepared (settings: server-side binding). After five runs PostgreSQL may
# keep a generic plan, made without the term, which takes a rare term for a common one and reads
# every entry (1.6-2.4x a sequential LIKE on a long-lived worker): each run is planned for its term.
_CUSTOM_PLANS = {"plan_cache_mode": "force_custom_plan"}


@contextmanager
def planned_for_the_term(using: str = "default") -> Iterator[None]:
    """Plan the search statements run inside for their own term, not with a generic plan."""
    with local_settings(using, _CUSTOM_PLANS):
        yield


@contextmanager
def ordered_walk(using: str = "default") -> Iterator[None]:
    """Make PostgreSQL read a page of a common term by walking the (source, seq) B-tree in order.

    The planner takes the 2-grams of a term as independent and expects a
    hundred entries of 挹江门 where 58,000 match; it then fetches them all
    through the GIN index and sorts them, when a walk in archive order would
    stop after a few hundred. The caller knows the term is common (it counted
    past the exact-count threshold), so bitmap and sequential scans are turned
    off for this one query: the B-tree walk is what remains.
    """
    with local_settings(using, {**_WALK_SETTINGS, **_CUSTOM_PLANS}):
        yield
