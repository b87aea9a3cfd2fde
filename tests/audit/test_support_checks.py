"""The audit reads the text: stated values their quotes do not say, bounds against their own words."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from archive.audit import run_audit
from archive.models import LocationAlias, Statement
from tests.audit.builders import event, location, participation, person, published
from tests.factories import cite, source_with_text

pytestmark = pytest.mark.django_db

TZ = dt.timezone(dt.timedelta(hours=8))
TEXT = (
    "唐生智于12日傍晚5点召开会议，下达撤退令。\n\n"
    "唐生智在煤炭港码头登上小火轮。\n\n"
    "五时左右，上校参谋处长来了。\n"
)
_numbers = itertools.count(1)


def at(hour: int, minute: int = 0, day: int = 12) -> dt.datetime:
    return dt.datetime(1937, 12, day, hour, minute, tzinfo=TZ)


def statement(field: str, value: str, citations: list, **extra: object) -> Statement:  # type: ignore[type-arg]
    made = published(Statement(slug=f"st-{next(_numbers)}", field=field, value=value, **extra))
    made.citations.set(citations)
    return made


def messages(code: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for finding in run_audit(codes=[code]).open:
        found[finding.slug] = f"{found.get(finding.slug, '')}{finding.message}\n"
    return found


@pytest.fixture
def history():  # type: ignore[no-untyped-def]
    return source_with_text(TEXT, slug="history")


def test_stated_not_said(history) -> None:  # type: ignore[no-untyped-def]
    first, second, third = (history.passages.get(seq=n) for n in (1, 2, 3))
    pier = location(slug="pier", name="煤炭港")
    LocationAlias.objects.create(location=pier, name="煤炭港码头")
    building = location(slug="building", name="铁道部大楼")
    boarding = event(slug="boarding")
    boarded = cite(second, "唐生智在煤炭港码头登上小火轮", event=boarding)
    statement("location", "pier", [boarded], event=boarding)
    meeting = event(slug="meeting")
    met = cite(first, "唐生智于12日傍晚5点召开会议", event=meeting)
    statement("location", "building", [met], event=meeting)
    statement("date", "1937-12-12", [met], event=meeting, as_written="12日傍晚5点", earliest=at(17),
              latest=at(18) - dt.timedelta(seconds=1))
    inferred = event(slug="inferred")
    premise = cite(first, "召开会议", event=inferred)
    statement("location", "building", [premise], event=inferred, basis="inferred",
              reasoning="The garrison HQ was in the building.")
    assert building.pk
    memoir = event(slug="memoir")
    said = cite(third, "五时左右", event=memoir)
    statement("date", "1937-12-12", [said], event=memoir, as_written="五时左右", earliest=at(18), latest=at(19))
    organiser = participation(slug="organiser", event=meeting, person=person(name="唐生智"), role="organiser")
    own = cite(first, "唐生智于12日傍晚5点召开会议", participation=organiser)
    published(Statement(slug="st-role", field="role", value="organiser", participation=organiser)).citations.set([own])
    signatory = participation(slug="signatory", event=meeting, person=person(name="唐生智"), role="signatory")
    theirs = cite(first, "唐生智于12日傍晚5点召开会议", participation=signatory)
    published(Statement(slug="st-sign", field="role", value="signatory", participation=signatory)).citations.set(
        [theirs])
    found = messages("stated-not-said")
    assert set(found) == {"meeting", "memoir", "signatory"}
    assert "铁道部大楼" in found["meeting"] and "唐生智于12日傍晚5点召开会议" in found["meeting"]
    assert "do not hold the time" in found["memoir"]
    assert "签" in found["signatory"]


def test_bounds_contradict_words(history) -> None:  # type: ignore[no-untyped-def]
    third = history.passages.get(seq=3)
    memoir = event(slug="memoir")
    said = cite(third, "五时左右", event=memoir)
    statement("date", "1937-12-12", [said], event=memoir, as_written="五时左右", earliest=at(18), latest=at(19))
    kept = event(slug="kept")
    theirs = cite(third, "五时左右", event=kept)
    statement("date", "1937-12-12", [theirs], event=kept, as_written="五时左右", earliest=at(16, 30),
              latest=at(17, 30))
    wider = event(slug="wider")
    also = cite(third, "五时左右", event=wider)
    statement("date", "1937-12-12", [also], event=wider, as_written="五时左右", earliest=at(17), latest=at(19))
    found = messages("bounds-contradict-words")
    assert set(found) == {"memoir"}
    assert "五时左右" in found["memoir"] and "18:00" in found["memoir"]
