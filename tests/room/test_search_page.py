"""The room's search page: the archive's folded search behind a box, grouped, marked, paged, never a 500."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client

from archive import search
from archive.models import Person, Source, Status
from archive.room.finding import PER_PAGE, runs
from archive.search import snapshot

pytestmark = pytest.mark.usefixtures("shipped")


@pytest.fixture(scope="module", autouse=True)
def _indexed(shipped_collection: None, django_db_blocker: Any) -> Iterator[None]:
    """The passages indexed as the importer indexes them, for this module only (rolled back after it)."""
    with django_db_blocker.unblock(), transaction.atomic():
        search.reindex(Source.objects.all())
        snapshot.clear()
        yield
        transaction.set_rollback(True)
    snapshot.clear()


def _html(query: str, **params: str) -> str:
    response = Client().get("/search/", {"q": query, **params})
    assert response.status_code == 200, (query, response.status_code)
    return response.content.decode()


def _section(html: str, kind: str) -> str:
    found = re.search(rf'<section class="hits hits-{kind}".*?</section>', html, re.S)
    return found.group(0) if found else ""


@pytest.mark.parametrize("query", ["唐司令", "蔣介石", "tang", "Tang Shengzhi", "唐"])
def test_finds_the_person_by_title_traditional_form_pinyin_and_one_character(query: str) -> None:
    person = Person.objects.get(slug="tang-shengzhi") if query != "蔣介石" else Person.objects.get(name="蒋介石")
    assert f'href="/people/{person.slug}/"' in _section(_html(query), "person")


def test_passages_are_grouped_apart_with_the_matched_words_marked() -> None:
    html = _html("蔣介石")
    passages = _section(html, "passage")
    marks = re.findall(r"<mark>(.*?)</mark>", passages)
    assert marks, "passages that name 蒋介石 are found from the Traditional form"
    assert all(search.search_key(mark) == search.search_key("蔣介石") for mark in marks), marks
    assert html.index("hits-person") < html.index("hits-passage")


def test_a_snippet_reaches_the_page_escaped() -> None:
    assert runs("a&lt;b<mark>&lt;script&gt;</mark>c") == [
        runs("a&lt;b")[0], type(runs("a")[0])("<script>", True), runs("c")[0]]
    html = _html("<script>唐")
    assert "<script>唐" not in html


def test_fiction_follows_the_reader() -> None:
    novel = Source.objects.filter(status=Status.APPROVED, is_fiction=True).first()
    assert novel is not None
    assert f'href="/sources/{novel.slug}/' not in _html(novel.title)
    assert f'href="/sources/{novel.slug}/?fiction=include' in _html(novel.title, fiction="include")


def test_results_are_paged_with_a_bounded_number_of_queries(django_assert_max_num_queries: Any) -> None:
    # On PostgreSQL the count and the page of passages are each planned for their term
    # (`archive.search.index.planned_for_the_term`): a savepoint, the setting and its restoring, four each.
    bound = 20 + (8 if connection.vendor == "postgresql" else 0)
    with django_assert_max_num_queries(bound):
        first = _html("南")
    assert first.count('<li class="hit') == PER_PAGE
    next_url = re.search(r'href="([^"]+)" rel="next"', first)
    assert next_url is not None
    with django_assert_max_num_queries(bound):
        second = Client().get(next_url.group(1).replace("&amp;", "&"))
    assert second.status_code == 200
    assert 'rel="prev"' in second.content.decode()


@pytest.mark.parametrize("query, status", [("", 200), ("   ", 200), ("唐" * 101, 400), ("x" * 5000, 400)])
def test_empty_and_long_queries_answer_with_a_page(query: str, status: int) -> None:
    response = Client().get("/search/", {"q": query})
    assert response.status_code == status, response.status_code
    assert ('role="alert"' in response.content.decode()) == (status == 400)


@pytest.mark.parametrize("query", ["\x01\x02", "\u200b", "\t\n", "\ufeff唐", "%", "'\"<>&", "*" * 100])
def test_control_and_odd_characters_are_never_a_server_error(query: str) -> None:
    assert Client().get("/search/", {"q": query}).status_code in (200, 400)


@pytest.mark.parametrize("raw", ["q=%ED%A0%80", "q=%00", "q=唐&page=%ED%A0%80", "q=唐&page=-1", "q=唐&page=" + "9" * 40,
                                 "q=唐&fiction=maybe", "q=a&q=b"])
def test_hostile_parameters_are_never_a_server_error(raw: str) -> None:
    assert Client().get(f"/search/?{raw}").status_code < 500
