"""The review queue at scale: filters with counts, pages, batches folded into one row, decisions that keep the place.

The queue reads a light index of everything waiting, filters and counts it,
and reads whole only the page it shows; a batch of mentions is one row that
opens to its items and is decided together, each as it was shown. A decision
brings the reviewer back to the same filters and page, at the next item, and
its message names the record. The record's admin page, and for a signed-in
reviewer its reading-room page, link to what of it waits.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.admin import review_queue
from archive.models import Citation, Location, Person, Revision, Source, Status
from archive.services import batches, bulk, records
from archive.services.mentions import cite_all_mentions
from tests.admin.helpers import client_for, event, person, user
from tests.factories import approved, source_with_text

pytestmark = pytest.mark.django_db

URL = "/admin/curate/review/"
HIDDEN = re.compile(r'type="hidden" name="((?:pin|next)-[^"]+)" value="([^"]*)"')
BATCH_ITEM = re.compile(r'name="batch-item" value="([^"]+)"')


@pytest.fixture
def curator() -> User:
    return user("queue-curator", role="curator")


@pytest.fixture
def other() -> User:
    return user("queue-other", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("queue-reviewer", role="reviewer")


def _citations(n: int, by: User, *, slug: str) -> tuple[Source, list[Citation]]:
    """`n` citations in review by `by`, one per passage of a new source."""
    text = "\n\n".join(f"第{i}段：唐生智下令撤退。" for i in range(n))
    source = source_with_text(text, slug=slug)
    target = person()
    made = []
    for passage in source.passages.order_by("seq"):
        start = passage.text.index("唐生智")
        citation = Citation(passage=passage, quote="唐生智", start=start, end=start + 3, claim="named here",
                            person=target)
        made.append(records.record_create(record=citation, by=by))
    bulk.submit_many(records=[(Citation, c.pk) for c in made], by=by)
    return source, made


def _batch(n: int, by: User) -> tuple[Source, list[Citation], int]:
    """A batch of `n` suggested mentions by `by`, submitted for review."""
    approved(Location(slug="xiaguan", name="下关", kind="district"))
    source = source_with_text("\n\n".join(f"第{i}段：部队经下关撤退。" for i in range(n)), slug="mentions")
    made = cite_all_mentions(source=source, by=by, shown=batches.preview_mentions(source=source).digest)
    batches.submit_drafts_of_source(source=source, by=by)
    assert made.record is not None
    return source, made.created, made.record.pk


def _shown(client: Client, url: str) -> dict[str, Any]:
    html = client.get(url).content.decode()
    return {**dict(HIDDEN.findall(html)), "batch-item": BATCH_ITEM.findall(html)}


def _facet(html: str, name: str) -> dict[str, int]:
    block = html.split(f'data-facet="{name}"', 1)[1].split("</div>", 1)[0]
    return {value: int(count) for value, count in
            re.findall(r'data-value="([^"]*)"[^>]*>[^<]*<span class="count">(\d+)</span>', block)}


def test_filters_count_what_choosing_them_would_show(
    curator: User, other: User, reviewer: User
) -> None:
    _citations(3, curator, slug="src-a")
    _citations(2, other, slug="src-b")
    in_review = Person(slug="new-one", name="新人", status=Status.DRAFT)
    records.record_create(record=in_review, by=curator)
    bulk.submit_many(records=[(Person, in_review.pk)], by=curator)
    published = event()
    live = type(published).objects.get(pk=published.pk)
    live.title = "改过的标题"
    records.record_update(record=live, by=other)
    client = client_for(reviewer)
    html = client.get(URL).content.decode()
    # The two people cited (approved) are not waiting; the new person, five citations and one change are.
    assert _facet(html, "kind") == {"person": 1, "citation": 5, "event": 1}
    assert _facet(html, "change") == {"new": 6, "revision": 1}
    assert _facet(html, "source") == {"src-a": 3, "src-b": 2}
    assert _facet(html, "author") == {"queue-curator": 4, "queue-other": 3}
    assert _facet(html, "age") == {"day": 7}
    # Choosing an author counts the other facets within it; the author facet still offers both.
    html = client.get(URL, {"author": "queue-other"}).content.decode()
    assert _facet(html, "kind") == {"citation": 2, "event": 1}
    assert _facet(html, "author") == {"queue-curator": 4, "queue-other": 3}
    assert html.count('class="review-record"') == 2 and html.count('class="review-record review-revision"') == 1
    html = client.get(URL, {"change": "revision"}).content.decode()
    assert html.count("review-record review-revision") == 1 and 'class="review-record"' not in html
    html = client.get(URL, {"source": "src-a", "sort": "newest"}).content.decode()
    assert html.count('class="review-record"') == 3


def test_hostile_parameters_are_a_message_never_an_error(curator: User, reviewer: User) -> None:
    _citations(1, curator, slug="src-h")
    client = client_for(reviewer)
    for query in ({"kind": "nothing"}, {"batch": "x"}, {"age": "ever"}, {"sort": "<script>"}, {"page": "-3"},
                  {"page": "99999"}, {"item": "citation-0"}, {"source": "\u0000"}):
        response = client.get(URL, query)
        assert response.status_code == 200, query
    response = client.get(URL, {"kind": "nothing"})
    assert any("Unknown kind" in str(m) for m in get_messages(response.wsgi_request))


def test_the_queue_pages_and_its_queries_do_not_grow_with_the_items(curator: User, reviewer: User) -> None:
    _citations(10, curator, slug="src-p")
    client = client_for(reviewer)
    client.get(URL)
    with CaptureQueriesContext(connection) as few:
        client.get(URL)
    _citations(review_queue.PAGE_SIZE + 10, curator, slug="src-q")
    with CaptureQueriesContext(connection) as many:
        first = client.get(URL).content.decode()
    assert len(many.captured_queries) <= len(few.captured_queries)
    assert first.count('class="review-record"') == review_queue.PAGE_SIZE
    second = client.get(URL, {"page": 2}).content.decode()
    assert second.count('class="review-record"') == 20
    assert "20 items waiting" not in second and f"{review_queue.PAGE_SIZE + 20} items waiting" in second


def test_a_decision_keeps_the_reviewer_where_they_were_and_names_the_record(curator: User, reviewer: User) -> None:
    _source, made = _citations(3, curator, slug="src-r")
    client = client_for(reviewer)
    query = {"kind": "citation", "sort": "oldest"}
    page = f"{URL}?kind=citation&sort=oldest"
    first, second = made[0], made[1]
    response = client.post(URL, {**_shown(client, page), "query": "kind=citation&sort=oldest",
                                 "action": f"approve:citation-{first.pk}"})
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == URL and dict(p.split("=") for p in location.query.split("&")) == query
    assert location.fragment == f"record-citation-{second.pk}"
    assert [str(m) for m in get_messages(response.wsgi_request)] == [f"Approved citation {first}."]
    # A forged query or anchor cannot lead anywhere else.
    response = client.post(URL, {**_shown(client, page), "query": "x=1\r\nLocation: http://evil",
                                 f"next-record-citation-{second.pk}": "javascript:alert(1)",
                                 "action": f"approve:citation-{second.pk}"})
    assert urlsplit(response["Location"]).path == URL and "#" not in response["Location"]
    assert "\n" not in response["Location"]


def test_a_batch_is_one_row_that_opens_to_its_items_and_is_approved_as_shown(curator: User, reviewer: User) -> None:
    _source, made, number = _batch(7, curator)
    _citations(2, curator, slug="src-loose")
    client = client_for(reviewer)
    html = client.get(URL).content.decode()
    assert html.count('class="review-batch"') == 1 and "7 citations in review" in html
    assert html.count('class="review-record"') == 2  # the two outside the batch
    opened = f"{URL}?batch={number}"
    assert f'href="?batch={number}"' in html
    html = client.get(opened).content.decode()
    assert html.count('class="review-record"') == 7 and f'value="approve-batch:{number}"' in html
    shown = _shown(client, opened)
    assert len(shown["batch-item"]) == 7
    # One item is edited after the reviewer read the batch: refused and named, the six others approved.
    edited = Citation.objects.get(pk=made[0].pk)
    edited.claim = "a district of the city"
    records.record_update(record=edited, by=curator)
    response = client.post(URL, {**shown, "query": f"batch={number}", "action": f"approve-batch:{number}"})
    assert response["Location"] == opened
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any(text.startswith(f"{edited}: Nothing was decided") for text in texts), texts
    assert any(text.startswith("Approved 6 records: “下关” (mentions §") and "and 3 more" in text for text in texts)
    assert Citation.objects.filter(pk__in=[c.pk for c in made], status=Status.APPROVED).count() == 6
    assert Citation.objects.get(pk=edited.pk).status == Status.IN_REVIEW
    # The batch's author cannot decide it.
    mine = client_for(curator)
    assert mine.get(opened).status_code == 403  # a curator has no queue at all


def test_the_record_pages_link_to_what_waits_for_review(curator: User, reviewer: User) -> None:
    waiting = Person(slug="waiting", name="待审", status=Status.DRAFT)
    records.record_create(record=waiting, by=curator)
    bulk.submit_many(records=[(Person, waiting.pk)], by=curator)
    published = person()
    live = Person.objects.get(pk=published.pk)
    live.description = "新的说法"
    revision = records.record_update(record=live, by=curator)
    assert isinstance(revision, Revision)
    client = client_for(reviewer)
    change = client.get(reverse("admin:archive_person_change", args=[waiting.pk])).content.decode()
    assert f'href="{URL}?item=person-{waiting.pk}"' in change
    change = client.get(reverse("admin:archive_person_change", args=[published.pk])).content.decode()
    assert f'href="{URL}?item=revision-{revision.pk}"' in change
    # The link leads to that item alone.
    html = client.get(URL, {"item": f"revision-{revision.pk}"}).content.decode()
    assert html.count("review-revision") == 1 and 'class="review-record"' not in html
    # The reading room shows the link to a signed-in reviewer only; an anonymous reader sees nothing of it.
    room = reverse("room:person", args=[published.slug])
    assert f"?item=revision-{revision.pk}" in client.get(room).content.decode()
    anonymous = Client().get(room)
    assert anonymous.status_code == 200 and "item=revision" not in anonymous.content.decode()
    assert "item=revision" not in client_for(curator).get(room).content.decode()  # a curator reviews nothing


def test_a_batch_decided_in_chunks_answers_each_chunk_with_its_messages_and_keeps_none(
    curator: User, reviewer: User
) -> None:
    """What chunked.js posts: part of the batch's items with their pins; the answer is JSON, the next page clean."""
    _source, made, number = _batch(5, curator)
    client = client_for(reviewer)
    opened = f"{URL}?batch={number}"
    shown = _shown(client, opened)
    first, rest = shown["batch-item"][:2], shown["batch-item"][2:]
    data = {"chunk": "1", "action": f"approve-batch:{number}", "query": f"batch={number}", "batch_note": ""}
    answer = client.post(URL, {**data, "batch-item": first, **{f"pin-{k}": shown[f"pin-{k}"] for k in first}})
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    said = answer.json()["messages"]
    assert [m["level"] for m in said] == ["success"] and said[0]["text"].startswith("Approved 2 records:")
    assert Citation.objects.filter(pk__in=[c.pk for c in made], status=Status.APPROVED).count() == 2
    assert not list(get_messages(client.get(opened).wsgi_request))  # shown by the script, not kept for later
    # A chunk whose pins are missing is refused item by item, in the answer.
    refused = client.post(URL, {**data, "batch-item": rest}).json()["messages"]
    assert {m["level"] for m in refused} == {"error"} and len(refused) == len(rest)
    assert Citation.objects.filter(pk__in=[c.pk for c in made], status=Status.APPROVED).count() == 2
