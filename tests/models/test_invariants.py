"""Each rule of the data model is refused twice: by `full_clean()` and by the database."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, InternalError, transaction
from django.db.models import ProtectedError

from archive.models import Citation, Event, Location, Participation, Passage, Person, Source, Unit
from tests.factories import approved, cite, source_with_text

pytestmark = pytest.mark.django_db

# SQLite's RAISE(ABORT) in a trigger arrives as IntegrityError; PostgreSQL's as IntegrityError too
# (ERRCODE check_violation), InternalError only on older drivers.
DB_ERRORS = (IntegrityError, InternalError)

TEXT = "第一段：唐生智下令撤退。\n\n第二段：部队拥向挹江门。\n"


@pytest.fixture
def passage() -> Passage:
    return source_with_text(TEXT, slug="hist").passages.get(seq=1)


def test_citation_with_two_targets_is_refused(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    unit = approved(Unit(slug="u74", name="第74军", echelon="army"))
    citation = Citation(passage=passage, quote="唐生智", start=4, end=7, claim="x", person=person, unit=unit)
    with pytest.raises(ValidationError, match="exactly one record"):
        citation.full_clean()
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Citation.objects.create(
            slug="c2", passage=passage, quote="唐生智", start=4, end=7, claim="x", person=person, unit=unit
        )


def test_citation_with_no_target_is_refused(passage: Passage) -> None:
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Citation.objects.create(slug="c0", passage=passage, quote="唐生智", start=4, end=7, claim="x")


def test_quote_not_in_passage_is_refused_with_closest_match(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    citation = Citation(passage=passage, quote="唐生智下令进攻", start=0, end=7, claim="x", person=person)
    with pytest.raises(ValidationError) as caught:
        citation.full_clean()
    message = " ".join(caught.value.message_dict["quote"])
    assert "唐生智下令撤退" in message or "唐生智下令" in message
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Citation.objects.create(
            slug="cq", passage=passage, quote="唐生智下令进攻", start=4, end=11, claim="x", person=person
        )


def test_quote_at_wrong_offsets_is_refused_by_the_database(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Citation.objects.create(slug="co", passage=passage, quote="唐生智", start=5, end=8, claim="x", person=person)


def test_quote_found_after_folding_keeps_the_passage_characters(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    citation = Citation(passage=passage, quote="唐生智下令撤退", start=0, end=7, claim="x", person=person)
    citation.quote = "唐生智下令撤退".replace("撤", "撤")
    citation.full_clean()
    assert passage.text[citation.start : citation.end] == citation.quote


def test_seq_is_unique_per_source(passage: Passage) -> None:
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Passage.objects.create(source=passage.source, seq=1, text="第一", start=0, end=2, sha256="0")


def test_passage_offsets_must_lie_inside_the_source(passage: Passage) -> None:
    source = passage.source
    length = len(source.text)
    bad = Passage(source=source, seq=9, text="超出", start=length, end=length + 2, sha256="0")
    with pytest.raises(ValidationError) as caught:
        bad.full_clean()
    assert "end" in caught.value.message_dict
    with pytest.raises(DB_ERRORS), transaction.atomic():
        bad.save()


def test_passage_length_must_match_offsets(passage: Passage) -> None:
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Passage.objects.create(source=passage.source, seq=7, text="第一段", start=0, end=5, sha256="0")


def test_slugs_are_unique() -> None:
    approved(Person(slug="tang", name="唐生智"))
    with pytest.raises(ValidationError):
        Person(slug="tang", name="另一人").full_clean()
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Person.objects.create(slug="tang", name="另一人")


def test_event_earliest_after_latest_is_refused() -> None:
    import datetime as dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Shanghai")
    late, early = dt.datetime(1937, 12, 12, 18, tzinfo=tz), dt.datetime(1937, 12, 12, 17, tzinfo=tz)
    event = Event(slug="e", title="会议", kind="meeting", date="1937-12-12", earliest=late, latest=early)
    with pytest.raises(ValidationError) as caught:
        event.full_clean()
    assert "latest" in caught.value.message_dict or "earliest" in caught.value.message_dict
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Event.objects.create(slug="e", title="会议", kind="meeting", earliest=late, latest=early)


def test_bad_edtf_date_is_refused_naming_the_field() -> None:
    event = Event(slug="e", title="会议", kind="meeting", date="12日傍晚5点")
    with pytest.raises(ValidationError) as caught:
        event.full_clean()
    assert "date" in caught.value.message_dict
    person = Person(slug="p", name="某人", birth="1890-13-45")
    with pytest.raises(ValidationError) as caught:
        person.full_clean()
    assert "birth" in caught.value.message_dict


def test_event_bounds_derive_from_edtf_and_invented_calendar_has_none() -> None:
    event = Event(slug="e", title="会议", kind="meeting", date="1937-12-12")
    event.full_clean()
    assert event.earliest is not None and event.latest is not None
    assert event.earliest.isoformat().startswith("1937-12-12T00:00:00+08:00")
    invented = Event(slug="n", title="撤退", kind="retreat", date="XXXX-01-22")
    invented.full_clean()
    assert invented.earliest is None and invented.latest is None


def test_bounds_outside_the_edtf_date_are_refused() -> None:
    import datetime as dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Shanghai")
    event = Event(
        slug="e",
        title="会议",
        kind="meeting",
        date="1937-12-12",
        earliest=dt.datetime(1937, 12, 13, 17, tzinfo=tz),
        latest=dt.datetime(1937, 12, 13, 18, tzinfo=tz),
    )
    with pytest.raises(ValidationError) as caught:
        event.full_clean()
    assert "earliest" in caught.value.message_dict


def test_participation_names_exactly_one_person_or_unit() -> None:
    event = approved(Event(slug="e", title="会议", kind="meeting"))
    with pytest.raises(ValidationError):
        Participation(slug="p", event=event, role="participant").full_clean()
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Participation.objects.create(slug="p", event=event, role="participant")


def test_coordinates_both_or_neither() -> None:
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Location.objects.create(slug="x", name="某地", kind="city", latitude=32)


def test_source_length_must_match_text() -> None:
    with pytest.raises(DB_ERRORS), transaction.atomic():
        Source.objects.filter(
            pk=approved(Source(slug="s", title="t", kind="history", language="zh-Hans", text="abc")).pk
        ).update(length=99)


@pytest.mark.parametrize("target", ["passage", "source", "person", "event"])
def test_deleting_what_citations_rest_on_is_refused(passage: Passage, target: str) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    event = approved(Event(slug="order", title="撤退令", kind="order"))
    cite(passage, "唐生智", person=person)
    cite(passage, "下令撤退", event=event)
    record = {"passage": passage, "source": passage.source, "person": person, "event": event}[target]
    with pytest.raises(ProtectedError) as caught:
        record.delete()
    assert "Citation" in str(caught.value) or "Passage" in str(caught.value)


def test_a_raw_delete_is_refused_by_the_database(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    cite(passage, "唐生智", person=person)
    from django.db import connection

    with pytest.raises(DB_ERRORS), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM archive_person WHERE id = %s", [person.pk])
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        else:
            connection.check_constraints()


def test_the_same_words_can_be_evidence_for_two_records(passage: Passage) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    event = approved(Event(slug="order", title="撤退令", kind="order"))
    first = cite(passage, "唐生智下令撤退", person=person)
    second = cite(passage, "唐生智下令撤退", event=event)
    assert first.slug and second.slug and first.slug != second.slug
