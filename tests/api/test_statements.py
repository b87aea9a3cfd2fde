"""The API's statements on the shipped collection: ranked accounts with their citations, fiction kept apart.

The collection is loaded once for the module (`tests.shipped`), inside a
transaction rolled back at the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import Citation, Source
from tests.api.conftest import ApiClient

BASE = "/api/v1"
# The events the history dates and the web novel retells with times of its own.
RETOLD = ("yijiangmen-crush", "tang-drive-to-meitangang", "nanjing-massacre")


@pytest.fixture(autouse=True)
def _uncached(settings: Any, collection: None, db: Any) -> None:
    settings.API_CACHE_SECONDS = 0


def _walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _citations(document: Any) -> list[dict[str, Any]]:
    """Every citation shown anywhere in a document."""
    return [node for node in _walk(document) if isinstance(node, dict) and {"quote", "claim", "seq"} <= set(node)]


def _by_rank(field: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for account in field["accounts"]:
        found.setdefault(account["rank"], []).append(account)
    return found


def test_the_retreat_meeting_shows_1700_preferred_and_the_memoirs_afternoon(api: ApiClient) -> None:
    event = api.json(f"{BASE}/events/meeting-1700-12-december/")
    date = event["statements"]["date"]
    ranks = _by_rank(date)
    (preferred,) = ranks["preferred"]
    (memoir,) = ranks["normal"]
    assert date["value"] == preferred["value"] == "1937-12-12"
    assert preferred["earliest"] == event["earliest"] == "1937-12-12T17:00:00+08:00"
    assert preferred["as_written"] == event["date_text"] == "12月12日傍晚5点"
    assert [c["seq"] for c in preferred["citations"]] == [8]
    assert "12月12日傍晚5点" in preferred["citations"][0]["quote"]
    # The memoir the history quotes: called to the meeting at about 14:00, the word to go back by about 17:00.
    assert memoir["earliest"] == "1937-12-12T13:30:00+08:00" and not memoir["fictional"]
    assert {c["seq"] for c in memoir["citations"]} == {103}
    quotes = " ".join(c["quote"] for c in memoir["citations"])
    assert "忽接长官部电话" in quotes and "五时左右" in quotes
    assert memoir["note"] and preferred["note"]


@pytest.mark.parametrize("slug", RETOLD)
def test_the_default_view_of_a_retold_event_holds_no_fiction(api: ApiClient, slug: str) -> None:
    document = api.json(f"{BASE}/events/{slug}/")
    fiction = set(Source.objects.filter(is_fiction=True).values_list("slug", flat=True))
    told_by_fiction = list(
        Citation.objects.filter(event__slug=slug, passage__source__is_fiction=True).values_list("quote", flat=True)
    )
    assert told_by_fiction, "the novel retells this event"
    shown = _citations(document)
    assert shown and all(c["source"]["slug"] not in fiction for c in shown)
    text = json.dumps(document, ensure_ascii=False)
    for quote in told_by_fiction:
        assert quote not in text
    assert not any(node.get("fictional") for node in _walk(document) if isinstance(node, dict))
    # Every stated value comes from an account of the history, and so do the record's date and bounds.
    for field in document["statements"].values():
        assert all(not account["fictional"] for account in field["accounts"])
    date = document["statements"]["date"]
    best = next(a for a in date["accounts"] if a["value"] == date["value"] and a["rank"] != "deprecated")
    assert (document["date"], document["earliest"], document["latest"], document["date_text"]) == (
        best["value"], best["earliest"], best["latest"], best["as_written"])


def test_bounds_come_from_the_historys_own_evidence(api: ApiClient) -> None:
    crush = api.json(f"{BASE}/events/yijiangmen-crush/")
    assert crush["latest"] != "1937-12-13T05:00:00+08:00"  # the novel's 后半夜
    massacre = api.json(f"{BASE}/events/nanjing-massacre/")
    assert massacre["latest"] < "1938"  # the novel's diary of March 1938
    listed = api.json(f"{BASE}/events/", page_size=200, before="1938-01-01")["results"]
    assert "nanjing-massacre" in {e["slug"] for e in listed}


def test_with_fiction_included_the_novels_account_appears_beside_the_historys(api: ApiClient) -> None:
    crush = api.json(f"{BASE}/events/yijiangmen-crush/", fiction="include")
    accounts = crush["statements"]["date"]["accounts"]
    novel = [a for a in accounts if a["fictional"]]
    assert len(novel) == 1 and novel[0]["latest"] == "1937-12-13T05:59:59+08:00"
    assert {c["source"]["slug"] for c in novel[0]["citations"]} == {"webnovel-zhutian-changjinhu"}
    history = [a for a in accounts if not a["fictional"]]
    assert history[0]["rank"] == "preferred"
    # The record still shows the history's value: the novel's account is ranked below it.
    assert crush["latest"] == history[0]["latest"] == api.json(f"{BASE}/events/yijiangmen-crush/")["latest"]
    drive = api.json(f"{BASE}/events/tang-drive-to-meitangang/", fiction="include")
    times = {a["earliest"]: a for a in drive["statements"]["date"]["accounts"]}
    assert times["1937-12-12T18:00:00+08:00"]["fictional"]
    assert "下午六点" in times["1937-12-12T18:00:00+08:00"]["as_written"]


def test_every_stated_field_of_every_kind_of_record(api: ApiClient) -> None:
    tang = api.json(f"{BASE}/persons/tang-shengzhi/")
    assert tang["statements"]["birth"]["value"] == tang["birth"] == "1889"
    assert tang["statements"]["birth"]["accounts"][0]["note"]  # no text gives it: the curator says so
    part = tang["participations"][0]
    assert part["statements"]["role"]["value"] == part["role"]
    assert part["statements"]["role"]["accounts"][0]["citations"]
    post = tang["posts"][0]
    assert post["statements"]["title"]["value"] == post["title"]
    gate = api.json(f"{BASE}/locations/yijiangmen/")
    lat, lon = gate["statements"]["coordinates"]["value"].split(",")
    assert (float(lat), float(lon)) == (gate["latitude"], gate["longitude"])
    crush = api.json(f"{BASE}/events/yijiangmen-crush/")
    assert sorted(crush["statements"]["location"]["value"]) == sorted(p["slug"] for p in crush["locations"])


def test_every_dated_event_has_a_date_statement(api: ApiClient) -> None:
    for mode in ("exclude", "include"):
        events = api.json(f"{BASE}/events/", page_size=200, fiction=mode)["results"]
        for event in events:
            if event["date"]:
                assert event["statements"]["date"]["value"] == event["date"], event["slug"]


def test_statements_cost_no_query_per_row(api: ApiClient) -> None:
    for path in ("events/", "persons/", "locations/"):
        counts = []
        for size in (20, 200):
            with CaptureQueriesContext(connection) as captured:
                api.json(f"{BASE}/{path}", page_size=size, fiction="include")
            counts.append(len(captured))
        assert counts[0] == counts[1], (path, counts)
