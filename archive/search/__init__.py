"""One search interface over names, aliases and passage text, read as a historian reads Chinese.

A query is folded the way the texts are (NFKC, Traditional -> Simplified,
case; see `keys`), so 蕪湖 finds 芜湖 and 孙百里 finds 孫百里; a romanised
query is compared with the toneless pinyin of names (`tang shengzhi`), and a
Chinese one with their sound too (周澜 finds 周斓). Terms of one or two
characters match inside passages, since Chinese has no spaces.

The package's modules, in the order a query meets them:

- `query`: the parameters a search accepts (`QueryError` names the bad one);
- `results`: the public search (`search`, `find`, `explain`), records first,
  then passages a page at a time;
- `records` and `snapshot`: records matched in Python against an in-memory
  snapshot of them, rebuilt when the data changes;
- `index`: the passage index, an engine-specific technique behind one
  function, and its upkeep (`reindex`, `index_record`, `rebuild`);
- `as_of`: the same search in the archive as published at a moment or in a
  release, read from the history;
- `admin_filter` and `citations`: the admin's search boxes, which keep every
  status because curators must find drafts.

Public results contain only approved records and passages of approved
sources; fiction follows the `fiction` parameter. To keep the passage index
current, call `reindex(objects)` (or `index_record(record)`) after passages
are written, or run the `rebuild_search_index` command after a bulk load.

Everything callers use is re-exported here, so `from archive import search`
and `search.search(...)` stay the one way in.
"""

from __future__ import annotations

from .admin_filter import filter_queryset, matching_record_ids
from .as_of import REWRITTEN_LIMIT, AsOfResults, find_as_of
from .citations import matching_citations
from .index import (
    SearchBackendError,
    estimate_visible,
    index_record,
    matching_entries,
    ordered_walk,
    rebuild,
    reindex,
    stale_count,
    visible_entries,
)
from .keys import normalise_query, search_key, search_key_aligned
from .query import (
    FICTION_CHOICES,
    MAX_ADMIN_QUERY_LENGTH,
    MAX_QUERY_LENGTH,
    TYPES,
    QueryError,
    clean_fiction,
    clean_query,
    clean_types,
    fiction_kept,
)
from .records import KINDS, SCORE_PASSAGE, Query
from .results import EXACT_COUNT_UP_TO, SNIPPET_CONTEXT, Hit, SearchResults, explain, find, passage_snippet, search
from .snapshot import snapshots

__all__ = [
    "EXACT_COUNT_UP_TO",
    "FICTION_CHOICES",
    "KINDS",
    "MAX_ADMIN_QUERY_LENGTH",
    "MAX_QUERY_LENGTH",
    "REWRITTEN_LIMIT",
    "SCORE_PASSAGE",
    "SNIPPET_CONTEXT",
    "TYPES",
    "AsOfResults",
    "Hit",
    "Query",
    "QueryError",
    "SearchBackendError",
    "SearchResults",
    "clean_fiction",
    "clean_query",
    "clean_types",
    "estimate_visible",
    "explain",
    "fiction_kept",
    "filter_queryset",
    "find",
    "find_as_of",
    "index_record",
    "matching_citations",
    "matching_entries",
    "matching_record_ids",
    "normalise_query",
    "ordered_walk",
    "passage_snippet",
    "rebuild",
    "reindex",
    "search",
    "search_key",
    "search_key_aligned",
    "snapshots",
    "stale_count",
    "visible_entries",
]
