"""Each audit check finds a planted case and stays silent on a correct one."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from archive.audit import Level, run_audit
from archive.audit.checks import CHECKS
from archive.models import CuratorNote, Statement, Status
from tests.audit.builders import event, location, participation, person, post, published, unit
from tests.factories import cite, source_with_text

pytestmark = pytest.mark.django_db

TZ = dt.timezone(dt.timedelta(hours=8))
_numbers = itertools.count(1)
TEXT = (
    "唐生智于12日傍晚5点召开会议，下达撤退令。\n\n"
    "唐生智在煤炭港码头登上小火轮。\n\n"
    "叶肇、邓龙光率广东部队从太平门突围。\n\n"
    "宋希濂留在城里，没能跑出去。\n"
)


def at(hour: int, minute: int = 0, day: int = 12) -> dt.datetime:
    return dt.datetime(1937, 12, day, hour, minute, tzinfo=TZ)


def found(code: str) -> set[str]:
    return {f.slug for f in run_audit(codes=[code]).findings}


@pytest.fixture
def history():  # type: ignore[no-untyped-def]
    return source_with_text(TEXT, slug="history")


@pytest.fixture
def novel():  # type: ignore[no-untyped-def]
    return source_with_text("金陵城中山路失火，唐司令坐车去码头。\n", slug="novel", kind="web-novel")


def p(source, seq: int):  # type: ignore[no-untyped-def]
    return source.passages.get(seq=seq)


def test_every_check_has_a_code_and_a_level() -> None:
    codes = [c.code for c in CHECKS]
    assert len(codes) == len(set(codes))
    assert all(c.level in Level for c in CHECKS)


def test_no_evidence(history) -> None:  # type: ignore[no-untyped-def]
    person(slug="bare", name="无证")
    backed = person(slug="backed", name="唐生智")
    cite(p(history, 1), "唐生智", person=backed)
    draft_backed = person(slug="draft-backed", name="叶肇")
    cite(p(history, 3), "叶肇", person=draft_backed, status=Status.DRAFT)
    assert found("no-evidence") == {"bare", "draft-backed"}


def test_quote_does_not_name(history) -> None:  # type: ignore[no-untyped-def]
    tang = person(slug="tang", name="唐生智")
    song = person(slug="song", name="宋希濂")
    meeting = event(slug="meeting")
    named = participation(slug="named", event=meeting, person=tang, role="organiser")
    cite(p(history, 1), "唐生智于12日傍晚5点召开会议", participation=named)
    unnamed = participation(slug="unnamed", event=meeting, person=song, role="escaped")
    cite(p(history, 4), "没能跑出去", participation=unnamed)
    cantonese = unit(slug="66th", name="第66军", echelon="army")
    by_short_name = participation(slug="by-short-name", event=meeting, unit=cantonese, role="participant")
    cite(p(history, 3), "广东部队", participation=by_short_name)
    tang_post = post(slug="tang-post", person=tang, unit=cantonese)
    cite(p(history, 2), "唐生智在煤炭港码头", post=tang_post)
    assert found("quote-does-not-name") == {"unnamed", "by-short-name"}


def test_quote_names_a_unit_without_its_ordinal_prefix(history) -> None:  # type: ignore[no-untyped-def]
    text = source_with_text("66军从太平门突围。\n", slug="short")
    army = unit(slug="66th", name="第66军", echelon="army")
    part = participation(slug="short-form", event=event(), unit=army, role="participant")
    cite(text.passages.get(seq=1), "66军从太平门突围", participation=part)
    assert found("quote-does-not-name") == set()


def test_sub_event_outside_parent(history) -> None:  # type: ignore[no-untyped-def]
    meeting = event(slug="meeting", earliest=at(17), latest=at(17, 59))
    event(slug="inside", parent=meeting, earliest=at(17, 10), latest=at(17, 30))
    event(slug="outside", parent=meeting, earliest=at(16), latest=at(17, 30))
    assert found("sub-event-outside-parent") == {"outside"}


def test_effect_before_cause(history) -> None:  # type: ignore[no-untyped-def]
    order = event(slug="order", kind="order", earliest=at(17), latest=at(17, 59))
    event(slug="too-early", follows=order, earliest=at(16, 30), latest=at(23, 59))
    event(slug="after", follows=order, earliest=at(17, 30), latest=at(23, 59))
    assert found("effect-before-cause") == {"too-early"}


def test_person_in_two_places(history) -> None:  # type: ignore[no-untyped-def]
    city = location(slug="city", kind="city")
    hall = location(slug="hall", kind="building", parent=city)
    gate = location(slug="gate", kind="gate", parent=city)
    deng = person(slug="deng", name="邓龙光")
    meeting = event(slug="meeting", earliest=at(17), latest=at(17, 59))
    meeting.locations.add(hall)
    car = event(slug="car", earliest=at(16, 30), latest=at(17, 30))
    car.locations.add(gate)
    later = event(slug="later", earliest=at(20), latest=at(20, 59))
    later.locations.add(gate)
    in_hall = event(slug="in-hall", earliest=at(17, 30), latest=at(18, 10))
    in_hall.locations.add(city)  # the city holds the hall: no conflict
    for slug, where in (("at-meeting", meeting), ("in-car", car), ("later-at-gate", later), ("in-city", in_hall)):
        part = participation(slug=slug, event=where, person=deng, role="participant")
        cite(p(history, 3), "邓龙光", participation=part)
    (finding,) = run_audit(codes=["person-in-two-places"]).findings
    assert finding.slug in {"in-car", "at-meeting"}
    assert "at meeting (1937-12-12 17:00–1937-12-12 17:59)" in finding.message and "at car" in finding.message


def test_coordinates_outside_parent(history) -> None:  # type: ignore[no-untyped-def]
    nanjing = location(slug="nanjing", kind="city", latitude=Decimal("32.06"), longitude=Decimal("118.80"))
    location(slug="near", kind="gate", parent=nanjing, latitude=Decimal("32.09"), longitude=Decimal("118.75"))
    location(slug="far", kind="gate", parent=nanjing, latitude=Decimal("30.27"), longitude=Decimal("120.15"))
    assert found("coordinates-outside-parent") == {"far"}


def test_duplicate_citation(history) -> None:  # type: ignore[no-untyped-def]
    tang = person(slug="tang", name="唐生智")
    cite(p(history, 1), "唐生智", person=tang)
    cite(p(history, 1), "唐生智", person=tang)
    other = person(slug="other", name="唐")
    cite(p(history, 1), "唐生智", person=other)
    cite(p(history, 2), "唐生智", person=other)
    assert found("duplicate-citation") == {"tang"}


def test_fiction_in_text(history, novel) -> None:  # type: ignore[no-untyped-def]
    mixed = event(slug="mixed", description="The crush at the gate. The web novel: a tunnel seventy feet wide.")
    cite(p(history, 1), "召开会议", event=mixed)
    cite(novel.passages.get(seq=1), "唐司令坐车去码头", event=mixed)
    clean = event(slug="clean", description="The crush at the gate.")
    cite(p(history, 1), "下达撤退令", event=clean)
    invented = event(slug="invented", description="The web novel: Zhongshan Road burns.")
    cite(novel.passages.get(seq=1), "中山路失火", event=invented)  # a fictional record may say so
    dated = event(slug="dated", date_text="散会后；小说：晚上8点")
    cite(p(history, 2), "小火轮", event=dated)
    quoting = event(slug="quoting", description="Tang goes to the pier: 唐司令坐车去码头.")
    cite(p(history, 2), "唐生智在煤炭港码头", event=quoting)
    cite(novel.passages.get(seq=1), "唐司令坐车去码头", event=quoting)
    both = event(slug="both-say-it", description="召开会议 at 17:00.")  # the history says it too
    cite(p(history, 1), "召开会议", event=both)
    cite(novel.passages.get(seq=1), "唐司令坐车去码头", event=both)
    assert found("fiction-in-text") == {"mixed", "dated", "quoting"}


def test_fiction_only_value(history, novel) -> None:  # type: ignore[no-untyped-def]
    road = location(slug="road", kind="road")
    cite(novel.passages.get(seq=1), "中山路", location=road)
    pier = location(slug="pier", kind="pier")
    cite(p(history, 2), "煤炭港码头", location=pier)
    shown = event(slug="shown")
    cite(p(history, 2), "登上小火轮", event=shown)
    shown.locations.add(road, pier)
    fine = event(slug="fine")
    cite(p(history, 2), "小火轮", event=fine)
    fine.locations.add(pier)
    assert found("fiction-only-value") == {"shown"}


def test_marked_historical_needs_a_note(novel, history) -> None:  # type: ignore[no-untyped-def]
    road = location(slug="road", kind="road", marked_historical=True)
    cite(novel.passages.get(seq=1), "中山路", location=road)
    both = location(slug="pier", kind="pier", marked_historical=True)
    cite(p(history, 2), "煤炭港码头", location=both)
    assert found("marked-historical") == {"road"}
    CuratorNote.objects.create(slug="n1", model="location", record="road", code="marked-historical", note="real")
    report = run_audit(codes=["marked-historical"])
    assert report.open == [] and [f.slug for f in report.explained] == ["road"]
    assert report.explained[0].explained_by == "real"


def test_stale_note() -> None:
    person(slug="here", name="在")
    CuratorNote.objects.create(slug="n1", model="person", record="here", code="x", note="fine")
    CuratorNote.objects.create(slug="n2", model="person", record="gone", code="x", note="stale")
    assert found("stale-note") == {"n2"}


def test_drafts_are_counted_apart(history) -> None:  # type: ignore[no-untyped-def]
    assert run_audit(codes=["drafts"]).findings == []
    person(status=Status.DRAFT)
    (finding,) = run_audit(codes=["drafts"]).findings
    assert finding.level == Level.INFO and finding.record is None and "1 persons" in finding.message


def test_command_exits_1_on_an_error_and_speaks_json(history, capsys) -> None:  # type: ignore[no-untyped-def]
    call_command("audit")  # an empty archive passes
    assert "0 error(s)" in capsys.readouterr().out
    person(slug="bare", name="无证")
    with pytest.raises(CommandError) as raised:
        call_command("audit", "--format", "json")
    assert raised.value.returncode == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["error"] == 1
    (finding,) = [f for f in payload["findings"] if f["code"] == "no-evidence"]
    assert finding["record"] == {"model": "person", "slug": "bare", "label": "无证"} and finding["level"] == "error"


def test_a_note_turns_an_error_into_an_explained_finding(history) -> None:  # type: ignore[no-untyped-def]
    person(slug="bare", name="无证")
    CuratorNote.objects.create(slug="n", model="person", record="bare", code="no-evidence", note="kept on purpose")
    call_command("audit")  # no exception: the only error is explained


def statement(target: object, field: str, value: str, rank: str = "normal", **extra: object):  # type: ignore[no-untyped-def]
    n = next(_numbers)
    return published(Statement(slug=f"st-{n}", field=field, value=value, rank=rank, event=target, **extra))


def test_statement_without_citation(history) -> None:  # type: ignore[no-untyped-def]
    meeting = event(slug="meeting")
    evidence = cite(p(history, 1), "唐生智于12日傍晚5点召开会议", event=meeting)
    cited = statement(meeting, "date", "1937-12-12", rank="preferred")
    cited.citations.add(evidence)
    statement(meeting, "date", "1937-12-11")
    bare = event(slug="bare-date")
    statement(bare, "date", "1937-12-12")
    mapped = location(slug="mapped")
    published(Statement(slug="st-map", field="coordinates", value="32.1,118.7", location=mapped, note="read off a map"))
    messages = {f.slug: f.message for f in run_audit(codes=["statement-without-citation"]).open}
    assert set(messages) == {"meeting", "bare-date"}
    assert "“1937-12-11”" in messages["meeting"] and "“1937-12-12”" not in messages["meeting"]
    report = run_audit(codes=["statement-without-citation"])
    assert [(f.slug, f.explained_by) for f in report.explained] == [("mapped", "read off a map")]


def test_unranked_conflict(history) -> None:  # type: ignore[no-untyped-def]
    ranked = event(slug="ranked")
    statement(ranked, "date", "1937-12-12", rank="preferred", earliest=at(17), latest=at(17, 59))
    statement(ranked, "date", "1937-12-12", earliest=at(13, 30), latest=at(17, 30))
    unranked = event(slug="unranked")
    statement(unranked, "date", "1937-12-12", earliest=at(17), latest=at(17, 59))
    statement(unranked, "date", "1937-12-12", earliest=at(13, 30), latest=at(17, 30))
    agreeing = event(slug="agreeing")
    statement(agreeing, "date", "1937-12-12")
    statement(agreeing, "date", "1937-12-12")
    places = event(slug="places")  # places add up; they never conflict
    for slug in ("gate", "pier"):
        location(slug=slug)
        statement(places, "location", slug)
    assert found("unranked-conflict") == {"unranked"}
