"""Ranking, approved-only visibility and the fiction parameter."""

from __future__ import annotations

import pytest

from archive import search
from archive.models import Location, Person, Status
from archive.services import decisions, records, revisions
from tests.factories import approved, cite, source_with_text, user

from .conftest import World, keys_of


def test_exact_name_before_name_contains_before_alias_before_pinyin_before_passages(world: World) -> None:
    tang_junior = approved(Person(slug="tang-junior", name="唐生智之子"))
    approved(Person(slug="meng-xiao", name="孟潇"))  # another person whose name is 唐生智's courtesy name
    hits = search.search("唐生智")
    ranked = [(hit.score, hit.type, hit.slug) for hit in hits if hit.type != "passage"]
    assert ranked == [(0, "person", "tang-shengzhi"), (1, "person", tang_junior.slug)]
    assert [hit.score for hit in hits] == sorted(hit.score for hit in hits)
    assert {hit.type for hit in hits if hit.score == 4} == {"passage"}

    by_alias = search.search("孟潇")
    assert [(hit.score, hit.slug) for hit in by_alias] == [(0, "meng-xiao"), (2, "tang-shengzhi")]


def test_hits_are_sorted_by_score_then_type_then_title(world: World) -> None:
    hits = search.search("南京")
    assert keys_of(hits)[:3] == [("location", "nanjing"), ("event", "retreat-from-nanjing"), ("source", "history")]
    assert [hit.score for hit in hits[:3]] == [0, 1, 1]
    order = {t: i for i, t in enumerate(search.TYPES)}
    records = [hit for hit in hits if hit.type != "passage"]
    assert records == sorted(records, key=lambda hit: (hit.score, order[hit.type], hit.title))


def test_passages_come_in_archive_order(world: World) -> None:
    passages = [hit for hit in search.search("撤退") if hit.type == "passage"]
    # The order sources entered the archive, then the order of their passages.
    by_source = sorted([world.history, world.memoir], key=lambda source: source.pk)
    expected = [
        f"{source.title} §{seq}"
        for source in by_source
        for seq in ((1, 2, 3) if source == world.history else (2,))
    ]
    assert [hit.title for hit in passages] == expected


def test_planted_unapproved_records_never_appear(world: World) -> None:
    planted = {record.slug for record in world.planted}
    for query in ("唐生智", "tang shengzhi", "下关", "下关码头", "撤退", "撤退会议", "码头"):
        for fiction in search.FICTION_CHOICES:
            hits = search.search(query, fiction=fiction)
            assert not planted & {hit.slug for hit in hits}, (query, fiction)


def test_passages_of_unapproved_sources_never_appear(world: World) -> None:
    in_review = source_with_text("审查中的来源也写着撤退。", slug="in-review", status=Status.IN_REVIEW)
    rejected = source_with_text("被退回的来源也写着撤退。", slug="rejected", status=Status.REJECTED)
    search.reindex([in_review, rejected])
    hidden = {p.pk for source in (world.draft_source, in_review, rejected) for p in source.passages.all()}
    for fiction in search.FICTION_CHOICES:
        for query in ("撤退", "唐生智", "来源"):
            assert not hidden & {hit.id for hit in search.search(query, fiction=fiction) if hit.type == "passage"}


def test_a_record_stays_found_as_published_while_its_edit_waits_for_review(world: World) -> None:
    nanjing = Location.objects.get(pk=world.nanjing.pk)
    nanjing.name = "应天"
    pending = records.record_update(record=nanjing, by=user(role="curator"))
    assert pending is not None
    assert Location.objects.get(pk=world.nanjing.pk).status == Status.APPROVED
    assert ("location", "nanjing") in keys_of(search.search("南京"))
    assert ("location", "nanjing") not in keys_of(search.search("应天"))
    revisions.approve_revision(revision=pending, by=user(role="reviewer"), shown=decisions.revision_pin(pending))
    assert ("location", "nanjing") in keys_of(search.search("应天"))


def test_fiction_excluded_by_default(world: World) -> None:
    hits = search.search("孙百里")
    assert hits == []
    novel_passages = set(world.novel.passages.values_list("pk", flat=True))
    assert not novel_passages & {hit.id for hit in search.search("挹江门") if hit.type == "passage"}


def test_fiction_include_and_only(world: World) -> None:
    included = search.search("孙百里", fiction="include")
    assert keys_of(included) == [("person", "sun-baili"), ("passage", world.passage(world.novel, 1).pk)]
    assert all(hit.fictional for hit in included)

    only = search.search("挹江门", fiction="only")
    assert keys_of(only) == [("passage", world.passage(world.novel, 1).pk)]
    everything = search.search("挹江门", fiction="include")
    assert {hit.fictional for hit in everything} == {True, False}
    assert {hit.id for hit in everything if not hit.fictional} == {
        hit.id for hit in search.search("挹江门", fiction="exclude")
    }


def test_a_historical_person_cited_only_by_fiction_is_not_fictional(world: World) -> None:
    matsui = [hit for hit in search.search("松井石根") if hit.type == "person"]
    assert [(hit.slug, hit.fictional) for hit in matsui] == [("matsui-iwane", False)]
    assert search.search("松井石根", fiction="only", types=["person"]) == []


def test_fictional_flag_follows_citations(world: World) -> None:
    place = approved(Location(slug="baiziting", name="百子亭", kind="building"))
    assert search.search("百子亭", types=["location"])[0].fictional is False  # no citations: not fictional
    novel_passage = world.passage(world.novel, 2)
    cite(novel_passage, "長江", location=place)
    assert search.search("百子亭", types=["location"]) == []
    assert search.search("百子亭", types=["location"], fiction="only")[0].slug == "baiziting"
    cite(world.passage(world.history, 1), "百子亭", location=place)
    assert search.search("百子亭", types=["location"])[0].fictional is False


def test_draft_citation_does_not_make_a_record_fictional(world: World) -> None:
    person = approved(Person(slug="li-zongren", name="李宗仁"))
    source = source_with_text("李宗仁在小说里出现。", slug="another-novel", kind="novel")
    cite(source.passages.get(), "李宗仁", person=person, status=Status.DRAFT)
    assert search.search("李宗仁", types=["person"])[0].fictional is False


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"query": ""}, "q"),
        ({"query": "   "}, "q"),
        ({"query": "长" * 101}, "q"),
        ({"query": "南京", "fiction": "maybe"}, "fiction"),
        ({"query": "南京", "types": ["person", "ship"]}, "type"),
    ],
)
def test_bad_parameters_raise_query_error_naming_them(db: object, kwargs: dict, param: str) -> None:
    query = kwargs.pop("query")
    with pytest.raises(search.QueryError) as error:
        search.search(query, **kwargs)
    assert error.value.param == param
    assert isinstance(error.value, ValueError)


def test_a_hundred_characters_are_allowed(world: World) -> None:
    assert search.search("撤" * 100) == []


def test_the_planted_records_are_in_every_unapproved_status(world: World) -> None:
    statuses = {Person.objects.get(slug=f"planted-person-{s}").status for s in
                (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED)}
    assert statuses == {Status.DRAFT, Status.IN_REVIEW, Status.REJECTED}
