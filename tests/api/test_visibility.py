"""Nothing that is not approved is seen, and fiction is shown only when asked for.

The planted records of `tests.api.world` carry the marker SECRET; every
endpoint is walked in every format and every fiction mode, details included,
and the marker must never appear in a body.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from archive.models import Citation, Passage
from tests.api.conftest import ApiClient
from tests.api.world import MARK, World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
LISTS = {
    "sources": ["json", "csl"],
    "persons": ["json", "csv"],
    "units": ["json", "csv"],
    "locations": ["json", "csv", "geojson", "lpf"],
    "events": ["json", "csv"],
    "citations": ["json", "annotation"],
}
DETAIL_FORMATS = {"sources": ["json", "csl"], "locations": ["json", "geojson", "lpf"],
                  "citations": ["json", "annotation"]}


def _body(api: ApiClient, path: str, **params: Any) -> str:
    response = api.get(path, params)
    assert response.status_code == 200, (path, params, response.status_code, response.content[:300])
    return response.content.decode()


def _walk(api: ApiClient) -> dict[str, str]:
    """Every list, page and detail in every format and fiction mode: path -> body."""
    bodies: dict[str, str] = {}
    for endpoint, formats in LISTS.items():
        for fiction in ("exclude", "include", "only"):
            for fmt in formats:
                bodies[f"{endpoint}?fiction={fiction}&format={fmt}"] = _body(
                    api, f"{BASE}/{endpoint}/", fiction=fiction, format=fmt, page_size=200
                )
        records = json.loads(bodies[f"{endpoint}?fiction=include&format=json"])["results"]
        for record in records:
            for fiction in ("exclude", "include"):
                for fmt in DETAIL_FORMATS.get(endpoint, ["json"]):
                    bodies[f"{record['url']}?fiction={fiction}&format={fmt}"] = _body(
                        api, record["url"], fiction=fiction, format=fmt
                    )
    for source in json.loads(bodies["sources?fiction=include&format=json"])["results"]:
        page = json.loads(_body(api, source["passages"], page_size=200))
        bodies[source["passages"]] = json.dumps(page, ensure_ascii=False)
        for passage in page["results"]:
            bodies[passage["url"]] = _body(api, passage["url"], fiction="include")
    return bodies


def test_no_planted_record_appears_anywhere(world: World, api: ApiClient) -> None:
    bodies = _walk(api)
    assert len(bodies) > 100
    leaks = {path for path, body in bodies.items() if MARK.lower() in body.lower()}
    assert leaks == set()


def test_planted_records_have_no_detail(world: World, api: ApiClient) -> None:
    for status in ("draft", "in-review", "rejected"):
        for endpoint, kind in (("sources", "source"), ("persons", "person"), ("units", "unit"),
                               ("locations", "location"), ("events", "event")):
            assert api.get(f"{BASE}/{endpoint}/secret-{status}-{kind}/").status_code == 404
            assert api.get(f"{BASE}/{endpoint}/secret-{status}-{kind}/", {"fiction": "include"}).status_code == 404
        assert api.get(f"{BASE}/sources/secret-{status}-source/passages/").status_code == 404
    for passage in world.secret_passages:
        assert api.get(f"{BASE}/passages/{passage.pk}/").status_code == 404
    hidden_citations = Citation.objects.exclude(status="approved").values_list("pk", flat=True)
    hanging = Citation.objects.filter(claim__contains=MARK, status="approved").values_list("pk", flat=True)
    assert len(hidden_citations) == 3
    assert len(hanging) == 3 * 7
    for pk in [*hidden_citations, *hanging]:
        assert api.get(f"{BASE}/citations/{pk}/").status_code == 404
        assert api.get(f"{BASE}/citations/{pk}/", {"format": "annotation"}).status_code == 404


def test_counts_do_not_count_hidden_records(world: World, api: ApiClient) -> None:
    counts = {endpoint: api.json(f"{BASE}/{endpoint}/", fiction="include")["count"] for endpoint in LISTS}
    assert counts == {"sources": 2, "persons": 3, "units": 2, "locations": 4, "events": 4, "citations": 13}
    assert api.json(f"{BASE}/sources/history/passages/")["count"] == Passage.objects.filter(
        source=world.history).count()


def test_children_hide_unapproved_children(world: World, api: ApiClient) -> None:
    assert [c["slug"] for c in api.json(f"{BASE}/units/army-74/")["children"]] == ["div-51"]
    assert [c["slug"] for c in api.json(f"{BASE}/events/retreat-order/")["children"]] == ["crossing"]


def test_location_filter_ignores_hidden_places_and_hidden_slugs_are_unknown(world: World, api: ApiClient) -> None:
    response = api.get(f"{BASE}/events/", {"location": "secret-draft-location"})
    assert response.status_code == 400
    assert "location" in response.json()
    response = api.get(f"{BASE}/events/", {"person": "secret-in-review-person"})
    assert response.status_code == 400
    assert "person" in response.json()


# --- fiction --------------------------------------------------------------------------------


def _slugs(api: ApiClient, endpoint: str, **params: Any) -> list[str]:
    return [record["slug"] for record in api.json(f"{BASE}/{endpoint}/", **params)["results"]]


def test_fiction_is_excluded_by_default_included_or_alone_on_request(world: World, api: ApiClient) -> None:
    assert set(_slugs(api, "persons")) == {"tang-shengzhi", "matsui-iwane"}
    assert set(_slugs(api, "persons", fiction="include")) == {"tang-shengzhi", "matsui-iwane", "sun-baili"}
    assert _slugs(api, "persons", fiction="only") == ["sun-baili"]
    assert _slugs(api, "sources") == ["history"]
    assert _slugs(api, "sources", fiction="only") == ["novel"]
    assert "breakout" not in _slugs(api, "events")
    assert _slugs(api, "events", fiction="only") == ["breakout"]
    citations = api.json(f"{BASE}/citations/")["results"]
    assert {c["source"]["slug"] for c in citations} == {"history"}
    assert all(c["fictional"] for c in api.json(f"{BASE}/citations/", fiction="only")["results"])


def test_a_historical_person_shows_no_claim_of_the_novel_by_default(world: World, api: ApiClient) -> None:
    matsui = api.json(f"{BASE}/persons/matsui-iwane/")
    assert matsui["fictional"] is False
    assert matsui["citations"] == []
    listed = next(p for p in api.json(f"{BASE}/persons/")["results"] if p["slug"] == "matsui-iwane")
    assert listed["citations"] == []
    included = api.json(f"{BASE}/persons/matsui-iwane/", fiction="include")
    assert [c["claim"] for c in included["citations"]] == ["gave an order in the novel"]


def test_a_fictional_record_answers_flagged_with_its_fiction(world: World, api: ApiClient) -> None:
    sun = api.json(f"{BASE}/persons/sun-baili/")
    assert sun["fictional"] is True
    assert [c["claim"] for c in sun["citations"]] == ["broke out"]
    assert [p["event"]["slug"] for p in sun["participations"]] == ["breakout"]
    assert api.json(f"{BASE}/persons/sun-baili/", fiction="exclude")["citations"] == []
    breakout = api.json(f"{BASE}/events/breakout/")
    assert breakout["fictional"] is True
    assert breakout["locations"][0]["slug"] == "yijiang-gate"
    novel = api.json(f"{BASE}/sources/novel/")
    assert novel["fictional"] is True
    assert api.json(novel["passages"])["count"] == 2


def test_fiction_is_removed_from_nested_data_of_real_records(world: World, api: ApiClient) -> None:
    gate = api.json(f"{BASE}/locations/yijiang-gate/")
    assert gate["fictional"] is False
    assert {c["source"]["slug"] for c in gate["citations"]} == {"history"}
    body = json.dumps(api.json(f"{BASE}/locations/", page_size=200), ensure_ascii=False)
    assert "novel" not in body
    body = json.dumps(api.json(f"{BASE}/persons/", page_size=200), ensure_ascii=False)
    assert "novel" not in body
