"""“My work”: a curator sees what became of what they wrote, and why a rejection was made."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from archive.models import Event, Location, Person, Revision, Status
from archive.services import decisions, records, revisions
from archive.services import review as curation
from tests.admin.helpers import client_for
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

URL = "/admin/curate/my-work/"


@pytest.fixture
def curator() -> User:
    return user("mine", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("judge", role="reviewer")


def _draft(model: type, by: User, **fields: Any) -> Any:
    return records.record_create(record=model(**fields), by=by)


def _section(html: str, key: str) -> str:
    return html.split(f'id="my-{key}"', 1)[1].split("</section>", 1)[0]


def _propose(record: Any, by: User, **fields: Any) -> Revision:
    live = type(record).objects.get(pk=record.pk)
    for name, value in fields.items():
        setattr(live, name, value)
    revision = records.record_update(record=live, by=by)
    assert revision is not None
    return revision


def test_my_work_is_named_linked_and_staff_only(curator: User) -> None:
    assert reverse("archive_curate:my_work") == URL
    assert Client().get(URL).status_code == 302
    client = client_for(curator)
    assert URL in client.get(reverse("archive_curate:index")).content.decode()
    assert URL in client.get(reverse("admin:index")).content.decode()


def test_my_work_lists_records_by_state_with_the_reviewers_note(curator: User, reviewer: User) -> None:
    draft = _draft(Person, curator, slug="draft-person", name="草稿人物", side="chinese")
    waiting = _draft(Event, curator, slug="waiting", title="等待中的事件", kind="retreat")
    curation.submit(waiting, by=curator)
    refused = _draft(Location, curator, slug="refused", name="被退回的地点", kind="gate")
    curation.submit(refused, by=curator)
    curation.reject(refused, by=reviewer, note="no source names this gate", shown=decisions.record_pin(refused))
    published = _draft(Event, curator, slug="published", title="新近发布的事件", kind="escape")
    curation.submit(published, by=curator)
    curation.approve(
        published, by=reviewer, note="fine", without_evidence="an order of the day, to be imported",
        shown=decisions.record_pin(published),
    )
    old = _draft(Event, curator, slug="old", title="很久以前发布的事件", kind="escape")
    curation.submit(old, by=curator)
    curation.approve(
        old, by=reviewer, without_evidence="an order of the day, to be imported", shown=decisions.record_pin(old)
    )
    Event.objects.filter(pk=old.pk).update(reviewed_at=timezone.now() - dt.timedelta(days=45))
    _draft(Person, reviewer, slug="not-mine", name="别人的草稿", side="chinese")

    response = client_for(curator).get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "草稿人物" in _section(html, "drafts") and reverse("admin:archive_person_change", args=[draft.pk]) in html
    assert "等待中的事件" in _section(html, "in-review")
    rejected = _section(html, "rejected")
    assert "被退回的地点" in rejected and "judge" in rejected and "no source names this gate" in rejected
    recent = _section(html, "approved")
    assert "新近发布的事件" in recent and "an order of the day" in recent
    assert "很久以前发布的事件" not in html  # approved more than 30 days ago
    assert "别人的草稿" not in html  # someone else's


def test_my_work_lists_my_changes_of_published_records(curator: User, reviewer: User) -> None:
    pending_one = approved(Event(slug="p", title="待审的改动", kind="retreat"))
    rejected_one = approved(Event(slug="r", title="被驳回的改动", kind="retreat"))
    approved_one = approved(Event(slug="a", title="已批准的改动", kind="retreat"))
    others = approved(Event(slug="o", title="别人的改动", kind="retreat"))
    _propose(pending_one, curator, description="新的描述")
    turned_down = _propose(rejected_one, curator, description="x")
    revisions.reject_revision(
        revision=turned_down, by=reviewer, note="the memoir says otherwise", shown=decisions.revision_pin(turned_down)
    )
    change = _propose(approved_one, curator, title="已批准的改动（新）")
    revisions.approve_revision(revision=change, by=reviewer, note="ok", shown=decisions.revision_pin(change))
    _propose(others, reviewer, description="y")

    html = client_for(curator).get(URL).content.decode()
    assert "待审的改动" in _section(html, "changes-pending")
    rejected = _section(html, "changes-rejected")
    assert "被驳回的改动" in rejected and "judge" in rejected and "the memoir says otherwise" in rejected
    assert "已批准的改动（新）" in _section(html, "changes-approved")
    assert "别人的改动" not in html
    index = client_for(curator).get(reverse("archive_curate:index")).content.decode()
    assert "2 changes of published records" in index  # pending: the curator's and the reviewer's


def test_my_work_query_count_does_not_grow(curator: User, reviewer: User, django_assert_num_queries: Any) -> None:
    def write(n: int) -> None:
        _draft(Person, curator, slug=f"p-{n}", name=f"人物{n}", side="chinese")
        event = approved(Event(slug=f"e-{n}", title=f"事件{n}", kind="retreat"))
        _propose(event, curator, description=f"描述{n}")

    write(0)
    client = client_for(curator)
    client.get(URL)
    with CaptureQueriesContext(connection) as few:
        client.get(URL)
    for n in range(1, 8):
        write(n)
    with django_assert_num_queries(len(few.captured_queries)):
        html = client.get(URL).content.decode()
    assert html.count('class="my-revision"') == 8 and html.count('class="my-record"') == 8


def test_the_readers_card_shows_why_a_citation_was_rejected(curator: User, reviewer: User) -> None:
    source = source_with_text("唐生智于12日傍晚离开司令部。\n", slug="hist")
    event = approved(Event(slug="tang", title="唐生智离开南京", kind="escape"))
    citation = cite(source.passages.get(seq=1), "离开司令部", event=event, status=Status.IN_REVIEW)
    curation.reject(
        citation, by=reviewer, note="the passage says 傍晚, not the night", shown=decisions.record_pin(citation)
    )
    html = client_for(curator).get(reverse("archive_curate:reader", args=["hist"])).content.decode()
    card = html.split(f'data-citation="{citation.pk}"', 1)[1].split("</li>", 1)[0]
    assert 'class="rejection-note"' in card
    assert "Rejected by judge:" in card and "the passage says 傍晚, not the night" in card
