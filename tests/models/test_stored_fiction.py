"""The stored `fictional` flag equals its definition after every kind of change."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection

from archive import fiction
from archive.models import Citation, Event, Location, Participation, Person, Source
from archive.services import decisions, records, revisions
from archive.services import review as curation
from archive.services.merges import merge
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def texts() -> dict[str, Source]:
    return {
        "novel": source_with_text("周澜在江边等船。", slug="a-novel", kind="novel"),
        "history": source_with_text("周澜是参谋。", slug="a-history", kind="history"),
    }


def _approve_pending(record: object) -> None:
    """Someone who did not propose the pending change of `record` approves it."""
    revision = revisions.pending_revision(record)  # type: ignore[arg-type]
    assert revision is not None
    revisions.approve_revision(revision=revision, by=user(role="reviewer"), shown=decisions.revision_pin(revision))


def _flag(record: object) -> bool:
    return type(record).objects.values_list("fictional", flat=True).get(pk=record.pk)  # type: ignore[attr-defined]


def test_citations_decide_the_flag_as_they_come_and_go(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    assert _flag(person) is False  # uncited
    from_novel = cite(texts["novel"].passages.get(), "周澜", person=person)
    assert _flag(person) is True
    from_history = cite(texts["history"].passages.get(), "周澜", person=person)
    assert _flag(person) is False
    from_history.delete()
    assert _flag(person) is True
    from_novel.delete()
    assert _flag(person) is False
    assert fiction.stale() == []


def test_an_unapproved_citation_does_not_count_until_approved(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    draft = cite(texts["novel"].passages.get(), "周澜", person=person, status="draft")
    assert _flag(person) is False
    reviewer = user(role="reviewer")
    curation.submit(draft, by=user(role="curator"))
    curation.approve(draft, by=reviewer, shown=decisions.record_pin(draft))
    assert _flag(person) is True


def test_only_a_save_that_may_change_the_evidence_asks_for_a_refresh(
    texts: dict[str, Source], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A draft created, edited, submitted or rejected is nobody's evidence: no flag is recomputed for it."""
    person = approved(Person(slug="zhou-lan", name="周澜"))
    asked: list[set[int]] = []
    real_refresh = fiction.refresh
    monkeypatch.setattr(fiction, "refresh", lambda model, pks=None, using="default": (
        asked.append(set(pks or ())), real_refresh(model, pks, using))[1])
    curator, reviewer = user(role="curator"), user(role="reviewer")
    draft = cite(texts["novel"].passages.get(), "周澜", person=person, status="draft")
    draft.claim = "waits for the boat"
    records.record_update(record=draft, by=curator)
    curation.submit(draft, by=curator)
    curation.reject(draft, by=reviewer, shown=decisions.record_pin(draft), note="not what the passage says")
    assert asked == []
    second = cite(texts["novel"].passages.get(), "周澜在江边", person=person, status="draft")
    curation.submit(second, by=curator)
    curation.approve(second, by=reviewer, shown=decisions.record_pin(second))
    assert asked == [{person.pk}]
    assert _flag(person) is True
    assert fiction.stale() == []


def test_a_citation_moved_to_another_record_refreshes_both(texts: dict[str, Source]) -> None:
    first = approved(Person(slug="first", name="甲"))
    second = approved(Person(slug="second", name="乙"))
    citation = cite(texts["novel"].passages.get(), "周澜", person=first)
    assert (_flag(first), _flag(second)) == (True, False)
    citation = Citation.objects.get(pk=citation.pk)
    citation.person = second
    records.record_update(record=citation, by=user(role="curator"))
    # Proposed: the published citation is still evidence for the first, not yet for the second.
    assert (_flag(first), _flag(second)) == (True, False)
    _approve_pending(citation)
    assert Citation.objects.get(pk=citation.pk).person_id == second.pk
    assert (_flag(first), _flag(second)) == (False, True)
    assert fiction.stale() == []


