"""The public search: ranked hits of records and passages, what the API pages through.

Records are matched in Python against the snapshot of the approved ones
(`snapshot`, `records`) and come first; passage hits all score the same and
follow in archive order, fetched from the index (`index`) one page at a time,
so a slice reads only the passages it shows. Only approved records and
passages of approved sources are found; fiction follows the `fiction` choice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, overload

from archive import counting
from archive.models import Passage

from .index import estimate_visible, ordered_walk, planned_for_the_term, visible_entries
from .keys import search_key_aligned
from .query import TYPES, clean_fiction, clean_query, clean_types, fiction_kept
from .records import SCORE_PASSAGE, Query
from .snapshot import snapshots

SNIPPET_CONTEXT = 30
# Passage hits are counted exactly up to here; beyond, an estimate is given.
EXACT_COUNT_UP_TO = 5_000

_API_PATHS = {
    "person": "persons",
    "unit": "units",
    "location": "locations",
    "event": "events",
    "source": "sources",
    "passage": "passages",
}


@dataclass(frozen=True)
class Hit:
    type: str  # person|unit|location|event|source|passage
    id: int
    slug: str | None  # None for passages
    title: str  # the record's name/title; for a passage "<source title> §<seq>"
    matched: str  # name|alias|pinyin|title|text
    snippet: str  # HTML with <mark>…</mark>
    start: int | None  # for passages: offsets of the match in the passage text
    end: int | None
    score: int  # lower is better: 0 exact name, 1 name contains, 2 alias, 3 pinyin, 4 passage mention
    fictional: bool

    @property
    def path(self) -> str:
        """The record's API path, e.g. `/api/v1/persons/tang-shengzhi/`."""
        return f"/api/v1/{_API_PATHS[self.type]}/{self.slug if self.slug is not None else self.id}/"


def _record_hits(query: Query, types: tuple[str, ...], fiction: str) -> list[Hit]:
    hits: list[Hit] = []
    for type_, snapshot in snapshots(types).items():
        for candidate, match, fictional in snapshot.matching(query):
            if fiction_kept(fictional, fiction):
                hits.append(Hit(type_, candidate.pk, candidate.slug, candidate.title, match.matched, match.snippet,
                                None, None, match.score, fictional))
    order = {t: i for i, t in enumerate(TYPES)}
    hits.sort(key=lambda hit: (hit.score, order[hit.type], hit.title, hit.id))
    return hits


def passage_snippet(text: str, key: str, context: int = SNIPPET_CONTEXT) -> tuple[str, int | None, int | None]:
    """The first match of `key` in `text`, marked in about `context` characters each side, and its offsets."""
    folded, origin = search_key_aligned(text)
    at = folded.find(key)
    if at < 0:  # the entry is stale: the text changed after it was indexed
        return escape(text[: 2 * context]) + ("…" if len(text) > 2 * context else ""), None, None
    start, end = origin[at], origin[at + len(key) - 1] + 1
    left, right = max(0, start - context), min(len(text), end + context)
    snippet = (
        ("…" if left > 0 else "")
        + escape(text[left:start])
        + f"<mark>{escape(text[start:end])}</mark>"
        + escape(text[end:right])
        + ("…" if right < len(text) else "")
    )
    return snippet, start, end


class RankedHits(Sequence[Hit]):
    """Records first, then passages a page at a time: the sequence a paginator slices.

    A kind of results gives its record hits (`records`), its passage count
    (`_count_passages`: the count, and whether it is exact) and a page of
    its passage hits (`_passage_page`); a slice reads only the passages it shows.
    """

    records: list[Hit]

    def _count_passages(self) -> tuple[int, bool]:
        raise NotImplementedError

    def _passage_page(self, first: int, last: int) -> list[Hit]:
        raise NotImplementedError

    @property
    def passage_count(self) -> int:
        """Passage hits: exact up to `EXACT_COUNT_UP_TO`, the planner's estimate beyond (see `count_exact`)."""
        return self._count_passages()[0]

    @property
    def count_exact(self) -> bool:
        return self._count_passages()[1]

    def __len__(self) -> int:
        return len(self.records) + self.passage_count

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> list[Hit]: ...

    def __getitem__(self, index: int | slice) -> Hit | list[Hit]:
        if isinstance(index, int):
            if index < 0:
                index += len(self)
            found = self[index : index + 1]
            if not found:
                raise IndexError(index)
            return found[0]
        start, stop, step = index.indices(len(self))
        if step != 1:
            raise ValueError("search results are sliced without a step")
        hits = self.records[start:stop]
        if stop <= len(self.records):
            return hits
        return hits + self._passage_page(max(0, start - len(self.records)), stop - len(self.records))


