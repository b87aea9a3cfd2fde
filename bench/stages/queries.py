"""The API's SQL queries per request at two page sizes: the count must not grow with the page.

Every list endpoint is built at 40 and at 200 rows with the response cache
off; a query that grows with the page is named by the table it reads.
Neither is the default size of 50, whose pages as first shown are stored
whole once built and then answered in one statement (`archive.api.stored`):
what is counted here is building a page.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bench.figures import Figure, Run
from bench.measuring import captured_queries, client_get
from bench.stages.admin import ADMIN_QUERY

# The API's list endpoints; the passages of a source are added with a slug found at run time.
API_LISTS = ("sources", "persons", "units", "locations", "events", "citations")


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


SMALL_PAGE, LARGE_PAGE = 40, 200


def _page_queries(client: Any, path: str, size: int) -> tuple[Counter[str], int]:
    """SQL queries of one warm request of a page of `size` rows, by the table they read first; and the rows."""
    from django.test import override_settings

    url = f"{path}{'&' if '?' in path else '?'}page_size={size}"
    # What is counted is building the page: a response from the cache would cost one query.
    with override_settings(API_CACHE_SECONDS=0):
        client_get(client, url)  # warm: what a process does once (content types, cached lookups) is not counted
        with captured_queries() as captured:
            response = client_get(client, url)
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
        # 40 and 200 rows rather than 5: five rows may hold no place with a grandparent,
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
