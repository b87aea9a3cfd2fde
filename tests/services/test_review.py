"""Review of records never published: evidence before publication, and four eyes by contribution.

A person, unit, place, event, post or participation goes public only on an
approved citation, or on a reviewer's stated reason, which the history keeps.
Whoever had a hand in a record (wrote it, edited any version of it, submitted
it) cannot approve it, however many others edited it after them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from archive.models import Status
from archive.services import decisions, review
from tests.admin.helpers import event, location, participation, person, post, source, unit, user
from tests.factories import cite
from tests.services.helpers import action, edit

pytestmark = pytest.mark.django_db

# What each kind of record is cited by: the quote of the test passage and the citation's target field.
KINDS: dict[str, tuple[Callable[..., Any], str]] = {
    "person": (person, "唐生智"),
    "unit": (unit, "第74军"),
    "location": (location, "挹江门"),
    "event": (event, "离开司令部"),
    "post": (post, "军长"),
    "participation": (participation, "撤退"),
}


@pytest.fixture
def curator() -> User:
    return user("review-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("review-reviewer", role="reviewer")


def in_review(kind: str) -> Any:
    build, _quote = KINDS[kind]
    return build(status=Status.IN_REVIEW)


def evidence(record: Any, *, status: str = Status.APPROVED) -> Any:
    _build, quote = KINDS[record._meta.model_name]
    passage = next(p for p in source().passages.all() if quote in p.text)
    return cite(passage, quote, status=status, **{record._meta.model_name: record})


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_record_without_an_approved_citation_is_not_published(kind: str, reviewer: User) -> None:
    record = in_review(kind)
    evidence(record, status=Status.DRAFT)  # a citation nobody has checked is no evidence
    with pytest.raises(ValidationError) as refused:
        review.approve(record, by=reviewer, shown=decisions.record_pin(record))
    assert refused.value.code == "no_evidence" and "no approved citation" in " ".join(refused.value.messages)
    with pytest.raises(ValidationError):
        review.approve(
            record, by=reviewer, without_evidence="   ", shown=decisions.record_pin(record)
        )  # a blank reason is no reason
    record.refresh_from_db()
    assert record.status == Status.IN_REVIEW and record.reviewed_by is None


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_reviewer_may_publish_without_evidence_saying_why(kind: str, reviewer: User) -> None:
    record = in_review(kind)
    review.approve(record, by=reviewer, without_evidence="见于口述，待补引文", shown=decisions.record_pin(record))
    record.refresh_from_db()
    assert record.status == Status.APPROVED and record.reviewed_by == reviewer
    assert "见于口述，待补引文" in record.review_note
    latest = record.history.latest()
    assert latest.history_user == reviewer
    assert latest.history_change_reason == "approved without evidence: 见于口述，待补引文"


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_approved_citation_is_enough(kind: str, reviewer: User) -> None:
    record = in_review(kind)
    evidence(record)
    review.approve(record, by=reviewer, shown=decisions.record_pin(record))
    record.refresh_from_db()
    assert record.status == Status.APPROVED and record.history.latest().history_change_reason == "approved"


def test_the_approve_action_says_why_a_record_without_evidence_stays_in_review(reviewer: User) -> None:
    tang = person(status=Status.IN_REVIEW, slug="tang", name="唐生智")
    response = action(reviewer, type(tang), "approve_selected", [tang.pk], apply="1")
    assert response.status_code == 302
    text = " ".join(str(message) for message in get_messages(response.wsgi_request))
    assert "no approved citation" in text
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW
    assert Client().get("/api/v1/persons/tang/").status_code == 404


def test_sources_and_citations_need_no_citation_of_their_own(reviewer: User) -> None:
    text = source(status=Status.IN_REVIEW)
    review.approve(text, by=reviewer, shown=decisions.record_pin(text))
    assert text.status == Status.APPROVED


# -- four eyes by contribution


def test_a_reviewer_who_edited_a_draft_cannot_approve_it(curator: User, reviewer: User) -> None:
    draft = location(status=Status.DRAFT, created_by=curator, modified_by=curator, description="城门")
    edit(reviewer, draft, description="城北的城门")
    # A curator edits after the reviewer, so the reviewer is no longer the last to modify it.
    edit(curator, draft, description="城北的城门。")
    draft.refresh_from_db()
    assert draft.modified_by == curator
    review.submit(draft, by=curator)
    assert reviewer.pk in review.contributors(draft)
    assert not review.can_review(draft, reviewer)
    with pytest.raises(PermissionDenied):
        review.approve(draft, by=reviewer, without_evidence="测试", shown=decisions.record_pin(draft))
    with pytest.raises(PermissionDenied):
        review.reject(draft, by=reviewer, note="自己改过", shown=decisions.record_pin(draft))
    draft.refresh_from_db()
    assert draft.status == Status.IN_REVIEW
    review.approve(draft, by=user(role="reviewer"), without_evidence="测试", shown=decisions.record_pin(draft))
    assert draft.status == Status.APPROVED


def test_whoever_submitted_a_record_cannot_approve_it(curator: User) -> None:
    submitter = user("review-submitter", role="reviewer")
    draft = person(status=Status.DRAFT, created_by=curator, modified_by=curator)
    review.submit(draft, by=submitter)
    with pytest.raises(PermissionDenied):
        review.approve(draft, by=submitter, without_evidence="测试", shown=decisions.record_pin(draft))
    review.approve(draft, by=user(role="reviewer"), without_evidence="测试", shown=decisions.record_pin(draft))
