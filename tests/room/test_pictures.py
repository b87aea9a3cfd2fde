"""What the pictures say on the shipped collection: the timeline, the map, the order of battle, an edition.

The pictures as published at a moment or as a release holds them are read
from the history: as of now they draw what the archive draws now, and after
a change they still draw the archive then.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from archive.importing.releases import make_release
from archive.models import Event, Location, Person, Unit
from tests.factories import publish_change

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


# --- the pictures as published then ------------------------------------------------------------

PICTURES = ("/timeline/", "/map/", "/night/", "/order-of-battle/")


def _z(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _drawn(html: str) -> str:
    """A page without what a reading then adds: its notice, the reading kept in links and forms, the form's token."""
    html = re.sub(r'<p class="memento-notice".*?</p>', "", html, flags=re.S)
    html = re.sub(r'<input type="hidden" name="(as_of|release)"[^>]*>', "", html)
    html = re.sub(r'(\?|&amp;|&|\\u0026)(as_of|release)=[0-9A-Za-z:.%-]+', "", html)
    html = re.sub(r'csrfmiddlewaretoken" value="[^"]*"', "", html)
    return "\n".join(line for line in html.replace('?"', '"').splitlines() if line.strip())


@pytest.mark.parametrize("path", [f"{page}{mode}" for page in PICTURES
                                  for mode in ("", "?fiction=include", "?fiction=only")])
def test_a_picture_as_of_now_read_from_the_history_draws_what_the_archive_draws_now(path: str) -> None:
    now = _html(path)
    joined = "&" if "?" in path else "?"
    then = Client().get(f"{path}{joined}as_of={_z(timezone.now())}")
    assert then.status_code == 200 and then["Memento-Datetime"].endswith("GMT")
    assert 'class="memento-notice"' in then.content.decode()
    assert _drawn(then.content.decode()) == _drawn(now)


def test_the_pictures_as_of_a_moment_or_a_release_draw_the_archive_then_and_keep_it_in_their_links() -> None:
    before_release = timezone.now()
    time.sleep(0.01)
    make_release(by="operator", base_url="http://testserver")
    time.sleep(0.01)
    released = timezone.now()
    time.sleep(0.01)
    publish_change(Event.objects.get(slug="meeting-1700-12-december"), title="改过题目的撤退会议")
    publish_change(Unit.objects.get(slug="51st-division"), name="改过名字的第51师")
    publish_change(Location.objects.get(slug="meitangang"), name="改过名字的煤炭港")
    publish_change(Person.objects.get(slug="tang-shengzhi"), name="改过名字的唐生智")
    # The event's places change too: the history keeps each state's links beside it.
    meeting = "meeting-1700-12-december"
    places_then = _rows(f"/timeline/?{DAY_12}")[meeting]["places"]
    Event.objects.get(slug=meeting).locations.set([Location.objects.get(slug="xiaguan")])
    assert places_then and _rows(f"/timeline/?{DAY_12}")[meeting]["places"] == ["下关"] != places_then
    pictures = {page: _html(f"{page}?{DAY_12}") for page in PICTURES}
    assert "改过题目的撤退会议" in pictures["/timeline/"] and "改过名字的第51师" in pictures["/order-of-battle/"]
    assert "改过名字的煤炭港" in pictures["/map/"] and "改过名字的唐生智" in pictures["/night/"]

    for held in (f"as_of={_z(released)}", "release=1"):
        then = {page: Client().get(f"{page}?{DAY_12}&{held}") for page in PICTURES}
        assert all(answer.status_code == 200 for answer in then.values()), held
        timeline, battle = then["/timeline/"].content.decode(), then["/order-of-battle/"].content.decode()
        assert "12日傍晚5点卫戍司令部撤退会议" in timeline and "改过题目的撤退会议" not in timeline
        assert _rows(f"/timeline/?{DAY_12}&{held}")[meeting]["places"] == places_then
        assert "第51师" in battle and "改过名字的第51师" not in battle
        assert "煤炭港" in then["/map/"].content.decode() and "改过名字" not in then["/map/"].content.decode()
        assert "唐生智" in then["/night/"].content.decode() and "改过名字" not in then["/night/"].content.decode()
        # Every link stays in the reading; the record a link leads to is read then too.
        assert f'href="/events/meeting-1700-12-december/?{held}"' in timeline
        event_then = Client().get(f"/events/meeting-1700-12-december/?{held}").content.decode()
        assert "12日傍晚5点卫戍司令部撤退会议" in event_then and "改过题目" not in event_then
        assert f'href="/units/51st-division/?{held.replace(":", "%3A")}"' in battle
        assert '<input type="hidden" name="' + held.split("=")[0] + '"' in timeline
        original = then["/timeline/"]["Link"].split(";")[0]
        assert original == f"<http://testserver/timeline/?{DAY_12.replace(':', '%3A')}>"

    releases = Client().get(f"/releases/?as_of={_z(before_release)}").content.decode()
    assert 'id="release-1"' not in releases and 'class="memento-notice"' in releases
    assert 'id="release-1"' in Client().get("/releases/?release=1").content.decode()


def test_the_pictures_before_anything_was_published_are_empty_and_a_version_is_refused() -> None:
    empty = _html(f"/timeline/?{DAY_12}&as_of=2000-01-01")
    assert _script_data(empty, "timeline-data") == []
    assert _script_data(_html("/map/?as_of=2000-01-01"), "map-data") == []
    for page in PICTURES:
        refused = Client().get(f"{page}?version=1")
        assert refused.status_code == 400 and "“version”" in refused.content.decode(), page
        future = Client().get(f"{page}?as_of=2999-01-01")
        assert future.status_code == 400 and "“as_of”" in future.content.decode(), page
