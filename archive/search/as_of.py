"""Search as the archive was published at a moment or in a release: `find_as_of`.

A historian who cites the archive as of a date must be able to search it as
it stood then. The answer is read from the history, as every memento is:

- **records** are matched as they were named then: the history rows of each
  kind published then (or held by the release) with their names or aliases
  then, through the same `match_candidate` as the current search. Only those
  that can match are read: the records the current search finds and those
  changed since the moment (at most `REWRITTEN_LIMIT` of a kind; a moment
  before more changes is refused, naming the limit);
- **passages** are those of the sources published then, with their text then.
  A passage whose history has no row after the moment still has the text it
  had then, so it is found through the passage index. A passage rewritten or
  deleted since (a published text is never replaced in place, so only an
  operator's change or a re-import after one does it) is matched on its text
  then, in Python; at most `REWRITTEN_LIMIT` of them are read, and a
  moment before a larger rewrite is refused, naming the limit.

Whether a record counts as fiction is read as it is now (the flag is derived
from its evidence and kept out of the history); a source's own flag is read
as it stood then. Hits are ordered as the current search orders them:
records first, then passages in archive order (source, then number), the
passages rewritten since after the others.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from archive import counting, mementos
from archive.models import Passage, Source

from .index import ensure_usable, estimate_visible, matching_entries, planned_for_the_term
from .keys import search_key
from .query import TYPES, QueryError, clean_fiction, clean_query, clean_types, fiction_kept
from .records import KINDS, SCORE_PASSAGE, Candidate, Query, match_candidate
from .results import EXACT_COUNT_UP_TO, Hit, RankedHits, passage_snippet
from .snapshot import snapshots

# Records changed since the moment (of one kind) and passages rewritten since are read from the history and
# matched one by one in Python; past this many, the read is refused.
REWRITTEN_LIMIT = 20_000


@dataclass(frozen=True)
class _SourceThen:
    slug: str
    title: str
    is_fiction: bool


def _record_hits(query: Query, types: tuple[str, ...], fiction: str, read: mementos.Listing) -> list[Hit]:
    """Records of ``types`` published then whose name or alias then matches ``query``.

    Only the records that can match are read from the history: those the
    current search finds (a record unchanged since stands as it stood), and
    those changed since the moment (at most `REWRITTEN_LIMIT` of a kind).
    """
    hits: list[Hit] = []
    now = snapshots([type_ for type_ in types if type_ in KINDS])
    for type_ in types:
        kind = KINDS.get(type_)
        if kind is None:
            continue
        changed = mementos.records_changed_since(kind.model, read.read_at, limit=REWRITTEN_LIMIT)
        if changed is None:
            raise QueryError("as_of", f"More than {REWRITTEN_LIMIT:,} records of one kind changed since then; "
                                      "search as of a later moment.")
        wanted = changed | {candidate.pk for candidate, _match, _fictional in now[type_].matching(query)}
        states = mementos.published_states(kind.model, read, wanted)  # type: ignore[arg-type]  # every kind is curated
        candidates = {row.id: Candidate(pk=row.id, slug=row.slug, title=getattr(row, kind.title_field))
                      for row in states}
        for row_id, name in mementos.names_then(kind.model, list(candidates), read.read_at):
            candidate = candidates[row_id]
            if name != candidate.title:
                candidate.aliases.append(name)
        fictional = _fictional(kind.model, type_, states)
        for candidate in candidates.values():
            match = match_candidate(candidate, query, kind)
            if match is not None and fiction_kept(fictional[candidate.pk], fiction):
                hits.append(Hit(type_, candidate.pk, candidate.slug, candidate.title, match.matched, match.snippet,
                                None, None, match.score, fictional[candidate.pk]))
    order = {t: i for i, t in enumerate(TYPES)}
    hits.sort(key=lambda hit: (hit.score, order[hit.type], hit.title, hit.id))
    return hits


def _fictional(model: Any, type_: str, states: list[Any]) -> dict[int, bool]:
    """A source's flag as it stood then; another record's as it is now (deleted since: not fiction)."""
    if type_ == "source":
        return {row.id: bool(row.is_fiction) for row in states}
    ids = [row.id for row in states]
    fictional = {pk for start in range(0, len(ids), 1000)  # lists short enough for one statement on every engine
                 for pk in model._default_manager.filter(pk__in=ids[start:start + 1000], fictional=True)
                 .values_list("pk", flat=True)}
    return {pk: pk in fictional for pk in ids}


class AsOfResults(RankedHits):
    """The hits of a query in the archive as published then: records, passages from the index, passages rewritten since.

    Like `results.SearchResults`, a slice reads only the passages it shows.
    """

    def __init__(self, query: str, read: mementos.Listing, *, fiction: str = "exclude",
                 types: Collection[str] | None = None) -> None:
        self.query = Query.of(clean_query(query))
        self.read = read
        self.fiction = clean_fiction(fiction)
        self.types = clean_types(types)
        self.records = _record_hits(self.query, self.types, self.fiction, read)
        self.entries: QuerySet | None = None
        self.rewritten: list[Hit] = []
        self._count: tuple[int, bool] | None = None
        # Where each passage hit read stood then: (its source's slug, its number), for a link to that edition.
        self.places: dict[int, tuple[str, int]] = {}
        self.sources: dict[int, _SourceThen] = {}
        if "passage" in self.types:
            ensure_usable()
            sources = self._sources_then()
            kept = list(sources)
            rewritten = mementos.rewritten_since(read.read_at, limit=REWRITTEN_LIMIT, sources=kept)
            if rewritten is None:
                raise QueryError("as_of", f"More than {REWRITTEN_LIMIT:,} passages were rewritten since then; "
                                          "search as of a later moment.")
            unchanged = matching_entries(self.query.key).filter(source_id__in=kept)
            # An entry's source is its passage's now: rows of other sources cannot have changed it since.
            self.entries = unchanged.exclude(passage_id__in=mementos.changed_since(read.read_at, kept)).order_by(
                "source_id", "seq")
            self.rewritten = self._rewritten_hits(rewritten, sources)
            self.sources = sources

    def _sources_then(self) -> dict[int, _SourceThen]:
        """The sources published then (held by the release) that the fiction choice keeps."""
        states = mementos.published_states(Source, self.read)
        return {row.id: _SourceThen(row.slug, row.title, bool(row.is_fiction)) for row in states
                if fiction_kept(bool(row.is_fiction), self.fiction)}

    def _rewritten_hits(self, rows: list[Any], sources: dict[int, _SourceThen]) -> list[Hit]:
        hits = []
        for row in sorted(rows, key=lambda r: (r.source_id, r.seq)):
            source = sources.get(row.source_id)
            if source is None or self.query.key not in search_key(row.text):
                continue
            snippet, start, end = passage_snippet(row.text, self.query.key)
            self.places[row.id] = (source.slug, row.seq)
            hits.append(Hit("passage", row.id, None, f"{source.title} §{row.seq}", "text", snippet, start, end,
                            SCORE_PASSAGE, source.is_fiction))
        return hits

    def _count_entries(self) -> tuple[int, bool]:
        """Passages found through the index: exact up to `EXACT_COUNT_UP_TO`, estimated beyond."""
        if self._count is None:
            if self.entries is None:
                self._count = (0, True)
            else:
                entries, key, fiction = self.entries, self.query.key, self.fiction
                with planned_for_the_term(entries.db):
                    self._count = counting.count_or_estimate(
                        entries, EXACT_COUNT_UP_TO, lambda: estimate_visible(key, fiction=fiction, using=entries.db))
        return self._count

    def _count_passages(self) -> tuple[int, bool]:
        indexed, exact = self._count_entries()
        return indexed + len(self.rewritten), exact

    def _passage_page(self, first: int, last: int) -> list[Hit]:
        """Passages ``first`` to ``last``: those found through the index, then those rewritten since."""
        indexed = self._count_entries()[0]
        hits: list[Hit] = []
        if self.entries is not None and first < indexed:
            with planned_for_the_term(self.entries.db):
                ids = list(self.entries.values_list("passage_id", flat=True)[first:min(last, indexed)])
            hits += self._passage_hits(ids)
        return hits + self.rewritten[max(0, first - indexed):max(0, last - indexed)]

    def _passage_hits(self, ids: list[int]) -> list[Hit]:
        rows = {row[0]: row for row in Passage.objects.filter(pk__in=ids).values_list("pk", "seq", "text", "source_id")}
        hits = []
        for pk in ids:
            _pk, seq, text, source_id = rows[pk]
            source = self.sources[source_id]
            snippet, start, end = passage_snippet(text, self.query.key)
            self.places[pk] = (source.slug, seq)
            hits.append(Hit("passage", pk, None, f"{source.title} §{seq}", "text", snippet, start, end,
                            SCORE_PASSAGE, source.is_fiction))
        return hits


def find_as_of(query: str, params: Any, *, fiction: str = "exclude",
               types: Collection[str] | None = None) -> AsOfResults:
    """The hits of ``query`` in the archive as ``params`` (``as_of`` or ``release``) names it.

    A bad moment or release number is a `QueryError` naming the parameter; an
    unknown release is `Http404`.
    """
    try:
        read = mementos.listing(params)
    except mementos.BadValue as bad:
        raise QueryError(bad.name, bad.message) from bad
    return AsOfResults(query, read, fiction=fiction, types=types)


__all__: Sequence[str] = ["REWRITTEN_LIMIT", "AsOfResults", "find_as_of"]