class SearchResults(RankedHits):
    """The hits of a query, ranked; records are computed at once, passages fetched a page at a time.

    Passage hits all score 4 and come last, so a slice needs only the records
    it overlaps and one page of passages (in archive order: source, then
    number; paged in the index table before any passage text is read).
    Passage hits are counted exactly up to `EXACT_COUNT_UP_TO`; a more common
    term reports an estimate, and `count_exact` says so. Its page is then
    read by walking the archive order (`index.ordered_walk`).
    """

    def __init__(self, query: str, *, fiction: str = "exclude", types: Collection[str] | None = None) -> None:
        self.query = Query.of(clean_query(query))
        self.fiction = clean_fiction(fiction)
        self.types = clean_types(types)
        self.records = _record_hits(self.query, self.types, self.fiction)
        self.entries = (
            visible_entries(self.query.key, fiction=self.fiction) if "passage" in self.types else None
        )
        self._passage_count: tuple[int, bool] | None = None

    def _count_passages(self) -> tuple[int, bool]:
        if self._passage_count is None:
            if self.entries is None:
                self._passage_count = (0, True)
            else:
                key, fiction, db = self.query.key, self.fiction, self.entries.db
                with planned_for_the_term(db):
                    self._passage_count = counting.count_or_estimate(
                        self.entries, EXACT_COUNT_UP_TO, lambda: estimate_visible(key, fiction=fiction, using=db)
                    )
        return self._passage_count

    def _passage_page(self, first: int, last: int) -> list[Hit]:
        if self.entries is None:
            return []
        page = self.entries.values_list("passage_id", flat=True)[first:last]
        if self.count_exact:  # few hits: found through the grams index, then sorted
            with planned_for_the_term(self.entries.db):
                ids = list(page)
        else:
            with ordered_walk(self.entries.db):
                ids = list(page)
        return self._passage_hits(ids)

    def _passage_hits(self, ids: list[int]) -> list[Hit]:
        if not ids:
            return []
        rows = Passage.objects.filter(pk__in=ids).values_list(
            "pk", "seq", "text", "source__title", "source__is_fiction"
        )
        passages = {row[0]: row for row in rows}
        hits = []
        for pk in ids:
            _pk, seq, text, source_title, fiction = passages[pk]
            snippet, start, end = passage_snippet(text, self.query.key)
            hits.append(Hit("passage", pk, None, f"{source_title} §{seq}", "text", snippet,
                            start, end, SCORE_PASSAGE, bool(fiction)))
        return hits


def find(query: str, *, fiction: str = "exclude", types: Collection[str] | None = None) -> SearchResults:
    """The lazy, paginable form of `search`: what the API pages through."""
    return SearchResults(query, fiction=fiction, types=types)


def search(query: str, *, fiction: str = "exclude", types: Collection[str] | None = None,
           limit: int | None = None) -> list[Hit]:
    """Approved records and passages matching `query`, sorted by (score, type order, title).

    Raises QueryError for an empty or over-long query or a bad parameter.
    """
    return find(query, fiction=fiction, types=types)[:limit]


def explain(query: str, *, fiction: str = "exclude", analyze: bool = False, page_size: int = 50) -> str:
    """The plan of the passage lookup for `query` (its first page) on the current database, as `find` runs it."""
    results = find(query, fiction=fiction, types=["passage"])
    assert results.entries is not None
    page = results.entries.values_list("passage_id", flat=True)[:page_size]
    options: dict[str, Any] = {"analyze": True} if analyze else {}
    if results.count_exact:
        return page.explain(**options)
    with ordered_walk(results.entries.db):
        return page.explain(**options)
