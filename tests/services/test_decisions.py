"""A decision binds to what its reviewer read: both racing orders, on whichever engine the suite runs.

Edit, then approve: the approval names the state the reviewer read (its pin),
and anything changed since (the revision, the published record, what a merge
moves, a record in review or its evidence) refuses it with what changed.
Approve, then edit: the edit is a new revision of the newly published
record, and the approved one stays as it was approved. The database is the
backstop: a write committed after the service's check still fails the
decision.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import F

from archive.locking import ConcurrentEdit
from archive.models import Event, Person, PersonName, Revision, RevisionState, Status
from archive.services import decisions, records, revisions
from archive.services import review as curation
from archive.services.citations import citation_create
from archive.services.merges import merge
from tests.factories import approved, cite, in_status, source_with_text, user

pytestmark = pytest.mark.django_db

TEXT = "唐生智于12日傍晚离开司令部，赶往煤炭港码头。\n"


@pytest.fixture
def curator() -> User:
    return user("pin-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("pin-reviewer", role="reviewer")


def _edit(record: Any, by: User, **fields: Any) -> Revision | None:
    live = type(record).objects.get(pk=record.pk)
    for name, value in fields.items():
        setattr(live, name, value)
    return records.record_update(record=live, by=by)


def _read(revision: Revision) -> str:
    """The pin of `revision` as the queue shows it now."""
    revision = Revision.objects.get(pk=revision.pk)
    return decisions.revision_pin(revision, revision.record().version)


def _read_record(record: Any) -> str:
    return decisions.record_pin(type(record).objects.get(pk=record.pk))


def test_an_edit_after_the_reviewer_read_the_change_refuses_the_approval(curator: User, reviewer: User) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="南京卫戍司令长官"))
    revision = _edit(tang, curator, description="无害的描述")
    assert revision is not None
    shown, read = _read(revision), revision.version
    _edit(tang, curator, description="读者从未见过的文字")  # the same pending revision, rewritten

    with pytest.raises(decisions.StaleDecision) as refused:
        revisions.approve_revision(revision=revision, by=reviewer, shown=shown)
    text = " ".join(refused.value.messages)
    assert f"edited after you read it (revision version {read}, now {read + 1})" in text
    assert "读者从未见过的文字" in text  # the change as it now stands
    tang.refresh_from_db()
    revision.refresh_from_db()
    assert tang.description == "南京卫戍司令长官" and revision.state == RevisionState.PENDING
    with pytest.raises(decisions.StaleDecision):
        revisions.reject_revision(revision=revision, by=reviewer, note="不对", shown=shown)
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING

    # Read again, it is decided on what is now shown.
    revisions.approve_revision(revision=revision, by=reviewer, shown=_read(revision))
    tang.refresh_from_db()
    assert tang.description == "读者从未见过的文字"


def test_an_edit_after_the_approval_is_a_new_revision(curator: User, reviewer: User) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="南京卫戍司令长官"))
    revision = _edit(tang, curator, description="经核对的描述")
    assert revision is not None
    opened = revisions.with_pending(Person.objects.get(pk=tang.pk))  # a form opened on the pending change
    revisions.approve_revision(revision=revision, by=reviewer, shown=_read(revision))

    later = _edit(tang, curator, description="之后的改动")
    assert later is not None and later.pk != revision.pk
    tang.refresh_from_db()
    assert later.base_version == tang.version and tang.description == "经核对的描述"
    revision.refresh_from_db()
    assert revision.state == RevisionState.APPROVED and revision.changes["fields"] == {"description": "经核对的描述"}
    # A form still showing the approved change saves nothing over either.
    opened.description = "旧表单的文字"
    with pytest.raises(ValidationError):
        records.record_update(record=opened, by=curator)
    later.refresh_from_db()
    assert later.changes["fields"] == {"description": "之后的改动"}


def test_a_change_of_the_published_record_since_refuses_the_decision(curator: User, reviewer: User) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="旧"))
    revision = _edit(tang, curator, description="新")
    assert revision is not None
    shown = _read(revision)
    Person.objects.filter(pk=tang.pk).update(version=F("version") + 1)  # published again meanwhile
    with pytest.raises(decisions.StaleDecision) as refused:
        revisions.approve_revision(revision=revision, by=reviewer, shown=shown)
    assert "the published record changed" in " ".join(refused.value.messages)


@pytest.mark.parametrize("shown", ["", "1", "x.y.z", "1.1"])
def test_a_decision_that_names_no_state_is_refused(curator: User, reviewer: User, shown: str) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="旧"))
    revision = _edit(tang, curator, description="新")
    assert revision is not None
    with pytest.raises(decisions.StaleDecision, match="names no version"):
        revisions.approve_revision(revision=revision, by=reviewer, shown=shown)
    record = in_status(Person(slug="sun", name="孙元良"), Status.IN_REVIEW)
    with pytest.raises(decisions.StaleDecision):
        curation.approve(record, by=reviewer, without_evidence="试", shown=shown)
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW


DECISIONS = [curation.approve, curation.reject, revisions.approve_revision, revisions.reject_revision]


@pytest.mark.parametrize("service", DECISIONS, ids=lambda service: service.__name__)
def test_every_decision_service_requires_the_pin_as_a_keyword(service: Any) -> None:
    shown = inspect.signature(service).parameters["shown"]
    assert shown.kind is inspect.Parameter.KEYWORD_ONLY and shown.default is inspect.Parameter.empty


def test_a_service_call_without_a_pin_decides_nothing(curator: User, reviewer: User) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="旧"))
    revision = _edit(tang, curator, description="新")
    assert revision is not None
    record = in_status(Person(slug="sun", name="孙元良"), Status.IN_REVIEW)
    with pytest.raises(TypeError, match="shown"):
        revisions.approve_revision(revision=revision, by=reviewer)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="shown"):
        curation.approve(record, by=reviewer, without_evidence="试")  # type: ignore[call-arg]
    # An untyped caller passing no pin at all is refused as stale, by every service.
    for decide in (
        lambda: revisions.approve_revision(revision=revision, by=reviewer, shown=None),
        lambda: revisions.reject_revision(revision=revision, by=reviewer, note="不对", shown=None),
        lambda: curation.approve(record, by=reviewer, without_evidence="试", shown=None),
        lambda: curation.reject(record, by=reviewer, note="不对", shown=None),
    ):
        with pytest.raises(decisions.StaleDecision, match="names no version"):
            decide()
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING and Person.objects.get(pk=tang.pk).description == "旧"
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW


def test_a_pin_computed_before_a_change_is_refused_after_it(curator: User, reviewer: User) -> None:
    """A caller that reads the record or the change itself pins what it read, not what is stored at decision time."""
    tang = approved(Person(slug="tang", name="唐生智", description="旧"))
    revision = _edit(tang, curator, description="新")
    assert revision is not None
    record = in_status(Person(slug="sun", name="孙元良", created_by=curator), Status.IN_REVIEW)
    revision_read, record_read = decisions.revision_pin(revision), decisions.record_pin(record)
    _edit(tang, curator, description="后来的改动")
    _edit(record, curator, name="孙元良（改）")
    with pytest.raises(decisions.StaleDecision):
        revisions.approve_revision(revision=revision, by=reviewer, shown=revision_read)
    with pytest.raises(decisions.StaleDecision):
        revisions.reject_revision(revision=revision, by=reviewer, note="不对", shown=revision_read)
    with pytest.raises(decisions.StaleDecision):
        curation.approve(Person.objects.get(pk=record.pk), by=reviewer, without_evidence="试", shown=record_read)
    with pytest.raises(decisions.StaleDecision):
        curation.reject(Person.objects.get(pk=record.pk), by=reviewer, note="不对", shown=record_read)
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING and revision.changes["fields"] == {"description": "后来的改动"}
    assert Person.objects.get(pk=tang.pk).description == "旧"
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW
    # Read again, the same calls decide.
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert Person.objects.get(pk=tang.pk).description == "后来的改动"
    fresh = Person.objects.get(pk=record.pk)
    curation.reject(fresh, by=reviewer, note="不对", shown=decisions.record_pin(fresh))
    assert Person.objects.get(pk=record.pk).status == Status.REJECTED


def test_a_record_in_review_edited_after_the_reviewer_read_it_is_not_published(
    curator: User, reviewer: User
) -> None:
    record = in_status(Person(slug="tang", name="唐生智", created_by=curator), Status.IN_REVIEW)
    shown = _read_record(record)
    _edit(record, curator, name="唐生智（改）")  # edited in place while in review
    with pytest.raises(decisions.StaleDecision) as refused:
        curation.approve(Person.objects.get(pk=record.pk), by=reviewer, without_evidence="试", shown=shown)
    assert "edited by pin-curator after you read it" in " ".join(refused.value.messages)
    with pytest.raises(decisions.StaleDecision):
        curation.reject(Person.objects.get(pk=record.pk), by=reviewer, note="不对", shown=shown)
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW

    # Approved on what is read now, a later edit is a revision of the published record.
    curation.approve(Person.objects.get(pk=record.pk), by=reviewer, without_evidence="试", shown=_read_record(record))
    published = Person.objects.get(pk=record.pk)
    assert published.status == Status.APPROVED and published.name == "唐生智（改）"
    assert _edit(published, curator, name="唐孟潇") is not None
    assert Person.objects.get(pk=record.pk).name == "唐生智（改）"


def test_evidence_changed_since_refuses_the_decision(curator: User, reviewer: User) -> None:
    passage = source_with_text(TEXT, slug="hist").passages.get(seq=1)
    record = in_status(Event(slug="leave", title="唐生智离开南京", kind="escape", created_by=curator), Status.IN_REVIEW)
    shown = _read_record(record)
    cite(passage, "离开司令部", event=record)  # an approved citation appears: the evidence shown changed
    with pytest.raises(decisions.StaleDecision, match="evidence changed"):
        curation.approve(Event.objects.get(pk=record.pk), by=reviewer, shown=shown)
    curation.approve(Event.objects.get(pk=record.pk), by=reviewer, shown=_read_record(record))
    assert Event.objects.get(pk=record.pk).status == Status.APPROVED


def test_what_a_merge_moves_is_part_of_what_the_reviewer_read(curator: User, reviewer: User) -> None:
    passage = source_with_text(TEXT, slug="hist").passages.get(seq=1)
    tang = approved(Person(slug="tang", name="唐生智"))
    twin = approved(Person(slug="tang-2", name="唐孟潇"))
    revision = merge(survivor=tang, duplicate=twin, by=curator)
    assert isinstance(revision, Revision)
    shown = _read(revision)
    citation_create(passage=passage, quote="唐生智", start=0, end=3, target_type="person", target=twin,
                    claim="后来加的", rank="normal", by=curator)  # now the merge would move a citation too
    with pytest.raises(decisions.StaleDecision, match="what it publishes changed"):
        revisions.approve_revision(revision=revision, by=reviewer, shown=shown)
    assert Person.objects.filter(pk=twin.pk).exists()


def test_the_database_refuses_a_revision_changed_after_the_check(
    curator: User, reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="旧"))
    revision = _edit(tang, curator, description="新")
    assert revision is not None
    checked = decisions.check_revision

    def then_edited(revision: Revision, record: Any, shown: str) -> None:
        checked(revision, record, shown)
        Revision.objects.filter(pk=revision.pk).update(version=F("version") + 1)  # lands after the check

    monkeypatch.setattr(decisions, "check_revision", then_edited)
    with pytest.raises(decisions.StaleDecision, match="changed while it was being decided"):
        revisions.approve_revision(revision=revision, by=reviewer, shown=_read(revision))
    tang.refresh_from_db()
    revision.refresh_from_db()
    assert tang.description == "旧" and revision.state == RevisionState.PENDING


def test_the_database_refuses_a_record_changed_after_the_check(
    curator: User, reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = in_status(Person(slug="tang", name="唐生智", created_by=curator), Status.IN_REVIEW)
    checked = decisions.check_record

    def then_edited(stored: Any, shown: str) -> int:
        pinned = checked(stored, shown)
        Person.objects.filter(pk=stored.pk).update(version=F("version") + 1, name="后来的名字")
        return pinned

    monkeypatch.setattr(decisions, "check_record", then_edited)
    with pytest.raises(ConcurrentEdit):
        curation.approve(Person.objects.get(pk=record.pk), by=reviewer, without_evidence="试",
                         shown=_read_record(record))
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW


def test_a_merge_review_lists_what_it_publishes(curator: User, reviewer: User) -> None:
    passage = source_with_text(TEXT, slug="hist").passages.get(seq=1)
    tang = approved(Person(slug="tang", name="唐生智"))
    twin = approved(Person(slug="tang-2", name="唐孟潇"))
    PersonName.objects.create(person=twin, name="唐司令", kind="title")
    cite(passage, "唐生智", person=twin, claim="他离开了")
    revision = merge(survivor=tang, duplicate=twin, by=curator)
    assert isinstance(revision, Revision)
    rows = [(row.label, row.old, row.new) for row in revisions.describe(revision)]
    assert ("name", "唐司令 (唐孟潇)", "唐司令 (唐生智)") in rows
    assert ("name", "", "唐孟潇 (唐生智)") in rows
    assert any(label == "citation" and new.endswith("→ 唐生智") for label, _old, new in rows), rows
