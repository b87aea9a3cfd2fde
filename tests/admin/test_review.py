"""The review queue: evidence in its passage, four eyes, single and bulk decisions."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.admin import review as review_view
from archive.models import (
    Citation,
    Event,
    Location,
    Passage,
    PassageRole,
    Person,
    PersonName,
    Revision,
    RevisionState,
    Statement,
    Status,
)
from archive.services import records, revisions
from archive.services import review as curation
from tests.admin.helpers import client_for as client_for_user
from tests.factories import approved, cite, in_status, source_with_text, user

pytestmark = pytest.mark.django_db

TEXT = "唐生智于12日傍晚离开司令部，赶往煤炭港码头。\n\n部队拥向挹江门。\n"
NOVEL = "孙百里望着江面，想起唐司令那晚的船。\n"
URL = "/admin/curate/review/"
PIN = re.compile(r'name="(pin-[^"]+)" value="([^"]*)"')


def decide(client: Client, data: dict[str, Any], **kwargs: Any) -> Any:
    """Post a decision as the browser does: from the queue as it was read, with every pin it shows."""
    shown = dict(PIN.findall(client.get(URL).content.decode()))
    return client.post(URL, {**shown, **data}, **kwargs)


@pytest.fixture
def passage() -> Passage:
    return source_with_text(TEXT, slug="hist", kind="history").passages.get(seq=1)


@pytest.fixture
def event() -> Event:
    return approved(Event(slug="tang-leaves", title="唐生智离开南京", kind="escape"))


@pytest.fixture
def reviewer() -> User:
    return user("rev", role="reviewer")


@pytest.fixture
def reviewer_client(reviewer: User) -> Client:
    client = Client()
    client.force_login(reviewer)
    return client


def test_queue_is_named_and_staff_only() -> None:
    assert reverse("archive_curate:review") == URL
    assert Client().get(URL).status_code == 302


def test_queue_shows_citations_inside_their_whole_passage(
    reviewer_client: Client, passage: Passage, event: Event
) -> None:
    cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW, claim="went to the dock")
    cite(passage, "离开司令部", event=event, status=Status.DRAFT, claim="a draft")
    response = reviewer_client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="group-citation"' in html
    assert "唐生智于12日傍晚离开司令部，赶往<mark " in html and ">煤炭港码头</mark>。" in html
    assert "Title hist" in html and "history" in html
    assert "went to the dock" in html
    assert "a draft" not in html  # drafts are not in review
    assert reverse("archive_curate:accounts", args=["tang-leaves"]) in html


def test_queue_groups_records_by_model_and_marks_fiction(reviewer_client: Client, passage: Passage) -> None:
    novel = source_with_text(NOVEL, slug="novel", kind="web-novel").passages.get(seq=1)
    person = in_status(Person(slug="sun", name="孙百里"), Status.IN_REVIEW)
    cite(novel, "孙百里", person=person, status=Status.IN_REVIEW)
    in_status(Event(slug="e2", title="撤退", kind="retreat"), Status.IN_REVIEW)
    html = reviewer_client.get(URL).content.decode()
    person_group, event_group, citation_group = (
        html.index(f'id="group-{name}"') for name in ("person", "event", "citation")
    )
    assert person_group < event_group < citation_group
    person_section = html[person_group:event_group]
    assert "孙百里" in person_section and 'class="badge badge-fiction"' in person_section
    assert "<mark " in person_section


def test_four_eyes_the_author_sees_why_instead_of_buttons(passage: Passage, event: Event) -> None:
    mine = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    author = mine.created_by
    author.groups.add(*User.objects.get(username="factory-reviewer").groups.all())  # may review in general
    client = Client()
    client.force_login(author)
    html = client.get(URL).content.decode()
    record = html.split(f'id="record-citation-{mine.pk}"', 1)[1].split("</article>", 1)[0]
    assert "You created this record: another reviewer must approve or reject it." in record
    assert f'value="approve:citation-{mine.pk}"' not in record
    assert 'name="selected"' not in record
    # Forcing the request anyway is refused with a message, never a 500.
    response = decide(client, {"action": f"approve:citation-{mine.pk}"}, follow=True)
    assert response.status_code == 200
    assert "you contributed to it" in " ".join(str(m) for m in response.context["messages"])
    mine.refresh_from_db()
    assert mine.status == Status.IN_REVIEW


def test_the_last_editor_may_not_review_either(
    reviewer: User, reviewer_client: Client, passage: Passage, event: Event
) -> None:
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    Citation.objects.filter(pk=citation.pk).update(modified_by=reviewer)
    html = reviewer_client.get(URL).content.decode()
    assert "You changed this record last" in html


def _reviewer_of_people_only() -> User:
    """A curator who may review people and nothing else."""
    account = user("people-reviewer", role="curator")
    account.user_permissions.add(Permission.objects.get(codename="review_person"))
    return account


def test_the_queue_is_a_reviewers_and_says_what_they_may_not_review(passage: Passage, event: Event) -> None:
    cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    client = Client()
    client.force_login(user("cur2", role="curator"))
    assert client.get(URL).status_code == 403  # a curator has no queue
    client.force_login(_reviewer_of_people_only())
    html = client.get(URL).content.decode()
    assert "You are not allowed to review citations." in html


def test_approve_one_with_a_note(reviewer: User, reviewer_client: Client, passage: Passage, event: Event) -> None:
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    key = f"citation-{citation.pk}"
    response = decide(reviewer_client, {"action": f"approve:{key}", f"note-{key}": "matches the text"})
    assert response.status_code == 302 and response["Location"] == URL
    citation.refresh_from_db()
    assert citation.status == Status.APPROVED
    assert citation.reviewed_by == reviewer and citation.review_note == "matches the text"
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Approved citation “煤炭港码头” (hist §1)."]


def test_reject_needs_a_note(reviewer_client: Client, passage: Passage, event: Event) -> None:
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    key = f"citation-{citation.pk}"
    response = decide(reviewer_client, {"action": f"reject:{key}", f"note-{key}": ""}, follow=True)
    assert response.status_code == 200
    assert "A rejection says why." in response.content.decode()
    citation.refresh_from_db()
    assert citation.status == Status.IN_REVIEW
    decide(reviewer_client, {"action": f"reject:{key}", f"note-{key}": "wrong dock"})
    citation.refresh_from_db()
    assert citation.status == Status.REJECTED and citation.review_note == "wrong dock"


def test_bulk_approve_decides_each_record_and_reports_refusals(
    reviewer: User, reviewer_client: Client, passage: Passage, event: Event
) -> None:
    first = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    second = cite(passage, "离开司令部", event=event, status=Status.IN_REVIEW)
    person = in_status(Person(slug="tang", name="唐生智"), Status.IN_REVIEW)
    cite(passage, "傍晚", person=person)  # approved evidence, so the person may be published
    own = Citation(passage=passage, quote="唐生智", start=0, end=3, claim="x", person=person)
    own.created_by = own.modified_by = reviewer
    own.save()
    curation.submit(own, by=reviewer)
    keys = [f"citation-{first.pk}", f"citation-{second.pk}", f"person-{person.pk}", f"citation-{own.pk}"]
    response = decide(
        reviewer_client,
        {"action": "bulk-approve", "selected": keys, "bulk_note": "checked against the text"},
        follow=True,
    )
    assert response.status_code == 200
    texts = [str(m) for m in response.context["messages"]]
    assert "Approved 3 records: “唐生智”, “煤炭港码头” (hist §1), “离开司令部” (hist §1)." in texts
    assert any("you contributed to it" in t for t in texts)
    for record in (first, second, person):
        record.refresh_from_db()
        assert record.status == Status.APPROVED and record.review_note == "checked against the text"
    own.refresh_from_db()
    assert own.status == Status.IN_REVIEW


def test_bulk_reject_with_one_note(reviewer_client: Client, passage: Passage, event: Event) -> None:
    first = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    second = cite(passage, "离开司令部", event=event, status=Status.IN_REVIEW)
    decide(
        reviewer_client,
        {"action": "bulk-reject", "selected": [f"citation-{first.pk}", f"citation-{second.pk}"], "bulk_note": "no"},
    )
    assert set(Citation.objects.values_list("status", flat=True)) == {Status.REJECTED}


def test_bad_requests_become_messages(reviewer_client: Client, passage: Passage, event: Event) -> None:
    approved_citation = cite(passage, "煤炭港码头", event=event)
    for data, expected in (
        ({"action": "bulk-approve"}, "Select the records"),
        ({"action": "explode"}, "Unknown action."),
        ({"action": "approve:nothing-1"}, "No such record: nothing-1."),
        ({"action": "approve:citation-999999"}, "No such record"),
        ({"action": f"approve:citation-{approved_citation.pk}"}, "Only a record in review can be approved"),
    ):
        response = decide(reviewer_client, data, follow=True)
        assert response.status_code == 200
        assert any(expected in str(m) for m in response.context["messages"]), data


def test_queue_query_count_does_not_grow_with_records(
    reviewer_client: Client, passage: Passage, event: Event, django_assert_max_num_queries
) -> None:
    words = ["唐生智", "12日", "傍晚", "离开", "司令部", "赶往", "煤炭港", "码头"]
    for word in words[:2]:
        cite(passage, word, event=event, status=Status.IN_REVIEW)
    in_status(Event(slug="ev-a", title="a", kind="other"), Status.IN_REVIEW)
    reviewer_client.get(URL)
    with CaptureQueriesContext(connection) as few:
        reviewer_client.get(URL)
    for word in words[2:]:
        cite(passage, word, event=event, status=Status.IN_REVIEW)
    for n in range(5):
        in_status(Event(slug=f"ev-{n}", title=f"e{n}", kind="other"), Status.IN_REVIEW)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = reviewer_client.get(URL)
    assert response.content.decode().count('class="review-record"') == len(words) + 6


# ---------------------------------------------------------------------------
# Records with no approved evidence


def test_a_record_with_no_approved_evidence_is_flagged_and_needs_a_note(
    reviewer: User, reviewer_client: Client, passage: Passage
) -> None:
    person = in_status(Person(slug="bare", name="无据之人"), Status.IN_REVIEW)
    cite(passage, "唐生智", person=person, status=Status.IN_REVIEW)  # evidence, but not approved yet
    key = f"person-{person.pk}"
    html = reviewer_client.get(URL).content.decode()
    article = html.split(f'id="record-{key}"', 1)[1].split("</article>", 1)[0]
    assert "No approved evidence" in article
    assert f'name="without_evidence-{key}"' in article

    response = decide(reviewer_client, {"action": f"approve:{key}", f"note-{key}": "looks right"}, follow=True)
    assert response.status_code == 200
    assert any("has no approved citation" in str(m) for m in response.context["messages"])
    person.refresh_from_db()
    assert person.status == Status.IN_REVIEW

    reason = (
        "named in the garrison roll of 12 December, which is not yet imported: the roll is kept in the "
        "Second Historical Archives and lists him under his courtesy name"
    )
    assert len(reason) > 100  # kept whole in the history, not cut to a column's size
    response = decide(
        reviewer_client, {"action": f"approve:{key}", f"note-{key}": "looks right", f"without_evidence-{key}": reason}
    )
    assert [str(m) for m in get_messages(response.wsgi_request)] == [f"Approved person “{person}”."]
    person.refresh_from_db()
    assert person.status == Status.APPROVED and reason in person.review_note
    last = person.history.order_by("-history_date", "-history_id").first()
    assert last.history_user == reviewer and last.history_change_reason == f"approved without evidence: {reason}"


def test_a_record_with_approved_evidence_is_not_flagged(reviewer_client: Client, passage: Passage) -> None:
    person = in_status(Person(slug="cited", name="唐生智"), Status.IN_REVIEW)
    cite(passage, "唐生智", person=person)
    html = reviewer_client.get(URL).content.decode()
    article = html.split(f'id="record-person-{person.pk}"', 1)[1].split("</article>", 1)[0]
    assert "No approved evidence" not in article and "without_evidence-" not in article


# ---------------------------------------------------------------------------
# Changes of published records


LONG = "部队拥向挹江门，城门只开一扇。" * 40 + "The crowd pressed on the gate until nightfall."


@pytest.fixture
def curator() -> User:
    return user("queue-curator", role="curator")


def _propose(record: Any, by: User, **fields: Any) -> Revision:
    live = type(record).objects.get(pk=record.pk)
    m2m = fields.pop("m2m", None)
    for name, value in fields.items():
        setattr(live, name, value)
    revision = records.record_update(record=live, by=by, m2m=m2m)
    assert revision is not None
    return revision


def _article(html: str, revision: Revision) -> str:
    return html.split(f'id="revision-{revision.pk}"', 1)[1].split("</article>", 1)[0]


def test_word_diff_marks_cjk_by_character_and_latin_by_word() -> None:
    old, new = review_view.word_diff("唐生智离开南京 at dusk", "唐生智撤出南京 at night <b>")
    assert old == "唐生智<del>离开</del>南京 at <del>dusk</del>"
    assert new == "唐生智<ins>撤出</ins>南京 at <ins>night &lt;b&gt;</ins>"
    assert review_view.tokens("第74军 moved") == ["第", "74", "军", " ", "moved"]
    # Two long texts still come out whole.
    old, new = review_view.word_diff(LONG, LONG.replace("nightfall", "dawn"))
    assert old.endswith("until <del>nightfall</del>.") and new.endswith("until <ins>dawn</ins>.")
    assert old.count("挹江门") == 40


def test_word_diff_of_two_long_texts_stays_whole_and_quick() -> None:
    import time

    lines = [f"第{n}段：部队拥向挹江门，城门只开一扇，人马拥挤。\n" for n in range(4000)]
    old_text = "".join(lines)
    new_text = "".join([*lines[:1000], "新增一段：唐生智乘船离开。\n", *lines[1000:3000], *lines[3001:]])
    began = time.monotonic()
    old, new = review_view.word_diff(old_text, new_text)
    assert time.monotonic() - began < 5
    assert new.count("<ins>") == 1 and "<ins>新增一段：唐生智乘船离开。\n</ins>" in new
    assert old.count("<del>") == 1
    deleted = old.split("<del>", 1)[1].split("</del>", 1)[0]
    assert len(deleted) == len(lines[3000]) and "3000" in deleted  # one line, wherever the match cuts it
    assert old.replace("<del>", "").replace("</del>", "") == old_text
    assert new.replace("<ins>", "").replace("</ins>", "") == new_text


def test_queue_shows_a_pending_change_as_a_word_diff_beside_the_evidence(
    reviewer_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    Event.objects.filter(pk=event.pk).update(description=LONG)
    event.refresh_from_db()
    cite(passage, "煤炭港码头", event=event, claim="went to the dock")
    parent = approved(Event(slug="retreat", title="南京撤退", kind="retreat"))
    gate = approved(Location(slug="yijiang", name="挹江门", kind="gate"))
    revision = _propose(
        event,
        curator,
        title="唐生智撤出南京",
        description=LONG.replace("nightfall", "dawn"),
        kind="retreat",
        parent_id=parent.pk,
        m2m={"locations": [gate]},
    )
    response = reviewer_client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="group-revision-event"' in html
    article = _article(html, revision)
    assert "唐生智<del>离开</del>南京" in article and "唐生智<ins>撤出</ins>南京" in article
    assert "until <del>nightfall</del>." in article and "until <ins>dawn</ins>." in article
    assert article.count("挹江门，城门只开一扇。") >= 80  # the long description whole, on both sides
    assert "<del>escape</del>" in article and "<ins>retreat</ins>" in article  # choices by their names
    assert "<ins>南京撤退</ins>" in article  # a link by the record's name
    assert "<ins>挹江门</ins>" in article
    assert "proposed by queue-curator" in article
    assert "went to the dock" in article and ">煤炭港码头</mark>" in article  # the approved evidence
    assert f'value="approve-revision:{revision.pk}"' in article


def test_describe_many_shows_each_revision_by_name_in_few_queries(curator: User, event: Event) -> None:
    gate = approved(Location(slug="yijiang", name="挹江门", kind="gate"))
    first = _propose(event, curator, title="唐生智撤出南京", kind="retreat", m2m={"locations": [gate]})
    tang = approved(Person(slug="tang", name="唐生智"))
    name = PersonName.objects.create(person=tang, name="唐孟潇")
    second = _propose(tang, curator, name="唐 生智")
    changed = PersonName.objects.get(pk=name.pk)
    changed.name = "孟潇"
    records.child_save(child=changed, parent_field="person", by=curator)
    records.child_save(child=PersonName(person=tang, name="唐司令"), parent_field="person", by=curator)
    hist = source_with_text(TEXT, slug="quoting", kind="memoir")
    quoted = source_with_text(NOVEL, slug="quoted", kind="web-novel")
    passage = Passage.objects.get(source=hist, seq=2)
    passage.role, passage.quotes = PassageRole.QUOTATION, quoted
    third = records.child_save(child=passage, parent_field="source", by=curator)
    pending = list(Revision.objects.pending().select_related("record_type"))
    assert third is not None and {r.pk for r in pending} == {first.pk, second.pk, third.pk}
    with CaptureQueriesContext(connection) as queries:
        many = revisions.describe_many(pending)
    assert len(queries) <= 8  # one per kind of record read, however many revisions and rows
    rows = {pk: [(r.label, r.old, r.new) for r in described] for pk, described in many.items()}
    assert rows[first.pk] == [
        ("title", "唐生智离开南京", "唐生智撤出南京"),
        ("kind", "escape", "retreat"),
        ("locations", "", "挹江门"),
    ]
    assert rows[second.pk] == [
        ("name", "唐生智", "唐 生智"),
        ("name: name", "唐孟潇", "孟潇"),
        ("name: name", "", "唐司令"),
        ("name: kind", "", "alias"),
        ("name: script", "", "Simplified Chinese"),
    ]
    assert rows[third.pk] == [("passage: role", "body", "quotation"), ("passage: quotes", "", "Title quoted")]
    assert [(r.label, r.old, r.new) for r in revisions.describe(third)] == rows[third.pk]


def test_bulk_decisions_take_changes_of_published_records_beside_records(
    reviewer: User, reviewer_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    cite(passage, "离开司令部", event=event)  # approved evidence of the event
    change = _propose(event, curator, title="唐生智撤出南京")
    gate = approved(Location(slug="yijiang", name="挹江门", kind="gate"))
    cite(passage, "码头", location=gate)
    other = _propose(gate, curator, name="挹江門")
    own = _propose(approved(Location(slug="dock", name="煤炭港", kind="dock")), reviewer, name="煤炭港码头")
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    page = reviewer_client.get(URL).content.decode()
    assert f'name="selected" value="revision-{change.pk}"' in page
    assert f'name="selected" value="revision-{own.pk}"' not in page  # one's own change offers no box
    keys = [f"revision-{change.pk}", f"revision-{own.pk}", f"citation-{citation.pk}"]
    response = decide(
        reviewer_client, {"action": "bulk-approve", "selected": keys, "bulk_note": "as the memoir says"}, follow=True
    )
    texts = [str(m) for m in response.context["messages"]]
    assert "Approved the change of “唐生智撤出南京”: it is published." in texts
    assert "Approved 1 record: “煤炭港码头” (hist §1)." in texts
    assert any(text.startswith("Change of “煤炭港码头”") for text in texts)  # refused: the reviewer proposed it
    event.refresh_from_db()
    assert event.title == "唐生智撤出南京"
    change.refresh_from_db()
    assert change.state == RevisionState.APPROVED and change.review_note == "as the memoir says"
    own.refresh_from_db()
    assert own.state == RevisionState.PENDING
    decide(reviewer_client, {"action": "bulk-reject", "selected": [f"revision-{other.pk}"], "bulk_note": "no"})
    other.refresh_from_db()
    gate.refresh_from_db()
    assert other.state == RevisionState.REJECTED and gate.name == "挹江门"


def test_approve_a_change_publishes_it_with_who_proposed_and_who_approved(
    reviewer: User, reviewer_client: Client, curator: User, event: Event
) -> None:
    revision = _propose(event, curator, title="唐生智撤出南京")
    response = decide(
        reviewer_client,
        {"action": f"approve-revision:{revision.pk}", f"note-revision-{revision.pk}": "as the memoir says"},
    )
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Approved the change of “唐生智撤出南京”: it is published."
    ]
    event.refresh_from_db()
    assert event.title == "唐生智撤出南京" and event.status == Status.APPROVED
    revision.refresh_from_db()
    assert revision.state == RevisionState.APPROVED and revision.reviewed_by == reviewer
    assert revision.review_note == "as the memoir says"
    last = event.history.order_by("-history_date", "-history_id").first()
    assert "queue-curator" in last.history_change_reason and "approved by rev" in last.history_change_reason
    assert f'id="revision-{revision.pk}"' not in reviewer_client.get(URL).content.decode()


def test_reject_a_change_needs_a_note_and_leaves_the_published_version(
    reviewer_client: Client, curator: User, event: Event
) -> None:
    revision = _propose(event, curator, title="唐生智撤出南京")
    response = decide(reviewer_client, {"action": f"reject-revision:{revision.pk}"}, follow=True)
    assert response.status_code == 200
    assert any("A rejection says why." in str(m) for m in response.context["messages"])
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING
    response = decide(
        reviewer_client,
        {"action": f"reject-revision:{revision.pk}", f"note-revision-{revision.pk}": "the memoir says 离开"},
    )
    revision.refresh_from_db()
    assert revision.state == RevisionState.REJECTED and revision.review_note == "the memoir says 离开"
    event.refresh_from_db()
    assert event.title == "唐生智离开南京"


def test_a_contributor_sees_why_there_are_no_buttons_and_is_refused(
    reviewer: User, reviewer_client: Client, curator: User, event: Event
) -> None:
    revision = _propose(event, curator, title="唐生智撤出南京")
    _propose(event, reviewer, date_text="12日傍晚")  # the reviewer adds to the same change
    article = _article(reviewer_client.get(URL).content.decode(), revision)
    assert "You contributed to this change: another reviewer must approve or reject it." in article
    assert "approve-revision:" not in article
    response = decide(reviewer_client, {"action": f"approve-revision:{revision.pk}"}, follow=True)
    assert response.status_code == 200
    assert any("you contributed to it" in str(m) for m in response.context["messages"])
    revision.refresh_from_db()
    assert revision.state == RevisionState.PENDING
    # A reviewer who may not review events sees that instead; a curator has no queue.
    assert client_for_user(user("other-curator", role="curator")).get(URL).status_code == 403
    article = _article(client_for_user(_reviewer_of_people_only()).get(URL).content.decode(), revision)
    assert "You are not allowed to review events." in article


def test_bad_revision_requests_become_messages(reviewer_client: Client, curator: User, event: Event) -> None:
    revision = _propose(event, curator, title="唐生智撤出南京")
    decide(reviewer_client, {"action": f"reject-revision:{revision.pk}", f"note-revision-{revision.pk}": "no"})
    for data, expected in (
        ({"action": "approve-revision:999999"}, "No such change: 999999."),
        ({"action": "approve-revision:x"}, "No such change: x."),
        ({"action": f"approve-revision:{revision.pk}"}, "not pending"),
    ):
        response = decide(reviewer_client, data, follow=True)
        assert response.status_code == 200
        assert any(expected in str(m) for m in response.context["messages"]), data


def test_queue_query_count_does_not_grow_with_revisions(
    reviewer_client: Client, curator: User, passage: Passage, django_assert_num_queries: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(review_view.review_queue, "PAGE_SIZE", 25)  # the 21 changes on one page
    gate = approved(Location(slug="yijiang", name="挹江门", kind="gate"))
    parent = approved(Event(slug="retreat", title="南京撤退", kind="retreat"))
    tang = approved(Person(slug="tang", name="唐生智"))

    def revise(n: int) -> None:
        happening = approved(Event(slug=f"ev-{n}", title=f"事件{n}", kind="escape", description="原来的说法"))
        cite(passage, "煤炭港码头", event=happening)
        _propose(
            happening, curator, title=f"事件{n}改", description="新的说法", kind="retreat",
            parent_id=parent.pk, m2m={"locations": [gate]},
        )
        records.child_save(child=PersonName(person=tang, name=f"唐{n}"), parent_field="person", by=curator)

    for n in range(2):
        revise(n)
    reviewer_client.get(URL)
    with CaptureQueriesContext(connection) as few:
        reviewer_client.get(URL)
    for n in range(2, 20):
        revise(n)
    with django_assert_num_queries(len(few.captured_queries)):
        response = reviewer_client.get(URL)
    html = response.content.decode()
    assert html.count('class="review-record review-revision"') == 21  # 20 events and the person
    assert html.count("<ins>南京撤退</ins>") == 20


def test_a_long_review_note_is_kept_whole_and_never_a_server_error(
    reviewer_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    note = "对照南京保卫战史第三章核对过：" + "the memoir and the history agree on the hour and the dock. " * 4
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    key = f"citation-{citation.pk}"
    assert decide(reviewer_client, {"action": f"approve:{key}", f"note-{key}": note}).status_code == 302
    citation.refresh_from_db()
    assert citation.status == Status.APPROVED and citation.review_note == note.strip()
    revision = _propose(event, curator, title="唐生智撤出南京")
    response = decide(
        reviewer_client, {"action": f"approve-revision:{revision.pk}", f"note-revision-{revision.pk}": note}
    )
    assert response.status_code == 302
    revision.refresh_from_db()
    assert revision.state == RevisionState.APPROVED and revision.review_note == note.strip()


def test_a_statement_in_review_reaches_the_queue(reviewer_client: Client, passage: Passage, event: Event) -> None:
    evidence = cite(passage, "傍晚", event=event, claim="at dusk")
    statement = in_status(Statement(slug="st-dusk", field="date", value="1937-12-12", event=event), Status.IN_REVIEW)
    statement.citations.add(evidence)
    html = reviewer_client.get(URL).content.decode()
    article = html.split(f'id="record-statement-{statement.pk}"', 1)[1].split("</article>", 1)[0]
    assert "1937-12-12" in article and ">傍晚</mark>" in article


def test_a_change_of_a_citation_shows_its_passage(
    reviewer_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    citation = cite(passage, "煤炭港码头", event=event, claim="went to the dock")
    revision = _propose(citation, curator, claim="went to the dock at Meitangang")
    article = _article(reviewer_client.get(URL).content.decode(), revision)
    assert "went to the dock<ins> at Meitangang</ins>" in article
    assert ">煤炭港码头</mark>" in article


def test_an_edit_after_the_queue_was_read_refuses_the_decision(
    reviewer_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    revision = _propose(event, curator, title="唐生智撤出南京")
    read = dict(PIN.findall(reviewer_client.get(URL).content.decode()))  # what the reviewer read
    _propose(event, curator, title="唐生智乘船离开南京")  # the curator rewrites the same change meanwhile
    response = reviewer_client.post(URL, {**read, "action": f"approve-revision:{revision.pk}"}, follow=True)
    texts = " ".join(str(m) for m in response.context["messages"])
    assert "Nothing was decided on the change of" in texts and "edited after you read it" in texts
    assert "唐生智乘船离开南京" in texts  # what it now proposes
    revision.refresh_from_db()
    event.refresh_from_db()
    assert revision.state == RevisionState.PENDING and event.title == "唐生智离开南京"
    assert "<ins>乘船</ins>" in _article(response.content.decode(), revision)  # the queue shows the new diff
    # A record in review, the same: edited in place after it was read.
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    read = dict(PIN.findall(reviewer_client.get(URL).content.decode()))
    edited = Citation.objects.get(pk=citation.pk)
    edited.claim = "改过的说法"
    records.record_update(record=edited, by=curator)
    key = f"citation-{citation.pk}"
    response = reviewer_client.post(URL, {**read, "action": f"approve:{key}"}, follow=True)
    assert any("after you read it" in str(m) for m in response.context["messages"])
    assert Citation.objects.get(pk=citation.pk).status == Status.IN_REVIEW
    # Without a pin at all: refused the same way.
    response = reviewer_client.post(URL, {"action": f"approve:{key}"}, follow=True)
    assert any("names no version" in str(m) for m in response.context["messages"])
    assert decide(reviewer_client, {"action": f"approve:{key}"}).status_code == 302
    assert Citation.objects.get(pk=citation.pk).status == Status.APPROVED
