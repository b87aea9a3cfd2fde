"""What the pictures say on the shipped collection: the timeline, the map, the order of battle, an edition."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.usefixtures("shipped")

DAY_12 = "from=1937-12-12T00:00&to=1937-12-13T00:00"
NOVEL = "webnovel-zhutian-changjinhu"


def _html(path: str) -> str:
    response = Client().get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def _script_data(html: str, element_id: str) -> Any:
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S)
    assert match is not None
    return json.loads(match.group(1))


def _rows(path: str) -> dict[str, Any]:
    return {row["slug"]: row for row in _script_data(_html(path), "timeline-data")}


def test_timeline_of_12_december_in_order() -> None:
    rows = _rows(f"/timeline/?{DAY_12}")
    order = list(rows)
    assert order.index("meeting-1700-12-december") < order.index("xiaguan-crossings")
    assert rows["meeting-1700-12-december"]["bars"][0]["earliest"] == "1937-12-12T17:00:00+08:00"
    crossing = rows["xiaguan-crossings"]["bars"][0]
    assert crossing["earliest"] >= "1937-12-12T17:00:00+08:00"


def test_novel_times_only_when_fiction_is_asked() -> None:
    plain = _rows(f"/timeline/?{DAY_12}")["yijiangmen-crush"]["bars"]
    assert [bar["kind"] for bar in plain] == ["history"]
    assert not any(bar["fictional"] for bar in plain)
    html = _html(f"/timeline/?{DAY_12}")
    assert "下午五点的滔滔江水" not in html
    asked = _rows(f"/timeline/?{DAY_12}&fiction=include")["yijiangmen-crush"]["bars"]
    assert sorted(bar["kind"] for bar in asked) == ["history", "web-novel"]
    novel = next(bar for bar in asked if bar["kind"] == "web-novel")
    assert novel["fictional"] and "下午五点" in novel["as_written"]
    assert novel["earliest"] == "1937-12-12T17:00:00+08:00"


def test_invented_calendar_on_its_own_track_only_with_fiction() -> None:
    assert "althist-retreat-begins" not in _html("/timeline/")
    html = _html("/timeline/?fiction=include")
    track = html[html.index('class="invented-track"'):]
    assert "/events/althist-retreat-begins/" in track
    assert "althist-retreat-begins" not in _rows("/timeline/?fiction=include")


def test_timeline_narrowed_to_a_person_unit_or_place() -> None:
    assert "cheng-kuilang-escape" in _rows("/timeline/?person=cheng-kuilang")
    assert set(_rows("/timeline/?person=cheng-kuilang")) < set(_rows("/timeline/"))
    assert "74th-army-launch-crossing" in _rows("/timeline/?unit=74th-army")
    assert 'href="/people/cheng-kuilang/"' in _html("/timeline/?person=cheng-kuilang")
    at_gate = _rows("/timeline/?place=yijiangmen")
    assert "yijiangmen-crush" in at_gate and "meeting-1700-12-december" not in at_gate


def test_timeline_form_offers_the_people_units_and_places_of_its_events() -> None:
    html = _html(f"/timeline/?{DAY_12}")
    for name, slug in (("person", "cheng-kuilang"), ("unit", "74th-army"), ("place", "yijiangmen")):
        select = html[html.index(f'<select name="{name}"'):]
        select = select[:select.index("</select>")]
        assert f'value="{slug}"' in select, name
    narrowed = _html("/timeline/?place=yijiangmen")
    assert 'value="yijiangmen" selected' in narrowed


def test_map_shows_the_crossing_places_with_their_precision() -> None:
    places = {place["name"]: place for place in _script_data(_html("/map/"), "map-data")}
    for name in ("挹江门", "下关", "浦口"):
        assert name in places
    assert places["挹江门"]["radius"] == 200
    assert places["下关"]["radius"] == 1000
    assert any(event["title"] == "挹江门踩踏惨剧" for event in places["挹江门"]["events"])


def test_map_follows_the_window() -> None:
    before = {p["name"]: p for p in _script_data(_html("/map/?from=1937-11-01&to=1937-11-02"), "map-data")}
    assert not before["挹江门"]["events"]


def test_map_library_and_base_layer_are_served_by_the_app() -> None:
    html = _html("/map/")
    sources = re.findall(r'(?:src|href|data-basemap)="([^"]+)"', html)
    assert not [url for url in sources if url.startswith(("http:", "https:", "//"))]
    assert "/static/vendor/leaflet/leaflet.js" in sources
    assert "/static/room/basemap.geojson" in sources


def test_order_of_battle_nests_the_51st_division_under_the_74th_army() -> None:
    html = _html("/order-of-battle/")
    army = html.index('id="unit-74th-army"')
    division = html.index('id="unit-51st-division"')
    assert army < division
    # The division's item lies inside the army's: no closing of the army's item between them.
    between = html[army:division]
    assert between.count("<li") - between.count("</li>") >= 1
    assert "俞济时" in between
    assert "王耀武" in html[division:division + 3000]


def test_order_of_battle_marks_acting_and_concurrent_posts() -> None:
    html = _html("/order-of-battle/")
    assert 'class="badge">acting' in html.replace("\n", "") or "acting</span>" in html
    assert "concurrent</span>" in html


def test_edition_links_passage_77_to_cheng_kuilang() -> None:
    html = _html("/sources/history-nanjing-retreat/")
    passage = html[html.index('id="p-77"'):html.index('id="p-78"')]
    assert "<mark" in passage
    assert 'href="/people/cheng-kuilang/"' in passage


def test_a_statement_links_to_its_quote_in_its_passage() -> None:
    html = _html("/events/yijiangmen-crush/")
    links = re.findall(r'href="(/sources/[^"]+#c-(\d+))"', html)
    assert links
    path, citation = links[0]
    edition = _html(path.split("#")[0])
    assert f'id="c-{citation}"' in edition


def test_novel_edition_shows_its_advertisement_as_boilerplate() -> None:
    html = _html(f"/sources/{NOVEL}/?fiction=include")
    start = html.index('role-boilerplate')
    assert "www.dibaquxiaoshuo.com" in html[start:start + 800]
    assert "Boilerplate" in html[start:start + 800]


def test_pages_speak_the_readers_language() -> None:
    client = Client()
    client.cookies["django_language"] = "zh-hans"
    assert "时间轴" in client.get("/timeline/").content.decode()
    client.cookies["django_language"] = "zh-hant"
    assert "時間軸" in client.get("/timeline/").content.decode()
