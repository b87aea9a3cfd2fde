"""The night at a glance on the shipped collection: who was where at 21:00 on 12 December, and by which source."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from archive.room.night import Span, positions_at
from archive.room.reading import NANJING

NIGHT = "/night/?at=1937-12-12T21:00"


def _rows(html: str) -> list[dict[str, str]]:
    """The table of who was where: each row's who, place and the text of its cells."""
    found = []
    for match in re.finditer(r'<tr data-who="([^"]+)" data-place="([^"]+)"[^>]*>(.*?)</tr>', html, re.S):
        raw = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", match[3], re.S)
        cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in raw]
        found.append({"who": match[1], "place": match[2], "cells": cells})
    return found


@pytest.mark.usefixtures("shipped")
def test_at_21_00_tang_shengzhi_is_at_the_pier_and_the_74th_army_crossing() -> None:
    response = Client().get(NIGHT)
    assert response.status_code == 200
    rows = _rows(response.content.decode())
    tang = [row for row in rows if row["who"] == "person:tang-shengzhi"]
    # The narrowest account of the night (the launch leaving at 9-something) places him at the pier only.
    assert [row["place"] for row in tang] == ["meitangang"]
    army = [row for row in rows if row["who"] == "unit:74th-army"]
    assert army and all("第74军小火轮" in row["cells"][2] for row in army)
    # Every position names its source.
    assert all(row["cells"][4] for row in rows)


@pytest.mark.usefixtures("shipped")
def test_the_order_of_battle_beside_the_map_lists_who_commanded(client: Client) -> None:
    html = client.get(NIGHT).content.decode()
    assert 'data-unit="74th-army"' in html
    assert "唐生智" in html.split('class="command-list"')[1]


@pytest.mark.usefixtures("shipped")
@pytest.mark.parametrize("query", [
    "at=zz", "at=1937-13-40T25:00", "at=99999-01-01", "at=0001-01-01T00:00%2B14:00",
    "at=1937-12-12T21:00&from=1937-12-13", "at=1937-12-12T21:00&to=1937-12-01", "fiction=sometimes",
    "at=1937-12-12T21:00&from=x",
])
def test_a_bad_moment_is_a_400_naming_it(client: Client, query: str) -> None:
    response = client.get(f"/night/?{query}")
    assert response.status_code == 400
    assert re.search(r"\b(at|from|to|fiction)\b", response.content.decode())


@pytest.mark.usefixtures("shipped")
def test_the_timeline_group_is_checked(client: Client) -> None:
    assert client.get("/timeline/?group=unit").status_code == 200
    response = client.get("/timeline/?group=people")
    assert response.status_code == 400
    assert "group" in response.content.decode()


@pytest.mark.usefixtures("shipped")
def test_the_night_costs_the_same_queries_for_a_wider_window(client: Client) -> None:
    def count(query: str) -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/night/?{query}")
        assert response.status_code == 200
        return len(queries), len(_rows(response.content.decode()))

    night, shown_at_night = count("at=1937-12-12T21:00")
    days, _ = count("at=1937-12-12T21:00&from=1937-12-01&to=1937-12-31")
    assert shown_at_night > 20
    assert days == night
    assert night <= 40


def _span(who: str, place: str, source: str, hours: tuple[int, int]) -> Span:
    day = dt.datetime(1937, 12, 12, tzinfo=NANJING)
    return Span({"key": who, "name": who}, "participant", {"slug": f"{who}-{place}", "title": place},
                {"slug": place, "name": place, "radius": 100.0}, day + dt.timedelta(hours=hours[0]),
                day + dt.timedelta(hours=hours[1]), "", [source], "history", False)


def test_two_sources_that_disagree_both_keep_their_position() -> None:
    moment = dt.datetime(1937, 12, 12, 21, 0, tzinfo=NANJING)
    spans = [
        _span("tang", "pier", "history", (21, 22)),
        _span("tang", "city", "history", (17, 23)),
        _span("tang", "pukou", "memoir", (20, 22)),
        _span("tang", "wuhan", "memoir", (0, 12)),
    ]
    shown = [(p.place["slug"], p.sources) for p in positions_at(spans, moment)]
    # Of each source the narrowest account covering the moment; the two sources side by side.
    assert sorted(shown) == [("pier", ["history"]), ("pukou", ["memoir"])]


def test_no_account_covering_the_moment_places_nobody() -> None:
    moment = dt.datetime(1937, 12, 13, 21, 0, tzinfo=NANJING)
    assert positions_at([_span("tang", "pier", "history", (21, 22))], moment) == []
