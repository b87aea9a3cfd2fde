"""The review queue: evidence in its passage, four eyes, single and bulk decisions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.models import Citation, Event, Passage, Person, Status
from archive.services import review as curation
from tests.factories import approved, cite, in_status, source_with_text, user

pytestmark = pytest.mark.django_db

TEXT = "唐生智于12日傍晚离开司令部，赶往煤炭港码头。\n\n部队拥向挹江门。\n"
NOVEL = "孙百里望着江面，想起唐司令那晚的船。\n"
URL = "/admin/curate/review/"


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
    response = client.post(URL, {"action": f"approve:citation-{mine.pk}"}, follow=True)
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


def test_a_curator_without_review_permission_sees_why(passage: Passage, event: Event) -> None:
    cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    client = Client()
    client.force_login(user("cur2", role="curator"))
    html = client.get(URL).content.decode()
    assert "You are not allowed to review citations." in html


def test_approve_one_with_a_note(reviewer: User, reviewer_client: Client, passage: Passage, event: Event) -> None:
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    key = f"citation-{citation.pk}"
    response = reviewer_client.post(URL, {"action": f"approve:{key}", f"note-{key}": "matches the text"})
    assert response.status_code == 302 and response["Location"] == URL
    citation.refresh_from_db()
    assert citation.status == Status.APPROVED
    assert citation.reviewed_by == reviewer and citation.review_note == "matches the text"
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Approved 1 record."]


def test_reject_needs_a_note(reviewer_client: Client, passage: Passage, event: Event) -> None:
    citation = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    key = f"citation-{citation.pk}"
    response = reviewer_client.post(URL, {"action": f"reject:{key}", f"note-{key}": ""}, follow=True)
    assert response.status_code == 200
    assert "A rejection says why." in response.content.decode()
    citation.refresh_from_db()
    assert citation.status == Status.IN_REVIEW
    reviewer_client.post(URL, {"action": f"reject:{key}", f"note-{key}": "wrong dock"})
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
    response = reviewer_client.post(
        URL, {"action": "bulk-approve", "selected": keys, "bulk_note": "checked against the text"}, follow=True
    )
    assert response.status_code == 200
    texts = [str(m) for m in response.context["messages"]]
    assert "Approved 3 records." in texts
    assert any("you contributed to it" in t for t in texts)
    for record in (first, second, person):
        record.refresh_from_db()
        assert record.status == Status.APPROVED and record.review_note == "checked against the text"
    own.refresh_from_db()
    assert own.status == Status.IN_REVIEW


def test_bulk_reject_with_one_note(reviewer_client: Client, passage: Passage, event: Event) -> None:
    first = cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW)
    second = cite(passage, "离开司令部", event=event, status=Status.IN_REVIEW)
    reviewer_client.post(
        URL,
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
        response = reviewer_client.post(URL, data, follow=True)
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
