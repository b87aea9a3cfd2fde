"""Accounts side by side: an event's citations grouped by source, in passage order."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.models import Event, Participation, Person, Status
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

HISTORY = "唐生智约定18时到煤炭港码头。\n\n唐生智20时才到码头。\n"
MEMOIR = "我们等到21时以后才开船，唐司令在船上。\n"
NOVEL = "唐司令的船在夜里离岸，江面一片火光。\n"


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(user("rev", role="reviewer"))
    return client


@pytest.fixture
def event() -> Event:
    return approved(Event(slug="tang-departs", title="唐生智离开南京", kind="escape", date="1937-12-12"))


@pytest.fixture
def accounts(event: Event) -> dict[str, object]:
    history = source_with_text(HISTORY, slug="history", kind="history")
    memoir = source_with_text(MEMOIR, slug="memoir", kind="memoir")
    novel = source_with_text(NOVEL, slug="novel", kind="web-novel")
    tang = approved(Person(slug="tang", name="唐生智"))
    commander = approved(Participation(slug="tang-departs-tang", event=event, person=tang, role="escaped"))
    h1, h2 = history.passages.get(seq=1), history.passages.get(seq=2)
    # Created out of passage order, to prove the page sorts by passage.
    late = cite(h2, "20时才到码头", event=event, claim="arrived at 20:00", rank="preferred")
    due = cite(h1, "约定18时到煤炭港码头", event=event, claim="due at the dock at 18:00")
    left = cite(memoir.passages.get(), "21时以后才开船", participation=commander, claim="left after 21:00")
    fiction = cite(novel.passages.get(), "船在夜里离岸", event=event, claim="left at night", rank="deprecated")
    pending = cite(h1, "煤炭港码头", event=event, claim="the dock", status=Status.IN_REVIEW)
    return {"late": late, "due": due, "left": left, "fiction": fiction, "pending": pending}


def url(slug: str) -> str:
    return reverse("archive_curate:accounts", args=[slug])


def test_accounts_is_staff_only_and_404_for_unknown_events(staff_client: Client, event: Event) -> None:
    assert url("tang-departs") == "/admin/curate/events/tang-departs/accounts/"
    assert Client().get(url("tang-departs")).status_code == 302
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider", password="pw"))
    assert outsider.get(url("tang-departs")).status_code == 302
    assert staff_client.get(url("no-such-event")).status_code == 404


def test_columns_per_source_primary_first_fiction_last(staff_client: Client, accounts: dict) -> None:
    response = staff_client.get(url("tang-departs"))
    assert response.status_code == 200
    columns = response.context["columns"]
    assert [c.source.slug for c in columns] == ["memoir", "history", "novel"]
    html = response.content.decode()
    memoir, history, novel = (html.index(f'data-source="{s}"') for s in ("memoir", "history", "novel"))
    assert memoir < history < novel
    novel_column = html[novel:]
    assert 'class="account-column fiction"' in html[novel - 40 : novel] and "badge-fiction" in novel_column
    assert "web novel" in novel_column and "memoir" in html[memoir:history]


def test_accounts_follow_the_order_of_the_passages(staff_client: Client, accounts: dict) -> None:
    columns = staff_client.get(url("tang-departs")).context["columns"]
    history = next(c for c in columns if c.source.slug == "history")
    assert [a.citation.claim for a in history.accounts] == ["due at the dock at 18:00", "the dock", "arrived at 20:00"]


def test_participation_citations_are_included_and_named(staff_client: Client, accounts: dict) -> None:
    columns = staff_client.get(url("tang-departs")).context["columns"]
    memoir = next(c for c in columns if c.source.slug == "memoir")
    (account,) = memoir.accounts
    assert account.citation == accounts["left"]
    assert account.about == "唐生智 · escaped"


def test_rank_status_and_quote_in_its_passage_are_shown(staff_client: Client, accounts: dict) -> None:
    html = staff_client.get(url("tang-departs")).content.decode()
    assert 'class="account-item rank-preferred"' in html
    assert 'class="account-item rank-deprecated"' in html
    assert 'class="badge badge-in_review"' in html
    assert "唐生智<mark " in html and ">20时才到码头</mark>。" in html
    # The at-a-glance line of each source, in order.
    assert 'due at the dock at 18:00</span> → <span class="rank-normal">the dock</span> → ' in html


def test_status_filter(staff_client: Client, accounts: dict) -> None:
    columns = staff_client.get(url("tang-departs"), {"status": "in_review"}).context["columns"]
    assert [a.citation.claim for c in columns for a in c.accounts] == ["the dock"]
    everything = staff_client.get(url("tang-departs"), {"status": "bogus"}).context["columns"]
    assert sum(len(c.accounts) for c in everything) == 5


def test_other_events_citations_are_left_out(staff_client: Client, accounts: dict) -> None:
    other = approved(Event(slug="other", title="别的事件", kind="other"))
    cite(accounts["due"].passage, "唐生智", event=other, claim="unrelated")
    html = staff_client.get(url("tang-departs")).content.decode()
    assert "unrelated" not in html
    assert "No citation rests on this event" in staff_client.get(url("other"), {"status": "draft"}).content.decode()


def test_reader_and_queue_link_to_the_accounts(staff_client: Client, accounts: dict) -> None:
    reader = staff_client.get(reverse("archive_curate:reader", args=["history"])).content.decode()
    assert url("tang-departs") in reader
    queue = staff_client.get(reverse("archive_curate:review")).content.decode()
    assert url("tang-departs") in queue


def test_accounts_query_count_does_not_grow_with_citations(
    staff_client: Client, accounts: dict, event: Event, django_assert_max_num_queries
) -> None:
    staff_client.get(url("tang-departs"))
    with CaptureQueriesContext(connection) as few:
        staff_client.get(url("tang-departs"))
    passage = accounts["due"].passage
    for word in ("唐生智", "约定", "18时"):
        cite(passage, word, event=event)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = staff_client.get(url("tang-departs"))
    assert sum(len(c.accounts) for c in response.context["columns"]) == 8
