"""Hostile requests against every page of the reading room: a clear 400 or 404, never a 5xx.

Each picture (home, timeline, map, order of battle) and a record page of each
kind is asked with the inputs that broke a page once or break the API's
parsers: dates at the ends of the calendar, NUL characters, lone surrogates,
huge numbers, very long values and repeated parameters.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from django.test import Client

from archive.client_address import forget_all_clients
from archive.models import Echelon, Event, Location, Person, Source, Status, Unit

pytestmark = pytest.mark.usefixtures("shipped")

LONG = "挹" * 5000
SURROGATE = "%ED%A0%80"  # the UTF-8 of U+D800, which no text may hold

# (name, raw query string)
HOSTILE: list[tuple[str, str]] = [
    ("from-calendar-start", "from=0001-01-01"),
    ("to-calendar-end", "to=9999-12-31T23:59:59-14:00"),
    ("from-calendar-end", "from=9999-12-31T23:00"),
    ("both-calendar-ends", "from=0001-01-01T00:00:00%2B14:00&to=9999-12-31T23:59:59-12:00"),
    ("to-before-from", "from=1937-12-14&to=1937-12-11"),
    ("date-huge-year", "from=" + "9" * 40 + "-01-01"),
    ("date-offset-junk", "to=1937-12-12T12:00%2B99:00"),
    ("date-nul", "from=1937-12-12%00"),
    ("date-surrogate", f"from={SURROGATE}"),
    ("date-long", f"to={LONG}"),
    ("repeated-dates", "from=1937-12-11&from=0001-01-01&to=1937-12-14&to=9999-12-31T23:59:59-14:00"),
    ("at-calendar-end", "at=9999-12-31T23:59:59-14:00"),
    ("at-outside-window", "at=1937-12-12T21:00&from=1938-01-01&to=1938-01-02"),
    ("at-surrogate", f"at={SURROGATE}"),
    ("at-long", f"at={LONG}"),
    ("group-junk", "group=%00"),
    ("group-unknown", "group=dragons"),
    ("fiction-junk", "fiction=maybe"),
    ("fiction-nul", "fiction=%00"),
    ("fiction-repeated", "fiction=include&fiction=only&fiction=dragons"),
    ("person-long", f"person={LONG}"),
    ("unit-surrogate", f"unit={SURROGATE}"),
    ("place-nul", "place=xia%00guan"),
    ("page-huge", "page=" + "9" * 40),
    ("page-negative", "page=-1"),
    ("page-unicode-digit", "page=%D9%A3"),
    ("page-surrogate", f"page={SURROGATE}"),
    ("nul-parameter-name", "ju%00nk=1"),
    ("surrogate-parameter-name", f"{SURROGATE}=1"),
    ("query-long", f"q={LONG}"),
    ("query-surrogate", f"q={SURROGATE}"),
    ("query-control", "q=%01%1F%7F"),
    ("format-nul", "format=ris%00"),
    ("many-parameters", "&".join(f"p{n}=1" for n in range(1000))),
]


def _paths() -> list[str]:
    paths = ["/", "/timeline/", "/map/", "/order-of-battle/", "/night/"]
    for model, route in ((Person, "people"), (Unit, "units"), (Location, "places"), (Event, "events"),
                         (Source, "sources")):
        field = "is_fiction" if model is Source else "fictional"
        record = model.objects.filter(status=Status.APPROVED, **{field: False}).order_by("slug").first()
        assert record is not None, model
        paths.append(f"/{route}/{record.slug}/")
    # The search page (its own query parameter too) and a page's reference file.
    paths += ["/search/", "/cite/people/tang-shengzhi/"]
    return paths


def test_every_page_answers_every_hostile_input_without_a_server_error() -> None:
    client = Client(raise_request_exception=False)
    failures = []
    for path in _paths():
        # Each page with a whole allowance: the room's rate (300 a minute) is not what is tested here, and
        # the 400-odd requests of a fast run would otherwise reach it.
        forget_all_clients()
        for name, query in HOSTILE:
            response = client.get(f"{path}?{query}")
            if response.status_code >= 500 or response.status_code not in (200, 400, 404):
                failures.append((path, name, response.status_code))
    assert failures == []


@pytest.mark.parametrize(
    "path", [f"/{route}/{SURROGATE}/" for route in ("people", "units", "places", "events", "sources")]
    + [f"/people/{'x' * 5000}/", "/people/a%00b/"],
)
def test_hostile_slugs_are_404(path: str) -> None:
    assert Client(raise_request_exception=False).get(path).status_code == 404


@pytest.mark.parametrize("page", ["/timeline/", "/map/", "/night/"])
@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("from=0001-01-01", "from"),
        ("to=9999-12-31T23:59:59-14:00", "to"),
        ("from=1937-12-11&to=9999-12-31T20:00:00Z", "to"),
        ("from=0001-01-01T00:00:00%2B14:00", "from"),
    ],
)
def test_dates_beyond_the_calendar_are_a_400_naming_the_parameter(page: str, query: str, parameter: str) -> None:
    response = Client().get(f"{page}?{query}")
    assert response.status_code == 400
    text = response.content.decode()
    assert f"“{parameter}”" in text
    assert "beyond the calendar" in text


def test_the_widest_window_the_calendar_allows_still_answers() -> None:
    for page in ("/timeline/", "/map/", "/night/"):
        response = Client().get(page, {"from": "0001-01-02", "to": "9999-12-30"})
        assert response.status_code == 200, page


def _nested_units(depth: int) -> list[Unit]:
    """A chain of `depth` approved units, each part of the one before it, written in bulk."""
    chain = Unit.objects.bulk_create(
        Unit(slug=f"deep-{level}", name=f"深层{level}", echelon=Echelon.DETACHMENT, status=Status.APPROVED)
        for level in range(depth))
    for parent, child in itertools.pairwise(chain):
        child.parent = parent
    Unit.objects.bulk_update(chain, ["parent"])
    return chain


def test_the_order_of_battle_shows_500_nested_units() -> None:
    chain = _nested_units(500)
    response: Any = Client().get("/order-of-battle/")
    assert response.status_code == 200
    html = response.content.decode()
    for unit in (chain[0], chain[250], chain[-1]):
        assert f'id="unit-{unit.slug}"' in html
    # Every list and branch the page opens, it closes: the deepest unit sits inside all 500.
    assert html.count("<details") == html.count("</details>")
    assert len(re.findall(r"<li[ >]", html)) == html.count("</li>")
    assert html.count("<ul") == html.count("</ul>")
    deepest = html.index('id="unit-deep-499"')
    assert html[:deepest].count("<details") - html[:deepest].count("</details>") >= 499
