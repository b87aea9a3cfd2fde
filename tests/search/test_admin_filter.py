"""`filter_queryset`: what the admin's search boxes call; it sees every status."""

from __future__ import annotations

import pytest

from archive import search
from archive.models import Citation, Event, Location, Passage, Person, Source, Status, Unit
from tests.factories import cite, in_status

from .conftest import World


def test_a_draft_written_in_traditional_is_found_by_simplified(world: World) -> None:
    draft = in_status(Person(slug="sun-draft", name="孫百里"), Status.DRAFT)
    found = search.filter_queryset(Person.objects.all(), "孙百里")
    assert set(found.values_list("slug", flat=True)) == {"sun-baili", draft.slug}


def test_every_status_is_kept(world: World) -> None:
    found = search.filter_queryset(Person.objects.all(), "唐生智")
    assert set(found.values_list("status", flat=True)) == {
        Status.APPROVED, Status.DRAFT, Status.IN_REVIEW, Status.REJECTED,
    }


def test_aliases_and_pinyin(world: World) -> None:
    assert list(search.filter_queryset(Location.objects.all(), "Nanking").values_list("slug", flat=True)) == [
        "nanjing"
    ]
    assert "tang-shengzhi" in search.filter_queryset(Person.objects.all(), "tangshengzhi").values_list(
        "slug", flat=True
    )
    assert list(search.filter_queryset(Unit.objects.all(), "36师").values_list("slug", flat=True)) == [
        "36th-division"
    ]


def test_the_given_queryset_is_narrowed_not_replaced(world: World) -> None:
    approved_only = Person.objects.filter(status=Status.APPROVED)
    assert list(search.filter_queryset(approved_only, "唐生智").values_list("slug", flat=True)) == ["tang-shengzhi"]


def test_events_sources_and_passages(world: World) -> None:
    assert "retreat-from-nanjing" in search.filter_queryset(Event.objects.all(), "撤退").values_list("slug", flat=True)
    assert list(search.filter_queryset(Source.objects.all(), "保卫战").values_list("slug", flat=True)) == ["history"]
    passages = search.filter_queryset(Passage.objects.all(), "芜湖")
    assert list(passages) == [world.passage(world.memoir, 1)]
    # Passages of a draft source are found too: curators work on them.
    assert list(search.filter_queryset(Passage.objects.all(), "草稿")) == list(world.draft_source.passages.all())


def test_citations_by_quote_claim_or_record(world: World) -> None:
    draft = cite(world.passage(world.memoir, 1), "金陵危急", location=world.nanjing, status=Status.DRAFT,
                 claim="南京情况危急")
    citations = Citation.objects.all()
    assert list(search.filter_queryset(citations, "金陵危急")) == [draft]
    assert list(search.filter_queryset(citations, "情况")) == [draft]
    assert draft in search.filter_queryset(citations, "Nanking")  # the cited record's alias
    assert set(search.filter_queryset(citations, "孙百里").values_list("person__slug", flat=True)) == {"sun-baili"}


def test_empty_query_leaves_the_queryset_alone(world: World) -> None:
    queryset = Person.objects.all()
    assert search.filter_queryset(queryset, "  ") is queryset


def test_a_pasted_quote_longer_than_a_search_is_accepted(world: World) -> None:
    text = world.passage(world.history, 1).text
    assert len(text) > 20
    assert list(search.filter_queryset(Passage.objects.all(), text * 4)) == []
    with pytest.raises(search.QueryError):
        search.filter_queryset(Passage.objects.all(), "长" * (search.MAX_ADMIN_QUERY_LENGTH + 1))


def test_other_models_are_refused(world: World) -> None:
    from django.contrib.auth.models import User

    with pytest.raises(TypeError):
        search.filter_queryset(User.objects.all(), "x")
