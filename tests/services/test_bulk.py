"""Bulk submit, approve and reject, and batches of suggested mentions, as one service call each.

Every rule of the one-record services holds in bulk: four eyes, the pin of
what the reviewer read (an item changed since is refused by name, the others
are decided), evidence before publication; every item keeps its own history
row naming the decider and the reason; the fiction flags and the cached
documents follow an approval. A batch of 300 costs a bounded number of
statements, whatever its size.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import Batch, Citation, DocumentVersion, Location, Person, Source, Status
from archive.models.document_versions import EVERYTHING
from archive.services import batches, bulk, decisions, records, review
from archive.services.citations import MENTION_CLAIM
from archive.services.mentions import BATCH_REASON, cite_all_mentions, cite_many, cite_mention
from tests.admin.helpers import person, user
from tests.factories import approved, source_with_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> User:
    return user("bulk-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("bulk-reviewer", role="reviewer")


def _drafts(n: int, by: User, *, fiction: bool = False) -> tuple[Source, list[Citation], Person]:
    """`n` draft citations by `by` of one approved person, one per passage."""
    text = "\n\n".join(f"第{i}段：唐生智下令撤退。" for i in range(n))
    source = source_with_text(text, kind="novel" if fiction else "history")
    target = person()
    made = []
    for passage in source.passages.order_by("seq"):
        start = passage.text.index("唐生智")
        citation = Citation(passage=passage, quote="唐生智", start=start, end=start + 3, claim="named here",
                            person=target)
        made.append(records.record_create(record=citation, by=by))
    return source, made, target


def _keys(items: list[Any]) -> list[tuple[type, int]]:
    return [(type(item), item.pk) for item in items]


def _pins(items: list[Any]) -> dict[tuple[type, int], str]:
    fresh = [type(item)._default_manager.get(pk=item.pk) for item in items]
    return {(type(item), item.pk): decisions.record_pin(item) for item in fresh}


def test_submit_many_sends_drafts_to_review_with_a_history_row_each(curator: User) -> None:
    _source, made, _target = _drafts(5, curator)
    approved_one = approved(Location(slug="bulk-place", name="挹江门", kind="gate"))
    outcome = bulk.submit_many(records=[*_keys(made), (Location, approved_one.pk)], by=curator)
    assert len(outcome.done) == 5
    assert [label for label, _reason in outcome.refused] == [str(approved_one)]
    for citation in made:
        stored = Citation.objects.get(pk=citation.pk)
        assert stored.status == Status.IN_REVIEW and stored.version == citation.version + 1
        last = stored.history.order_by("-history_date", "-history_id").first()
        assert last.history_user == curator and last.history_change_reason == "submitted for review"
        assert last.status == Status.IN_REVIEW


def test_approve_many_decides_what_was_shown_and_names_what_changed(curator: User, reviewer: User) -> None:
    _source, made, target = _drafts(4, curator)
    bulk.submit_many(records=_keys(made), by=curator)
    shown = _pins(made)
    # One is edited after the reviewer read it: refused by name, the others approved.
    edited = Citation.objects.get(pk=made[0].pk)
    edited.claim = "commands here"
    records.record_update(record=edited, by=curator)
    before = DocumentVersion.objects.versions([EVERYTHING])[EVERYTHING]
    outcome = bulk.approve_many(shown=shown, by=reviewer, note="read together")
    assert {c.pk for c in outcome.done} == {c.pk for c in made[1:]}
    assert len(outcome.refused) == 1 and outcome.refused[0][0] == str(edited)
    assert "edited by bulk-curator after you read it" in outcome.refused[0][1]
    assert Citation.objects.get(pk=made[0].pk).status == Status.IN_REVIEW
    for citation in made[1:]:
        stored = Citation.objects.get(pk=citation.pk)
        assert stored.status == Status.APPROVED and stored.reviewed_by == reviewer
        assert stored.review_note == "read together"
        last = stored.history.order_by("-history_date", "-history_id").first()
        assert last.history_user == reviewer and last.history_change_reason == "approved: read together"
    # Published: the cached documents are stale, and the person's evidence is there.
    assert DocumentVersion.objects.versions([EVERYTHING])[EVERYTHING] > before
    assert target.citations.filter(status=Status.APPROVED).count() == 3


def test_approving_fiction_in_bulk_sets_the_fiction_flag(curator: User, reviewer: User) -> None:
    _source, made, _target = _drafts(2, curator, fiction=True)
    target = Person.objects.create(slug="only-in-fiction", name="孫百里", status=Status.DRAFT, created_by=curator)
    for citation in made:
        Citation.objects.filter(pk=citation.pk).update(person=target)
    review.submit(target, by=curator)
    bulk.submit_many(records=_keys(made), by=curator)
    outcome = bulk.approve_many(shown=_pins([*made, target]), by=reviewer)
    assert not outcome.refused, outcome.refused
    target.refresh_from_db()
    assert target.status == Status.APPROVED and target.fictional  # its evidence was approved in the same call


def test_four_eyes_and_evidence_hold_in_bulk(curator: User, reviewer: User) -> None:
    _source, made, _target = _drafts(2, curator)
    bulk.submit_many(records=_keys(made), by=curator)
    lonely = person(status=Status.IN_REVIEW)
    outcome = bulk.approve_many(shown=_pins([*made, lonely]), by=curator)
    assert not outcome.done and len(outcome.refused) == 3
    assert all("contributed" in reason or "not allowed" in reason for _label, reason in outcome.refused)
    outcome = bulk.approve_many(shown=_pins([lonely]), by=reviewer)
    assert not outcome.done and "no approved citation" in outcome.refused[0][1]


def test_reject_many_says_why_and_sends_back(curator: User, reviewer: User) -> None:
    _source, made, _target = _drafts(3, curator)
    bulk.submit_many(records=_keys(made), by=curator)
    with pytest.raises(ValidationError):
        bulk.reject_many(shown=_pins(made), by=reviewer, note="  ")
    outcome = bulk.reject_many(shown=_pins(made), by=reviewer, note="not a mention")
    assert len(outcome.done) == 3
    assert set(Citation.objects.filter(pk__in=[c.pk for c in made]).values_list("status", flat=True)) == {
        Status.REJECTED
    }
    # A rejected citation can be sent again.
    assert len(bulk.submit_many(records=_keys(made), by=curator).done) == 3


def test_a_write_after_the_checks_undoes_the_whole_call(curator: User, reviewer: User, monkeypatch: Any) -> None:
    _source, made, _target = _drafts(3, curator)
    bulk.submit_many(records=_keys(made), by=curator)
    real = bulk._approved_evidence

    def edit_meanwhile(checked: Any) -> Any:
        Citation.objects.filter(pk=made[1].pk).update(version=99)
        return real(checked)

    monkeypatch.setattr(bulk, "_approved_evidence", edit_meanwhile)
    with pytest.raises(bulk.BatchChanged):
        bulk.approve_many(shown=_pins(made), by=reviewer)
    assert set(Citation.objects.filter(pk__in=[c.pk for c in made]).values_list("status", flat=True)) == {
        Status.IN_REVIEW
    }


def _mention_source(n: int) -> Source:
    approved(Location(slug="xiaguan", name="下关", kind="district"))
    approved(Location(slug="xiaguan-pier", name="下关码头", kind="pier"))
    approved(Person(slug="tang", name="唐生智", side="chinese"))
    approved(Person(slug="tang-2", name="唐生智", side="chinese"))  # two of one name: ambiguous
    text = "\n\n".join(f"第{i}段：部队经下关撤退。" for i in range(n)) + "\n\n唐生智到了。"
    return source_with_text(text)


def test_a_batch_is_previewed_made_as_shown_and_withdrawn_by_its_author(curator: User, reviewer: User) -> None:
    source = _mention_source(6)
    preview = batches.preview_mentions(source=source)
    assert len(preview.chosen) == 6 and [a.quote for a in preview.ambiguous] == ["唐生智"]
    assert preview.by_record == [("location", "下关", 6)]
    # A preview that no longer holds makes nothing.
    with pytest.raises(ValidationError):
        cite_all_mentions(source=source, by=curator, shown="0" * 20)
    assert not Citation.objects.exists()
    made = cite_all_mentions(source=source, by=curator, shown=preview.digest)
    batch = made.record
    assert batch is not None and batch.size == 6 and batch.citations.count() == 6
    # One is submitted and approved: withdrawing keeps it and deletes the five undecided.
    first = made.created[0]
    review.submit(first, by=curator)
    review.approve(first, by=reviewer, shown=decisions.record_pin(Citation.objects.get(pk=first.pk)))
    with pytest.raises(PermissionDenied):
        batches.withdraw_batch(batch=batch, by=reviewer)
    done = batches.withdraw_batch(batch=batch, by=curator)
    assert (done.withdrawn, done.kept) == (5, 1)
    assert list(Citation.objects.values_list("pk", flat=True)) == [first.pk]
    gone = Citation.history.filter(history_type="-")
    assert gone.count() == 5 and set(gone.values_list("history_user", flat=True)) == {curator.pk}
    assert Batch.objects.get(pk=batch.pk).withdrawn_at is not None
    with pytest.raises(ValidationError):
        batches.withdraw_batch(batch=batch, by=curator)


def test_a_batch_of_300_is_made_submitted_and_approved_in_bounded_statements(curator: User, reviewer: User) -> None:
    source = _mention_source(300)
    shown = batches.preview_mentions(source=source).digest
    with CaptureQueriesContext(connection) as cited:
        made = cite_all_mentions(source=source, by=curator, shown=shown)
    assert len(made.created) == 300
    # Each draft as the one-by-one path names and records it: its first free name, a history row of its own.
    assert all(c.slug == c.slug_candidate(0) and c.claim == MENTION_CLAIM for c in made.created)
    history = Citation.history.filter(history_type="+", history_change_reason=BATCH_REASON)
    assert sorted(history.values_list("id", flat=True)) == sorted(c.pk for c in made.created)
    assert set(history.values_list("history_user", flat=True)) == {curator.pk}
    assert len(cited.captured_queries) < 40, len(cited.captured_queries)
    with CaptureQueriesContext(connection) as submitted:
        outcome = batches.submit_drafts_of_source(source=source, by=curator)
    assert len(outcome.done) == 300 and not outcome.refused
    shown = _pins(made.created)
    with CaptureQueriesContext(connection) as decided:
        outcome = bulk.approve_many(shown=shown, by=reviewer)
    assert len(outcome.done) == 300 and not outcome.refused
    assert Citation.objects.filter(status=Status.APPROVED).count() == 300
    assert Citation.history.filter(history_change_reason="approved").count() == 300
    # A handful of statements per model and chunk, never one per item.
    assert len(submitted.captured_queries) < 30, len(submitted.captured_queries)
    assert len(decided.captured_queries) < 40, len(decided.captured_queries)


def test_a_bulk_draft_is_refused_where_one_by_one_would_be(curator: User) -> None:
    """A mention cited meanwhile (a twin) or a name already taken is handled as `citation_create` does."""
    source = _mention_source(3)
    chosen = batches.preview_mentions(source=source).chosen
    passage, suggestion = chosen[0]
    meanwhile = cite_mention(passage=passage, key=suggestion.key, by=curator, submit=False)
    # The name the second draft would take first is taken by another citation: it takes the next one.
    second = Citation(passage=chosen[1][0], quote=chosen[1][1].quote, start=chosen[1][1].start,
                      end=chosen[1][1].end, location_id=chosen[1][1].record_id)
    Citation.objects.filter(pk=meanwhile.pk).update(slug=second.slug_candidate(0))
    made = cite_many(chosen, by=curator)
    assert len(made) == 2 and meanwhile.pk not in {c.pk for c in made}
    assert made[0].slug == second.slug_candidate(1)
    assert Citation.objects.filter(passage=passage, location_id=suggestion.record_id).count() == 1
