"""Threads where the decision is made: the review queue, the change form, the history, "My work".

A reviewer reads an item's thread beside its evidence, writes to it, and
requests changes with the same note and pin as Approve and Reject; the
author finds the item in "My work" with the thread and answers there. The
thread never reaches the public: not the API, not the reading room.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from archive.models import Comment, CommentKind, Person, Revision, RevisionState, Status
from archive.services import discussion, records
from tests.admin.helpers import change_url, client_for, person, pins
from tests.factories import user

pytestmark = pytest.mark.django_db

QUEUE = "/admin/curate/review/"
DISCUSS = "/admin/curate/discuss/"


@pytest.fixture
def author() -> User:
    return User.objects.filter(username="factory-author").first() or user("factory-author", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("discuss-reviewer", role="reviewer")


def test_the_routes_are_where_the_tests_post() -> None:
    assert reverse("archive_curate:review") == QUEUE and reverse("archive_curate:discuss") == DISCUSS


def _key(record: Any) -> str:
    return f"{record._meta.model_name}-{record.pk}"


def _queue_post(client: Client, data: dict[str, Any]) -> Any:
    page = client.get(QUEUE).content.decode()
    return client.post(DISCUSS, {**pins(page), "next": QUEUE, **data})


def test_the_queue_shows_each_thread_and_a_third_decision(author: User, reviewer: User) -> None:
    record = person(status=Status.IN_REVIEW)
    discussion.comment_add(subject=record, by=author, text="Named in §3 of the history.")
    page = client_for(reviewer).get(QUEUE).content.decode()
    thread = page[page.index(f'id="thread-{_key(record)}"'):]
    assert "Named in §3 of the history." in thread[: thread.index("</section>")]
    assert f'value="changes:{_key(record)}"' in page and f'name="comment-{_key(record)}"' in page


def test_a_comment_posted_from_the_queue_joins_the_thread_and_comes_back_to_the_item(
    author: User, reviewer: User
) -> None:
    record = person(status=Status.IN_REVIEW)
    key = _key(record)
    response = _queue_post(client_for(reviewer), {"thread_action": f"comment:{key}", f"comment-{key}": "Which §?"})
    assert response.status_code == 302 and response["Location"] == f"{QUEUE}#thread-{key}"
    assert [(c.author, c.text) for c in discussion.thread(record)] == [(reviewer, "Which §?")]


def test_changes_requested_from_the_queue_returns_the_record_and_my_work_shows_it(
    author: User, reviewer: User
) -> None:
    record = person(status=Status.IN_REVIEW)
    key = _key(record)
    client = client_for(reviewer)
    response = _queue_post(client, {"thread_action": f"changes:{key}", f"note-{key}": "Give his courtesy name."})
    assert response.status_code == 302
    record.refresh_from_db()
    assert record.status == Status.DRAFT
    assert [m.level_tag for m in get_messages(response.wsgi_request)] == ["success"]

    mine = client_for(author).get("/admin/curate/my-work/").content.decode()
    waiting = mine[mine.index('id="my-waiting"'):mine.index('id="my-drafts"')]
    assert str(record) in waiting and "Give his courtesy name." in waiting
    assert 'value="resubmit:' not in waiting  # a draft is submitted again as usual


def test_a_request_without_a_note_or_on_a_changed_record_decides_nothing(author: User, reviewer: User) -> None:
    record = person(status=Status.IN_REVIEW)
    key = _key(record)
    client = client_for(reviewer)
    response = _queue_post(client, {"thread_action": f"changes:{key}", f"note-{key}": ""})
    assert [m.level_tag for m in get_messages(response.wsgi_request)] == ["error"]
    stale = client.post(DISCUSS, {"thread_action": f"changes:{key}", f"note-{key}": "x", f"pin-{key}": "1.0"})
    assert [m.level_tag for m in get_messages(stale.wsgi_request)] == ["error", "error"]  # the first unread
    assert Person.objects.get(pk=record.pk).status == Status.IN_REVIEW and not Comment.objects.exists()


@pytest.mark.parametrize("action", ["comment:person-x", "changes:nothing-1", "edit:99999999", "edit:", "x", ""])
def test_bad_actions_answer_with_a_message_not_an_error(reviewer: User, action: str) -> None:
    response = client_for(reviewer).post(DISCUSS, {"thread_action": action, "next": "https://elsewhere.example/"})
    assert response.status_code == 302 and response["Location"].startswith(QUEUE)
    assert client_for(reviewer).get(DISCUSS).status_code == 405


def test_a_returned_change_waits_for_its_author_who_sends_it_back(author: User, reviewer: User) -> None:
    published = person()
    published.description = "proposed"
    revision = records.record_update(record=published, by=author)
    assert isinstance(revision, Revision)
    key = f"revision-{revision.pk}"
    _queue_post(client_for(reviewer), {"thread_action": f"changes:{key}", f"note-{key}": "Which source?"})
    assert Revision.objects.get(pk=revision.pk).state == RevisionState.RETURNED

    client = client_for(author)
    mine = client.get("/admin/curate/my-work/").content.decode()
    assert "Which source?" in mine and f'value="resubmit:{key}"' in mine
    # The change form shows the record's open change with its thread.
    form = client.get(change_url(published)).content.decode()
    assert f'id="thread-{key}"' in form and "Which source?" in form
    client.post(DISCUSS, {"thread_action": f"comment:{key}", f"comment-{key}": "The memoir, §2.", "next": "/"})
    client.post(DISCUSS, {"thread_action": f"resubmit:{key}", "next": "/"})
    assert Revision.objects.get(pk=revision.pk).state == RevisionState.PENDING
    assert [c.kind for c in discussion.thread(revision)] == [CommentKind.CHANGES_REQUESTED, CommentKind.COMMENT]


def test_the_change_form_and_the_history_show_the_thread_and_its_author_edits_a_comment(
    author: User, reviewer: User
) -> None:
    record = person(status=Status.IN_REVIEW)
    comment = discussion.comment_add(subject=record, by=author, text="first words")
    client = client_for(author)
    assert "first words" in client.get(change_url(record)).content.decode()
    client.post(DISCUSS, {"thread_action": f"edit:{comment.pk}", f"edit-{comment.pk}": "better words", "next": "/"})
    client_for(reviewer).post(DISCUSS, {"thread_action": f"edit:{comment.pk}", f"edit-{comment.pk}": "no", "next": "/"})
    history = client.get(reverse("admin:archive_person_history", args=[record.pk])).content.decode()
    assert "better words" in history and re.search(r"edited \d{4}-\d\d-\d\d", history)
    assert [h.text for h in comment.history.order_by("history_date")] == ["first words", "better words"]
    assert client.get("/admin/archive/person/x/history/").status_code == 404


def test_the_queue_reads_threads_in_a_fixed_number_of_queries(
    author: User, reviewer: User, django_assert_max_num_queries
) -> None:
    for _ in range(2):
        discussion.comment_add(subject=person(status=Status.IN_REVIEW), by=author, text="one")
    client = client_for(reviewer)
    client.get(QUEUE)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get(QUEUE)
    for _ in range(6):
        discussion.comment_add(subject=person(status=Status.IN_REVIEW), by=author, text="more")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.get(QUEUE).content.decode().count("thread-comment ") == 8


def test_a_thread_is_never_public(author: User, reviewer: User) -> None:
    """Neither the API (detail, list, search) nor the reading room, even to a signed-in reviewer, shows a comment."""
    published = person(name="唐生智")
    published.description = "a proposed change"
    revision = records.record_update(record=published, by=author)
    assert revision is not None
    secret = "线程评论不公开ZQX"
    discussion.comment_add(subject=published, by=author, text=secret)
    discussion.comment_add(subject=revision, by=reviewer, text=secret + " 2")
    pages = [
        f"/api/v1/persons/{published.slug}/",
        "/api/v1/persons/",
        f"/api/v1/search/?q={secret}",
        f"/people/{published.slug}/",
    ]
    for client in (Client(), client_for(reviewer)):
        for path in pages:
            response = client.get(path)
            assert response.status_code == 200, path
            assert "ZQX" not in response.content.decode(), path
