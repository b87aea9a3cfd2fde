"""Threads on records, citations and revisions, and "changes requested" as a third decision.

A reviewer who requests changes returns a record in review to its authors as
a draft (a change of a published record to its contributors), pinned to what
they read like approval and rejection; the request opens the item's thread,
where curator and reviewer talk, each comment's edits kept in its history.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from archive.models import Comment, CommentKind, Person, Revision, RevisionState, Status
from archive.services import decisions, discussion, records, review, revisions
from tests.admin.helpers import person, source, user
from tests.factories import cite

pytestmark = pytest.mark.django_db


@pytest.fixture
def author() -> User:
    return User.objects.filter(username="factory-author").first() or user("factory-author", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("thread-reviewer", role="reviewer")


def test_a_thread_keeps_author_time_text_and_every_edit(author: User, reviewer: User) -> None:
    record = person(status=Status.IN_REVIEW)
    first = discussion.comment_add(subject=record, by=reviewer, text="  Which source names him?  ")
    answer = discussion.comment_add(subject=record, by=author, text="The history, §3.")
    discussion.comment_edit(comment=answer, by=author, text="The history, §4.")

    shown = discussion.thread(record)
    assert [(c.author, c.text) for c in shown] == [(reviewer, "Which source names him?"), (author, "The history, §4.")]
    assert shown[0].created_at <= shown[1].created_at and shown[1].edited_at is not None
    assert [h.text for h in answer.history.order_by("history_date", "history_id")] == [
        "The history, §3.",
        "The history, §4.",
    ]
    assert answer.history.latest("history_date").history_user == author
    assert first.edited_at is None


def test_only_its_author_edits_a_comment_and_a_comment_is_never_empty(author: User, reviewer: User) -> None:
    record = person(status=Status.IN_REVIEW)
    comment = discussion.comment_add(subject=record, by=author, text="done")
    with pytest.raises(PermissionDenied):
        discussion.comment_edit(comment=comment, by=reviewer, text="changed")
    with pytest.raises(ValidationError):
        discussion.comment_add(subject=record, by=author, text="   ")
    with pytest.raises(PermissionDenied):
        discussion.comment_add(subject=record, by=User.objects.create_user("outsider"), text="hello")
    with transaction.atomic(), pytest.raises(IntegrityError):
        Comment.objects.create(subject_type=comment.subject_type, subject_id=record.pk, author=author, text="")
    assert Comment.objects.get(pk=comment.pk).text == "done"


def test_threads_of_many_items_are_read_in_one_query(author: User, django_assert_num_queries) -> None:
    people = [person(status=Status.IN_REVIEW) for _ in range(4)]
    passage = source().passages.first()
    citation = cite(passage, passage.text[:2], status=Status.IN_REVIEW, person=people[0])
    for item in [*people, citation]:
        discussion.comment_add(subject=item, by=author, text=f"about {item.pk}")
    discussion.thread(people[0])  # the content types are cached once
    with django_assert_num_queries(1):
        found = discussion.threads([*people, citation])
    assert [c.text for c in found[discussion.thread_key(citation)]] == [f"about {citation.pk}"]
    assert all(len(found[discussion.thread_key(p)]) == 1 for p in people)


def test_changes_requested_returns_a_record_to_its_author_as_a_draft_with_the_thread(
    author: User, reviewer: User
) -> None:
    record = person(status=Status.IN_REVIEW)
    pin = decisions.record_pin(record)
    with pytest.raises(ValidationError):
        review.request_changes(record, by=reviewer, note=" ", shown=pin)

    review.request_changes(record, by=reviewer, note="Give his courtesy name.", shown=pin)

    record.refresh_from_db()
    assert record.status == Status.DRAFT and record.reviewed_by == reviewer
    assert [(c.kind, c.text) for c in discussion.thread(record)] == [
        (CommentKind.CHANGES_REQUESTED, "Give his courtesy name.")
    ]
    assert record.history.latest("history_date").history_change_reason.startswith("changes requested")
    # The decision is no contribution: the reviewer may still decide after the author resubmits.
    review.submit(record, by=author)
    assert review.can_review(record, reviewer)
    assert discussion.waiting_for_changes(Person, [record.pk]) == {record.pk}


def test_changes_requested_is_pinned_to_what_was_read(author: User, reviewer: User) -> None:
    record = person(status=Status.IN_REVIEW)
    pin = decisions.record_pin(record)
    record.description = "edited meanwhile"
    records.record_update(record=record, by=author)
    with pytest.raises(decisions.StaleDecision):
        review.request_changes(Person.objects.get(pk=record.pk), by=reviewer, note="Fix it.", shown=pin)
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW
    assert not Comment.objects.exists()
    with pytest.raises(PermissionDenied):
        review.request_changes(record, by=author, note="Fix it.", shown=decisions.record_pin(record))


def test_changes_requested_returns_a_revision_which_an_edit_sends_back_to_review(
    author: User, reviewer: User
) -> None:
    published = person()
    published.description = "first try"
    revision = records.record_update(record=published, by=author)
    assert isinstance(revision, Revision)
    pin = decisions.revision_pin(revision)

    revisions.request_revision_changes(revision=revision, by=reviewer, note="Say where he was.", shown=pin)

    revision.refresh_from_db()
    assert revision.state == RevisionState.RETURNED
    assert not Revision.objects.pending().filter(pk=revision.pk).exists()  # out of the queue
    assert revisions.pending_revision(published) == revision  # still the record's open change
    assert [c.text for c in discussion.thread(revision)] == ["Say where he was."]
    with pytest.raises(ValidationError):  # no decision on a returned change
        revisions.approve_revision(revision=revision, by=reviewer, shown=pin)

    again = Person.objects.get(pk=published.pk)
    again.description = "at the gate"
    assert records.record_update(record=again, by=author) == revision
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING and revision.changes["fields"]["description"] == "at the gate"
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert Person.objects.get(pk=published.pk).description == "at the gate"


def test_a_returned_revision_is_sent_back_unchanged_only_by_its_contributors(author: User, reviewer: User) -> None:
    published = person()
    published.description = "as it was meant"
    revision = records.record_update(record=published, by=author)
    assert revision is not None
    old_pin = decisions.revision_pin(revision)
    revisions.request_revision_changes(revision=revision, by=reviewer, note="Why?", shown=old_pin)
    with pytest.raises(PermissionDenied):
        revisions.resubmit_revision(revision=revision, by=reviewer)
    discussion.comment_add(subject=revision, by=author, text="The memoir says so, §12.")
    revisions.resubmit_revision(revision=revision, by=author)
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING
    with pytest.raises(decisions.StaleDecision):  # read before it came back
        revisions.approve_revision(revision=revision, by=reviewer, shown=old_pin)
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
