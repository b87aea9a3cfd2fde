"""The shape of the API as DESIGN.md's contract names it, endpoint by endpoint."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
CITATION_KEYS = {"id", "source", "passage", "seq", "quote", "claim", "rank"}
REF_KEYS = {"slug", "name", "url"}


def _by_slug(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {record["slug"]: record for record in results}


def _assert_citations(citations: list[dict[str, Any]]) -> None:
    for citation in citations:
        assert set(citation) >= CITATION_KEYS
        assert set(citation["source"]) == REF_KEYS
        assert citation["passage"].startswith("http://testserver/api/v1/passages/")


def test_every_list_paginates_with_count_next_previous_results(world: World, api: ApiClient) -> None:
    for endpoint in ("sources", "persons", "units", "locations", "events", "citations", "sources/history/passages"):
        body = api.json(f"{BASE}/{endpoint}/", page_size=1)
        assert set(body) == {"count", "next", "previous", "results"}, endpoint
        assert len(body["results"]) == 1
        assert body["previous"] is None
        if body["count"] > 1:
            assert "page=2" in body["next"]


def test_every_record_carries_url_slug_fictional_and_citations(world: World, api: ApiClient) -> None:
    for endpoint in ("persons", "units", "locations", "events"):
        for record in api.json(f"{BASE}/{endpoint}/", fiction="include")["results"]:
            assert {"url", "slug", "fictional", "citations"} <= set(record), endpoint
            assert record["url"].endswith(f"/api/v1/{endpoint}/{record['slug']}/")
            _assert_citations(record["citations"])
            assert api.json(record["url"])["slug"] == record["slug"]


def test_person_has_names_posts_participations_each_with_citations(world: World, api: ApiClient) -> None:
    tang = api.json(f"{BASE}/persons/tang-shengzhi/")
    assert tang["fictional"] is False
    assert [name["name"] for name in tang["names"]] == ["Tang Shengzhi", "唐司令"]
    [post] = tang["posts"]
    assert post["unit"] == {"slug": "army-74", "name": "第七十四军", "url": "http://testserver/api/v1/units/army-74/"}
    assert post["title"] == "司令长官"
    assert [c["claim"] for c in post["citations"]] == ["=cmd|' /C calc'!A0"]
    [part] = tang["participations"]
    assert part["role"] == "commander"
    assert part["event"]["slug"] == "retreat-order"
    assert set(part["event"]) == REF_KEYS
    assert [c["claim"] for c in part["citations"]] == ["gave the order"]
    [claim] = tang["citations"]
    assert claim["claim"] == "ordered the retreat"
    assert claim["source"] == {"slug": "history", "name": "Title history", "url": "http://testserver/api/v1/sources/history/"}
    assert claim["seq"] == 1
    assert claim["quote"] == "唐生智在南京下令撤退"


def test_unit_has_parent_children_and_posts(world: World, api: ApiClient) -> None:
    army = api.json(f"{BASE}/units/army-74/")
    assert army["parent"] is None
    assert [child["slug"] for child in army["children"]] == ["div-51"]
    assert [post["person"]["slug"] for post in army["posts"]] == ["tang-shengzhi"]
    assert [alias["name"] for alias in army["aliases"]] == ["74军"]
    division = api.json(f"{BASE}/units/div-51/")
    assert division["parent"] == {"slug": "army-74", "name": "第七十四军", "url": "http://testserver/api/v1/units/army-74/"}


def test_location_has_parent_with_its_parent_aliases_and_coordinates(world: World, api: ApiClient) -> None:
    gate = api.json(f"{BASE}/locations/yijiang-gate/")
    assert gate["parent"] == {"slug": "nanjing", "name": "南京", "url": "http://testserver/api/v1/locations/nanjing/",
                              "parent": None}
    assert gate["latitude"] == pytest.approx(32.0905)
    assert gate["longitude"] == pytest.approx(118.7522)
    wharf = api.json(f"{BASE}/locations/meitan-wharf/")
    assert wharf["parent"]["slug"] == "xiaguan"
    assert wharf["parent"]["parent"]["slug"] == "nanjing"
    assert wharf["latitude"] is None
    nanjing = api.json(f"{BASE}/locations/nanjing/")
    assert [alias["name"] for alias in nanjing["aliases"]] == ["金陵"]


def test_event_has_locations_parent_children_participations_citations(world: World, api: ApiClient) -> None:
    order = api.json(f"{BASE}/events/retreat-order/")
    assert order["locations"] == [{"slug": "nanjing", "name": "南京", "url": "http://testserver/api/v1/locations/nanjing/",
                                   "parent": None}]
    assert [child["slug"] for child in order["children"]] == ["crossing"]
    assert order["parent"] is None
    [part] = order["participations"]
    assert part["person"]["slug"] == "tang-shengzhi"
    assert part["unit"] is None
    assert [c["claim"] for c in part["citations"]] == ["gave the order"]
    assert [c["claim"] for c in order["citations"]] == ["the order was given at 17:00"]
    crossing = api.json(f"{BASE}/events/crossing/")
    assert crossing["parent"]["slug"] == "retreat-order"
    assert crossing["locations"][0]["parent"]["slug"] == "xiaguan"


def test_sources_passages_and_citations(world: World, api: ApiClient) -> None:
    history = api.json(f"{BASE}/sources/history/")
    assert history["kind"] == "history"
    assert history["language"] == "zh-Hans"
    assert history["sha256"] == world.history.sha256
    assert history["file_name"] == "history.txt"
    passages = api.json(history["passages"])["results"]
    assert [p["seq"] for p in passages] == [1, 2, 3, 4]
    first = passages[0]
    assert first["text"] == world.passage(world.history, 1).text
    assert (first["start"], first["end"], first["role"]) == (0, len(first["text"]), "body")
    assert {c["claim"] for c in first["citations"]} >= {"ordered the retreat", "in Nanjing"}
    assert api.json(first["url"]) == first
    citation = api.json(first["citations"][0]["url"])
    assert citation["quote"] == first["text"][citation["start"]:citation["end"]]
    assert set(citation["target"]) == {"type", "slug", "name", "url"}


def test_events_are_chronological_with_undated_last(world: World, api: ApiClient) -> None:
    slugs = [event["slug"] for event in api.json(f"{BASE}/events/", fiction="include")["results"]]
    assert slugs == ["retreat-order", "crossing", "breakout", "undated"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"after": "1937-12-12T18:00"}, ["crossing"]),
        ({"after": "1937-12-12"}, ["retreat-order", "crossing"]),
        ({"before": "1937-12-12T17:30"}, ["retreat-order"]),
        ({"before": "1937-12-11"}, []),
        ({"after": "1937-12-12T17:30", "before": "1937-12-12T17:45"}, ["retreat-order"]),
        ({"after": "1937-12-12T17:30+08:00"}, ["retreat-order", "crossing"]),
        ({"person": "tang-shengzhi"}, ["retreat-order"]),
        ({"location": "nanjing"}, ["retreat-order", "crossing"]),
        ({"location": "xiaguan"}, ["crossing"]),
        ({"location": "yijiang-gate", "fiction": "include"}, ["breakout"]),
        ({"kind": "crossing"}, ["crossing"]),
        ({"source": "history"}, ["retreat-order", "crossing"]),
        ({"source": "novel", "fiction": "include"}, ["breakout"]),
        ({"fiction": "only"}, ["breakout"]),
    ],
)
def test_event_filters(world: World, api: ApiClient, params: dict[str, str], expected: list[str]) -> None:
    assert [event["slug"] for event in api.json(f"{BASE}/events/", **params)["results"]] == expected


def test_unit_filter_finds_events_of_a_unit(world: World, api: ApiClient) -> None:
    from archive.models import Participation
    from tests.factories import approved

    approved(Participation(slug="army-crosses", event=world.crossing, unit=world.army74, role="participant"))
    assert [e["slug"] for e in api.json(f"{BASE}/events/", unit="army-74")["results"]] == ["crossing"]


def test_nested_citations_are_what_their_documented_serializer_gives(world: World, api: ApiClient) -> None:
    from rest_framework.test import APIRequestFactory

    from archive import selectors
    from archive.api.serializers import NestedCitationSerializer, nested_citation

    request = APIRequestFactory().get("/api/v1/events/")
    citations = list(selectors.citations())
    assert citations
    for citation in citations:
        documented = NestedCitationSerializer(citation, context={"request": request}).data
        assert nested_citation(citation, request) == documented