def test_a_source_that_changes_kind_changes_its_records(texts: dict[str, Source]) -> None:
    place = approved(Location(slug="riverside", name="江边", kind="area"))
    cite(texts["novel"].passages.get(), "江边", location=place)
    assert _flag(place) is True
    source = Source.objects.get(pk=texts["novel"].pk)
    source.kind = "memoir"
    records.record_update(record=source, by=user(role="curator"))
    assert _flag(place) is True  # proposed only: the published source is still a novel
    _approve_pending(source)
    assert _flag(place) is False
    assert fiction.stale() == []


def test_marked_historical_wins_and_a_stale_save_does_not_write_its_old_flag(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    loaded = Person.objects.get(pk=person.pk)  # read while still uncited
    cite(texts["novel"].passages.get(), "周澜", person=person)
    assert _flag(person) is True
    loaded.description = "edited in a form opened earlier"
    records.record_update(record=loaded, by=user(role="curator"))
    _approve_pending(person)  # its copy of the flag (False) is out of date and not written
    assert Person.objects.get(pk=person.pk).description == "edited in a form opened earlier"
    assert _flag(person) is True
    loaded = Person.objects.get(pk=person.pk)
    loaded.marked_historical = True
    records.record_update(record=loaded, by=user(role="curator"))
    assert _flag(person) is True  # proposed only
    _approve_pending(person)
    assert _flag(person) is False


def test_a_stale_save_of_a_draft_does_not_write_its_old_flag(texts: dict[str, Source]) -> None:
    author = user(role="curator")
    person = Person(slug="zhou-lan", name="周澜")
    records.record_create(record=person, by=author)
    loaded = Person.objects.get(pk=person.pk)  # read while still uncited
    cite(texts["novel"].passages.get(), "周澜", person=person)
    assert _flag(person) is True
    loaded.description = "edited in a form opened earlier"
    records.record_update(record=loaded, by=author)
    assert Person.objects.get(pk=person.pk).description == "edited in a form opened earlier"
    assert _flag(person) is True


def test_posts_and_participations_carry_their_own_flag(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    event = approved(Event(slug="waiting", title="等船", kind="crossing"))
    part = approved(Participation(slug="zhou-waits", event=event, person=person, role="participant"))
    cite(texts["novel"].passages.get(), "等船", participation=part)
    assert (_flag(part), _flag(event), _flag(person)) == (True, False, False)


def test_a_merge_gives_the_survivor_the_evidence_of_both(texts: dict[str, Source]) -> None:
    curator = User.objects.create_user("merger", is_staff=True, is_superuser=True)
    real = approved(Person(slug="zhou-lan", name="周澜"))
    invented = approved(Person(slug="zhou-lan-2", name="周斓"))
    cite(texts["novel"].passages.get(), "周澜", person=real)
    cite(texts["history"].passages.get(), "周澜", person=invented)
    assert (_flag(real), _flag(invented)) == (True, False)
    merge(survivor=real, duplicate=invented, by=curator)
    assert (_flag(real), _flag(invented)) == (True, False)  # proposed only
    _approve_pending(real)
    assert _flag(real) is False
    assert fiction.stale() == []


def test_deferred_refreshes_once_at_the_end(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    with fiction.deferred():
        cite(texts["novel"].passages.get(), "周澜", person=person)
        assert _flag(person) is False  # not yet
    assert _flag(person) is True


def test_stale_finds_a_flag_written_behind_its_back(texts: dict[str, Source]) -> None:
    person = approved(Person(slug="zhou-lan", name="周澜"))
    cite(texts["novel"].passages.get(), "周澜", person=person)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Person._meta.db_table} SET fictional = %s WHERE id = %s", [False, person.pk])
    assert fiction.stale() == [("person", "zhou-lan")]
    assert fiction.refresh_all() == 1
    assert fiction.stale() == []
