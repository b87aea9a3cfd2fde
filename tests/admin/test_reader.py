"""The source reader and its citation form, through the Django test client."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.models import Citation, Event, Passage, Person, Source, Status
from archive.text import anchor
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

# 𠀀 (U+20000, CJK Extension B) is two UTF-16 units but one code point: any
# offset after it differs between the browser and Python.
TEXT = "唐生智𠀀于12日傍晚离开司令部，赶往煤炭港码头。\n\n部队拥向挹江门。\n\n请大家收藏本站\n"
PHRASE = "赶往煤炭港码头"


@pytest.fixture
def source() -> Source:
    return source_with_text(TEXT, slug="hist", kind="history")


@pytest.fixture
def passage(source: Source) -> Passage:
    return source.passages.get(seq=1)


@pytest.fixture
def event() -> Event:
    return approved(Event(slug="tang-leaves", title="唐生智离开南京", kind="escape", date="1937-12-12"))


@pytest.fixture
def curator() -> User:
    return user("cur", role="curator")


@pytest.fixture
def curator_client(curator: User) -> Client:
    client = Client()
    client.force_login(curator)
    return client


def utf16(text: str, codepoint: int) -> int:
    return anchor.codepoint_to_utf16(text, codepoint)


def selection(passage: Passage, phrase: str) -> tuple[int, int]:
    """The selection of `phrase` as the browser measures it, in UTF-16 units."""
    start = passage.text.index(phrase)
    return utf16(passage.text, start), utf16(passage.text, start + len(phrase))


def test_reader_is_for_staff_only(source: Source) -> None:
    url = reverse("archive_curate:reader", args=[source.slug])
    assert url == "/admin/curate/sources/hist/read/"
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    outsider = User.objects.create_user("outsider", password="pw")
    client = Client()
    client.force_login(outsider)
    assert client.get(url).status_code == 302


def test_reader_404_for_an_unknown_source(curator_client: Client) -> None:
    assert curator_client.get("/admin/curate/sources/no-such-source/read/").status_code == 404


def test_reader_shows_passages_in_order_with_their_role(curator_client: Client, source: Source) -> None:
    source.passages.filter(seq=3).update(role="boilerplate")
    response = curator_client.get(reverse("archive_curate:reader", args=[source.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    first, second, third = (html.index(f'id="passage-{n}"') for n in (1, 2, 3))
    assert first < second < third
    assert 'class="passage-row role-boilerplate" id="passage-3"' in html
    assert "部队拥向挹江门。" in html
    assert 'extends "admin/base_site.html"' not in html and 'id="user-tools"' in html


def test_reader_marks_cited_spans_of_every_status_with_their_records(
    curator_client: Client, passage: Passage, event: Event
) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    cite(passage, "唐生智", person=person, claim="the commander")
    cite(passage, "煤炭港码头", event=event, status=Status.IN_REVIEW, claim="went to the dock")
    cite(passage, "离开司令部", event=event, status=Status.DRAFT, claim="left headquarters")
    html = curator_client.get(reverse("archive_curate:reader", args=["hist"])).content.decode()
    assert '<mark class="cite cite-approved" title="person: 唐生智 — “the commander”' in html
    assert 'class="cite cite-in_review"' in html and ">煤炭港码头</mark>" in html
    assert 'class="cite cite-draft"' in html and ">离开司令部</mark>" in html
    # Beside the passage: the records cited, with a link to the event's accounts.
    assert "went to the dock" in html and "left headquarters" in html
    assert reverse("archive_curate:accounts", args=["tang-leaves"]) in html


def test_overlapping_spans_keep_the_passage_text_intact(curator_client: Client, passage: Passage, event: Event) -> None:
    cite(passage, "离开司令部", event=event)
    cite(passage, "司令部，赶往", event=event, status=Status.IN_REVIEW)
    html = curator_client.get(reverse("archive_curate:reader", args=["hist"])).content.decode()
    assert 'class="cite cite-approved cite-overlap"' in html
    body = html.split(f'data-passage-id="{passage.pk}"', 1)[1].split("</div>", 1)[0]
    text = re.sub(r"<[^>]+>", "", body.split(">", 1)[1])
    assert text == passage.text


def test_cite_form_converts_browser_offsets_past_an_astral_character(curator_client: Client, passage: Passage) -> None:
    start16, end16 = selection(passage, PHRASE)
    codepoint_start = passage.text.index(PHRASE)
    assert start16 == codepoint_start + 1  # 𠀀 counts twice in UTF-16
    url = reverse("archive_curate:cite", args=[passage.pk])
    assert url == f"/admin/curate/passages/{passage.pk}/cite/"
    response = curator_client.get(url, {"start": start16, "end": end16})
    assert response.status_code == 200
    form = response.context["form"]
    assert form.initial["quote"] == PHRASE
    assert form.codepoints == (codepoint_start, codepoint_start + len(PHRASE))
    assert f'<mark class="cite cite-selection" title="" data-citations="">{PHRASE}</mark>' in response.content.decode()


def test_saving_a_citation_stores_code_point_offsets_as_a_draft(
    curator_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    start16, end16 = selection(passage, PHRASE)
    response = curator_client.post(
        reverse("archive_curate:cite", args=[passage.pk]),
        {
            "start": start16,
            "end": end16,
            "quote": PHRASE,
            "target_type": "event",
            "target_id": event.pk,
            "claim": "went to the dock",
            "rank": "preferred",
            "_save": "1",
        },
    )
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/curate/sources/hist/read/")
    citation = Citation.objects.get()
    assert (citation.start, citation.end) == (passage.text.index(PHRASE), passage.text.index(PHRASE) + len(PHRASE))
    assert passage.text[citation.start : citation.end] == citation.quote == PHRASE
    assert citation.status == Status.DRAFT
    assert citation.created_by == curator and citation.modified_by == curator
    assert citation.event == event and citation.rank == "preferred"
    created = citation.history.get()
    assert created.history_change_reason == "cited in the source reader"
    assert created.history_user == curator


def test_save_and_submit_puts_the_citation_in_review(
    curator_client: Client, curator: User, passage: Passage, event: Event
) -> None:
    start16, end16 = selection(passage, PHRASE)
    curator_client.post(
        reverse("archive_curate:cite", args=[passage.pk]),
        {
            "start": start16,
            "end": end16,
            "quote": PHRASE,
            "target_type": "event",
            "target_id": event.pk,
            "claim": "went to the dock",
            "rank": "normal",
            "_submit": "1",
        },
    )
    citation = Citation.objects.get()
    assert citation.status == Status.IN_REVIEW
    assert citation.history.first().history_change_reason == "submitted for review"


def test_a_quote_not_in_the_passage_is_refused_with_the_closest_match(
    curator_client: Client, passage: Passage, event: Event
) -> None:
    start16, end16 = selection(passage, PHRASE)
    response = curator_client.post(
        reverse("archive_curate:cite", args=[passage.pk]),
        {
            "start": start16,
            "end": end16,
            "quote": "赶往下关码头",
            "target_type": "event",
            "target_id": event.pk,
            "claim": "x",
            "rank": "normal",
            "_save": "1",
        },
    )
    assert response.status_code == 200
    assert not Citation.objects.exists()
    html = response.content.decode()
    assert "The quote is not in passage hist §1. Closest match:" in html
    closest = response.context["form"].closest.closest
    assert closest and closest in PHRASE + "。"
    assert 'class="cite cite-closest"' in html


def test_a_quote_in_traditional_script_is_stored_as_the_passage_characters(
    curator_client: Client, passage: Passage, event: Event
) -> None:
    start16, end16 = selection(passage, "离开司令部")
    response = curator_client.post(
        reverse("archive_curate:cite", args=[passage.pk]),
        {
            "start": start16,
            "end": end16,
            "quote": "離開司令部",
            "target_type": "event",
            "target_id": event.pk,
            "claim": "left",
            "rank": "normal",
            "_save": "1",
        },
    )
    assert response.status_code == 302
    assert Citation.objects.get().quote == "离开司令部"


def test_an_offset_inside_a_surrogate_pair_is_refused(curator_client: Client, passage: Passage, event: Event) -> None:
    inside = passage.text.index("𠀀") + 1  # the low surrogate of 𠀀
    url = reverse("archive_curate:cite", args=[passage.pk])
    assert curator_client.get(url, {"start": inside, "end": inside + 2}).status_code == 400
    response = curator_client.post(
        url,
        {
            "start": inside,
            "end": inside + 3,
            "quote": "于12",
            "target_type": "event",
            "target_id": event.pk,
            "claim": "x",
            "rank": "normal",
        },
    )
    assert response.status_code == 200
    assert "does not fall on whole characters" in response.content.decode()
    assert not Citation.objects.exists()


def test_a_missing_record_is_refused(curator_client: Client, passage: Passage) -> None:
    start16, end16 = selection(passage, PHRASE)
    response = curator_client.post(
        reverse("archive_curate:cite", args=[passage.pk]),
        {
            "start": start16,
            "end": end16,
            "quote": PHRASE,
            "target_type": "event",
            "target_id": 999999,
            "claim": "x",
            "rank": "normal",
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["target_id"]
    assert not Citation.objects.exists()


def test_the_same_words_can_be_cited_for_two_records(curator_client: Client, passage: Passage, event: Event) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    start16, end16 = selection(passage, "唐生智")
    for target_type, target in (("event", event), ("person", person)):
        response = curator_client.post(
            reverse("archive_curate:cite", args=[passage.pk]),
            {
                "start": start16,
                "end": end16,
                "quote": "唐生智",
                "target_type": target_type,
                "target_id": target.pk,
                "claim": "x",
                "rank": "normal",
            },
        )
        assert response.status_code == 302
    assert Citation.objects.count() == 2
    assert len(set(Citation.objects.values_list("slug", flat=True))) == 2


def test_citing_needs_the_add_permission(passage: Passage) -> None:
    staff = User.objects.create_user("plainstaff", password="pw", is_staff=True)
    client = Client()
    client.force_login(staff)
    url = reverse("archive_curate:cite", args=[passage.pk])
    assert client.get(url, {"start": 0, "end": 3}).status_code == 403
    # Staff without permissions do not read drafts either (tests/admin/test_curator_pages.py);
    # one who may view sources, passages and citations reads, but still may not cite.
    assert client.get(reverse("archive_curate:reader", args=["hist"])).status_code == 403
    staff.user_permissions.add(*Permission.objects.filter(
        content_type__app_label="archive", codename__in=["view_source", "view_passage", "view_citation"]))
    client.force_login(User.objects.get(pk=staff.pk))
    assert client.get(reverse("archive_curate:reader", args=["hist"])).status_code == 200
    assert client.get(url, {"start": 0, "end": 3}).status_code == 403


def test_cite_404_for_an_unknown_passage(curator_client: Client) -> None:
    assert curator_client.get("/admin/curate/passages/999999/cite/", {"start": 0, "end": 1}).status_code == 404


def test_target_search_finds_records_by_name_and_alias(curator_client: Client, event: Event) -> None:
    person = approved(Person(slug="tang", name="唐生智"))
    person.names.create(name="唐孟潇", kind="courtesy")
    approved(Person(slug="song", name="宋希濂"))
    url = reverse("archive_curate:targets")
    found = curator_client.get(url, {"type": "person", "q": "孟潇"}).json()["results"]
    assert [r["id"] for r in found] == [person.pk]
    events = curator_client.get(url, {"type": "event", "q": "离开"}).json()["results"]
    assert [r["text"] for r in events] == ["唐生智离开南京"]
    assert curator_client.get(url, {"type": "nonsense"}).status_code == 400


def test_curators_index_lists_sources_with_reader_links(curator_client: Client, source: Source, event: Event) -> None:
    response = curator_client.get("/admin/curate/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/admin/curate/sources/hist/read/"' in html
    assert 'href="/admin/curate/events/tang-leaves/accounts/"' in html


def test_admin_index_links_to_the_curators_pages(curator_client: Client) -> None:
    html = curator_client.get("/admin/").content.decode()
    assert 'id="curate-links"' in html
    assert 'href="/admin/curate/"' in html and 'href="/admin/curate/my-work/"' in html
    assert 'href="/admin/curate/review/"' not in html  # a curator may not open the queue
    reviewer = Client()
    reviewer.force_login(user("index-reviewer", role="reviewer"))
    assert 'href="/admin/curate/review/"' in reviewer.get("/admin/").content.decode()


def test_reader_query_count_does_not_grow_with_citations(
    curator_client: Client, passage: Passage, event: Event, django_assert_max_num_queries
) -> None:
    url = reverse("archive_curate:reader", args=["hist"])
    cite(passage, "唐生智", event=event)
    curator_client.get(url)
    with CaptureQueriesContext(connection) as few:
        curator_client.get(url)
    person = approved(Person(slug="tang", name="唐生智"))
    for word in ("12日", "傍晚", "离开", "司令部", "煤炭港"):
        cite(passage, word, person=person, status=Status.IN_REVIEW)
    cite(passage.source.passages.get(seq=2), "挹江门", event=event)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = curator_client.get(url)
    assert response.content.decode().count('<li class="citation-note') == 7
