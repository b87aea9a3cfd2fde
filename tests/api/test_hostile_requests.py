"""Hostile requests against every endpoint of the API: a clear 4xx, never a 5xx.

Every route of the API (each list, each detail with a real slug or id, the
passages of a source, search, the root, the schema and its docs) is asked
with each hostile input found so far: HTML and the browsable format, dates
at the ends of the calendar, NUL characters, absurd page numbers, unknown
parameters, long values. The walk runs on SQLite and on PostgreSQL, where a
NUL byte in a query string and a date past year 9999 once gave a 500.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.api.conftest import ApiClient
from tests.api.world import World

LONG = "挹" * 5000

# (name, query parameters, headers)
HOSTILE: list[tuple[str, dict[str, str], dict[str, str]]] = [
    ("accept-html", {}, {"HTTP_ACCEPT": "text/html"}),
    ("accept-html-first", {}, {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}),
    ("accept-nonsense", {}, {"HTTP_ACCEPT": "x/y; q=abc, ;;;"}),
    ("accept-json-indent", {}, {"HTTP_ACCEPT": "application/json; indent=999999999999"}),
    ("format-api", {"format": "api"}, {}),
    ("format-unknown", {"format": "docx"}, {}),
    ("format-nul", {"format": "js\x00on"}, {}),
    ("after-calendar-start", {"after": "0001-01-01"}, {}),
    ("before-calendar-end", {"before": "9999-12-31T23:59:59-12:00"}, {}),
    ("after-calendar-end", {"after": "9999-12-31T23:59:59-12:00"}, {}),
    ("before-calendar-start", {"before": "0001-01-01T00:00:00+14:00"}, {}),
    ("before-microseconds", {"before": "2100-01-01T00:00:00.000001"}, {}),
    ("q-nul", {"q": "唐\x00生智"}, {}),
    ("q-only-nul", {"q": "\x00"}, {}),
    ("q-long", {"q": LONG}, {}),
    ("slug-filter-nul", {"person": "tang\x00"}, {}),
    ("slug-filter-long", {"location": LONG}, {}),
    ("fiction-junk", {"fiction": "maybe"}, {}),
    ("fiction-nul", {"fiction": "\x00"}, {}),
    ("page-zero", {"page": "0"}, {}),
    ("page-negative", {"page": "-1"}, {}),
    ("page-huge", {"page": "9" * 40}, {}),
    ("page-size-huge", {"page_size": "1e9"}, {}),
    ("page-size-nul", {"page_size": "5\x00"}, {}),
    ("unknown-parameter", {"junk": "1"}, {}),
    ("nul-parameter-name", {"ju\x00nk": "1"}, {}),
    ("type-junk", {"type": "person,,dragon"}, {}),
    ("language-junk", {}, {"HTTP_ACCEPT_LANGUAGE": "xx-" + "y" * 300}),
]


def endpoints(world: World) -> list[str]:
    passage = world.passage(world.history, 1)
    citation = passage.citations.order_by("pk").first()
    paths = [
        "/api/v1/",
        "/api/schema/",
        "/api/docs/",
        "/api/v1/search/?q=唐",
        "/api/v1/sources/",
        f"/api/v1/sources/{world.history.slug}/",
        f"/api/v1/sources/{world.history.slug}/passages/",
        f"/api/v1/passages/{passage.pk}/",
        "/api/v1/persons/",
        f"/api/v1/persons/{world.tang.slug}/",
        "/api/v1/units/",
        "/api/v1/units/army-74/",
        "/api/v1/locations/",
        "/api/v1/locations/nanjing/",
        "/api/v1/events/",
        "/api/v1/events/retreat-order/",
        "/api/v1/citations/",
    ]
    if citation is not None:
        paths.append(f"/api/v1/citations/{citation.pk}/")
    return paths


def _get(client: Client, path: str, params: dict[str, str], headers: dict[str, str]) -> Any:
    base, _, fixed = path.partition("?")
    query = dict(part.split("=", 1) for part in fixed.split("&") if part)
    return client.get(base, {**query, **params}, **headers)


def test_every_endpoint_answers_every_hostile_input_without_a_server_error(world: World, api: ApiClient) -> None:
    failures = []
    for path in endpoints(world):
        for name, params, headers in HOSTILE:
            response = _get(api, path, params, headers)
            if response.status_code >= 500:
                failures.append((path, name, response.status_code, response.content[:200]))
    assert failures == []


@pytest.mark.parametrize("path", ["/api/v1/persons/", "/api/v1/events/retreat-order/", "/api/v1/search/?q=唐"])
def test_html_is_refused_with_406_or_the_browsable_format_with_404(world: World, api: ApiClient, path: str) -> None:
    html = _get(api, path, {}, {"HTTP_ACCEPT": "text/html"})
    assert html.status_code == 406
    assert html["Content-Type"].startswith("application/json")
    assert _get(api, path, {"format": "api"}, {}).status_code == 404


def test_the_api_root_answers_html_with_the_browsable_page(world: World, api: ApiClient) -> None:
    page = api.get("/api/v1/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("after", "0001-01-01"),
        ("before", "9999-12-31T23:59:59-12:00"),
        ("after", "9999-12-31T23:59:59-12:00"),
        ("before", "0001-01-01T00:00:00+14:00"),
    ],
)
def test_dates_at_the_ends_of_the_calendar_are_a_400_naming_the_parameter(
    world: World, api: ApiClient, param: str, value: str
) -> None:
    body = api.json("/api/v1/events/", 400, **{param: value})
    assert list(body) == [param]
    assert "calendar" in body[param][0]


def test_the_last_days_the_calendar_can_compare_still_answer(world: World, api: ApiClient) -> None:
    assert api.json("/api/v1/events/", after="0001-01-02", before="9999-12-31")["count"] >= 0


def test_a_nul_character_in_the_search_query_is_a_400_naming_q(world: World, api: ApiClient) -> None:
    body = api.json("/api/v1/search/", 400, q="唐\x00生智")
    assert list(body) == ["q"]


@pytest.mark.parametrize(
    "path", ["/api/v1/persons/", "/api/v1/persons/tang-shengzhi/", "/api/v1/search/?q=唐",
             "/api/v1/sources/history/passages/"]
)
def test_an_unknown_parameter_is_a_400_naming_it_and_what_the_endpoint_takes(
    world: World, api: ApiClient, path: str
) -> None:
    response = _get(api, path, {"junk": "1", "utm_source": "x"}, {})
    assert response.status_code == 400
    body = response.json()
    assert sorted(body) == ["junk", "utm_source"]
    assert "format" in body["junk"][0]
