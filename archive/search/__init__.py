"""One search interface over names, aliases and passage text, read as a historian reads Chinese.

A query is folded the way the texts are (NFKC, Traditional -> Simplified,
case; see `keys`), so 蕪湖 finds 芜湖 and 孙百里 finds 孫百里; a romanised
query is compared with the toneless pinyin of names (`tang shengzhi`), and a
Chinese one with their sound too (周澜 finds 周斓). Terms of one or two
characters match inside passages, since Chinese has no spaces.

Records (persons, units, places, events, sources) are matched in Python
(`records`) against an in-memory snapshot of the approved ones that is
rebuilt when the data changes (`snapshot`); passages are many and looked up
in an index (`index`) with an engine-specific technique behind one function. Public results contain
only approved records and passages of approved sources; fiction follows the
`fiction` parameter. `filter_queryset` serves the admin's search boxes and
does not filter by status, because curators must find drafts.

To keep the passage index current, call `reindex(objects)` (or
`index_record(record)`) after passages are written, or run the
`rebuild_search_index` command after a bulk load.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, overload

from django.db import models

from archive import counting
from archive.models import Citation, Event, Location, Passage, Person, Source, Unit

from .citations import matching_citations
from .index import SearchBackendError, estimate_visible, ordered_walk, rebuild, reindex, stale_count, visible_entries
from .index import matching_entries as _matching_entries
from .keys import normalise_query, search_key, search_key_aligned
from .records import KINDS, SCORE_PASSAGE, Query
from .snapshot import snapshots

__all__ = [
    "FICTION_CHOICES",
    "MAX_QUERY_LENGTH",
    "TYPES",
    "Hit",
    "QueryError",
    "SearchBackendError",
    "SearchResults",
    "explain",
    "filter_queryset",
    "find",
    "index_record",
    "rebuild",
    "reindex",
    "search",
    "stale_count",
]

TYPES = ("person", "unit", "location", "event", "source", "passage")
FICTION_CHOICES = ("exclude", "include", "only")
MAX_QUERY_LENGTH = 100
# Curators paste whole quotes into the admin's search box.
MAX_ADMIN_QUERY_LENGTH = 1000
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


class QueryError(ValueError):
    """A query or parameter the search refuses; `param` names the parameter."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.message = message


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


# ---------------------------------------------------------------- parameters


def clean_query(query: Any, *, max_length: int = MAX_QUERY_LENGTH) -> str:
    if not isinstance(query, str):
        raise QueryError("q", "The query must be text.")
    text = normalise_query(query)
    if not text or not search_key(text).strip():
        raise QueryError("q", "The query is empty.")
    if len(text) > max_length:
        raise QueryError("q", f"The query is longer than {max_length} characters.")
    return text


def clean_fiction(fiction: Any) -> str:
    if fiction not in FICTION_CHOICES:
        raise QueryError("fiction", f"fiction must be one of {', '.join(FICTION_CHOICES)}, not {fiction!r}.")
    return str(fiction)


def clean_types(types: Collection[str] | None) -> tuple[str, ...]:
    if not types:
        return TYPES
    if isinstance(types, str):
        types = [types]
    unknown = sorted(set(types) - set(TYPES))
    if unknown:
        raise QueryError("type", f"Unknown type {', '.join(unknown)}; the types are {', '.join(TYPES)}.")
    return tuple(t for t in TYPES if t in types)


def _keep(fictional: bool, fiction: str) -> bool:
    return fiction == "include" or (fiction == "only") == fictional


# ---------------------------------------------------------------- search


def _record_hits(query: Query, types: tuple[str, ...], fiction: str) -> list[Hit]:
    hits: list[Hit] = []
    for type_, snapshot in snapshots(types).items():
        for candidate, match, fictional in snapshot.matching(query):
            if _keep(fictional, fiction):
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


class SearchResults(Sequence[Hit]):
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
                self._passage_count = counting.count_or_estimate(
                    self.entries, EXACT_COUNT_UP_TO, lambda: estimate_visible(key, fiction=fiction, using=db)
                )
        return self._passage_count

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
        if self.entries is None or stop <= len(self.records):
            return hits
        first, last = max(0, start - len(self.records)), stop - len(self.records)
        page = self.entries.values_list("passage_id", flat=True)[first:last]
        if self.count_exact:  # few hits: found through the grams index, then sorted
            ids = list(page)
        else:
            with ordered_walk(self.entries.db):
                ids = list(page)
        return hits + self._passage_hits(ids)

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


def index_record(record: Any) -> int:
    """Bring the index up to date for one record (a passage or a source; others need nothing)."""
    return reindex([record])


# ---------------------------------------------------------------- admin


_ADMIN_KINDS: dict[type[models.Model], str] = {
    Person: "person",
    Unit: "unit",
    Location: "location",
    Event: "event",
    Source: "source",
}


def _matching_ids(model: type[models.Model], queryset: models.QuerySet, query: Query) -> list[int]:
    """The ids of the records of `model`, of any status, whose names match; callers keep those of `queryset`.

    Looked up in the snapshot of every status, not by reading `queryset`:
    a filter by `pk__in` gives the same records without a scan of the names.
    """
    kind = KINDS[_ADMIN_KINDS[model]]
    found = snapshots([kind.type], every_status=True)[kind.type].matching(query)
    return [record.pk for record, _match, _fictional in found]


def filter_queryset(queryset: models.QuerySet, query: str) -> models.QuerySet:
    """Restrict `queryset` to records whose folded names, aliases, pinyin or text match `query`.

    For the admin's search boxes: every status is kept, since curators look
    for drafts. An empty query leaves the queryset as it is.
    """
    if not normalise_query(query if isinstance(query, str) else ""):
        return queryset
    parsed = Query.of(clean_query(query, max_length=MAX_ADMIN_QUERY_LENGTH))
    model = queryset.model
    if model in _ADMIN_KINDS:
        return queryset.filter(pk__in=_matching_ids(model, queryset, parsed))
    if model is Passage:
        return queryset.filter(pk__in=_matching_entries(parsed.key).values("passage_id"))
    if model is Citation:
        return queryset.filter(pk__in=matching_citations(queryset, parsed, _matching_ids))
    raise TypeError(f"filter_queryset does not know how to search {model.__name__}")
