"""The shipped collection passes its own audit, and the corrections the audit asked for hold."""

from __future__ import annotations

import pytest

from archive.audit import Level, run_audit
from archive.models import Citation, CuratorNote, Event, Location, Participation, Unit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("collection")]

HISTORY = "history-nanjing-retreat"


def test_no_open_finding_in_the_shipped_collection() -> None:
    report = run_audit()
    errors = [f"{f.code} {f.model} {f.slug}: {f.message}" for f in report.open if f.level == Level.ERROR]
    assert errors == []
    # Warnings too are fixed or explained: what is left open is a regression.
    assert [f"{f.code} {f.slug}" for f in report.open] == []
    assert all(f.explained_by for f in report.explained)


def test_historical_records_say_nothing_of_fiction_in_their_own_text() -> None:
    for slug in ("yijiangmen-crush", "tang-drive-to-meitangang", "nanjing-massacre", "xiaguan-crossings"):
        event = Event.objects.get(slug=slug)
        assert not event.fictional, slug
        text = f"{event.description} {event.date_text}".lower()
        assert "novel" not in text and "小说" not in text, slug
    assert not Event.objects.get(slug="yijiangmen-crush").locations.filter(fictional=True).exists()


def test_units_only_the_alternate_history_names_are_fictional() -> None:
    for slug in (
        "althist-78th-division",
        "althist-ija-3rd-division",
        "althist-ija-101st-division",
        "althist-shigeto-detachment",
        "althist-19th-route-army",
    ):
        unit = Unit.objects.get(slug=slug)
        assert unit.fictional and not unit.marked_historical, slug


def test_every_record_only_fiction_cites_but_marked_historical_has_a_reason() -> None:
    for model in (Location,):
        for place in model.objects.filter(marked_historical=True):
            sources = set(Citation.objects.filter(location=place).values_list("passage__source__is_fiction", flat=True))
            if sources == {True}:
                assert CuratorNote.objects.filter(
                    model="location", record=place.slug, code="marked-historical"
                ).exists()
    assert CuratorNote.objects.filter(model="person", record="matsui-iwane", code="marked-historical").exists()


def test_participations_read_against_their_quotes() -> None:
    crossing = Event.objects.get(slug="xiaguan-crossings")
    crossed = set(crossing.participations.values_list("person__slug", flat=True))
    assert not {"sun-yuanliang", "wu-qiujian", "zhang-baiting"} & crossed
    stayed = Participation.objects.get(event__slug="sun-yuanliang-does-not-get-out", person__slug="sun-yuanliang")
    assert stayed.role != "escaped"
    later = Event.objects.get(slug="88th-officers-escape-from-the-city")
    assert set(later.participations.values_list("person__slug", flat=True)) == {"wu-qiujian", "zhang-baiting"}
    luo = Participation.objects.get(event__slug="higo-company-breaks-into-wall", person__slug="luo-yousheng")
    assert luo.role != "commander"


def test_the_timeline_is_possible() -> None:
    order = Event.objects.get(slug="retreat-order-issued")
    breakout = Event.objects.get(slug="taipingmen-breakout")
    assert breakout.follows == order and breakout.earliest >= order.earliest
    meeting = Event.objects.get(slug="meeting-1700-12-december")
    car = Event.objects.get(slug="ke-shenfu-brings-word")
    assert car.participations.filter(person__slug="deng-longguang").exists()
    assert meeting.participations.filter(person__slug="deng-longguang").exists()
    assert car.earliest > meeting.latest


def test_coverage_gaps_are_filled_with_cited_records() -> None:
    for slug in ("safety-zone", "xiaguan-power-station", "jiangyin", "xishan"):
        place = Location.objects.get(slug=slug)
        assert place.citations.filter(passage__source__slug=HISTORY).exists() and not place.fictional, slug
    workers = Unit.objects.get(slug="xiaguan-power-station-workers")
    assert Participation.objects.get(event__slug="nanjing-massacre", unit=workers).role == "killed"
    assert Event.objects.get(slug="xiaguan-lamps-kept-lit").locations.filter(slug="xiaguan-power-station").exists()
    order = Event.objects.get(slug="retreat-order-issued")
    quotes = list(order.citations.values_list("quote", flat=True))
    for item in ("三、", "五、", "六、"):
        assert any(q.startswith(item) for q in quotes), item
    detour = Event.objects.get(slug="tang-detour-to-yangzhou-and-chuzhou")
    assert {"yangzhou", "chuzhou"} <= set(detour.locations.values_list("slug", flat=True))
    burning = Event.objects.get(slug="nanjing-burns-the-night-tang-left")
    assert burning.citations.filter(quote__contains="火光不熄").exists() and not burning.fictional
    assert Event.objects.get(slug="zijinshan-first-peak-fighting").locations.filter(slug="xishan").exists()
