"""The in-memory snapshot of approved records: same answers as matching every record, and current after writes."""

from __future__ import annotations

from typing import Any

import pytest

from archive import search
from archive.models import Location, LocationAlias, Person, PersonName, Status, Unit
from archive.search import snapshot
from archive.search.records import KINDS, Query, candidates, match_candidate
from tests.factories import approved, cite

from .conftest import World, keys_of, queries_of_a_search

QUERIES = [
    "唐生智", "唐", "生智", "tang shengzhi", "tangshengzhi", "Tang", "shengzhi", "sheng", "zhi", "chih",
    "T'ang Sheng-chih", "孟潇", "mengxiao", "周澜", "周斓", "zhoulan", "lan", "孙百里", "孫百里", "sunbaili",
    "松井", "南京", "nanjing", "Nanking", "king", "金陵", "jinling", "芜湖", "wuhu", "下关", "xiaguan", "xia",
    "guan", "挹江门", "yijiangmen", "jiangmen", "36师", "36", "第三十六师", "师", "shi", "撤退", "南京撤退",
    "保卫战", "history", "a", "n", "g",
]


def _full_scan(query: Query) -> set[tuple[str, int, int, str, str]]:
    """What matching every approved record in Python gives: the behaviour the snapshot must keep."""
    found = set()
    for kind in KINDS.values():
        for candidate in candidates(kind, snapshot.approved(kind)):
            match = match_candidate(candidate, query, kind)
            if match is not None:
                found.add((kind.type, candidate.pk, match.score, match.matched, match.snippet))
    return found


def _from_snapshot(query: Query) -> set[tuple[str, int, int, str, str]]:
    return {
        (type_, record.pk, match.score, match.matched, match.snippet)
        for type_, kept in snapshot.snapshots(search.TYPES).items()
        for record, match, _fictional in kept.matching(query)
    }


@pytest.mark.parametrize("text", QUERIES)
def test_the_snapshot_finds_what_a_full_scan_finds(world: World, text: str) -> None:
    approved(Unit(slug="jiangmen-unit", name="江门守备队"))
    approved(Location(slug="shiziling", name="狮子岭", kind="hill"))
    query = Query.of(search.clean_query(text))
    assert _from_snapshot(query) == _full_scan(query)


def test_a_rename_and_a_new_alias_are_found_at_once(world: World) -> None:
    assert ("person", "zhou-lan") in keys_of(search.search("周斓"))
    Person.objects.filter(pk=world.zhou.pk).update(name="周瀾生")
    assert ("person", "zhou-lan") in keys_of(search.search("周澜生"))
    assert ("person", "zhou-lan") not in keys_of(search.search("周斓", types=["person"]))
    LocationAlias.objects.create(location=world.xiaguan, name="Hsiakwan")
    assert keys_of(search.search("hsiakwan")) == [("location", "xiaguan")]
    PersonName.objects.filter(person=world.tang, name="孟潇").delete()
    assert ("person", "tang-shengzhi") not in keys_of(search.search("孟潇"))


def test_status_and_fiction_changes_are_seen(world: World) -> None:
    assert ("location", "wuhu") in keys_of(search.search("芜湖"))
    Location.objects.filter(pk=world.wuhu.pk).update(status=Status.IN_REVIEW)
    assert ("location", "wuhu") not in keys_of(search.search("芜湖"))
    place = approved(Location(slug="meitangang", name="煤炭港", kind="pier"))
    assert search.search("煤炭港", types=["location"])[0].fictional is False
    cite(world.passage(world.novel, 2), "長江", location=place)
    assert search.search("煤炭港", types=["location"]) == []
    assert [hit.slug for hit in search.search("煤炭港", types=["location"], fiction="only")] == [place.slug]


def test_queries_per_search_do_not_grow_with_the_records(world: World) -> None:
    def measured() -> tuple[int, int]:
        search.search("唐")
        again = queries_of_a_search("唐")  # inside a test's transaction the generation is unknown
        snapshot.clear()
        return again, queries_of_a_search("唐")

    before = measured()
    for index in range(30):
        person = approved(Person(slug=f"tang-{index}", name=f"唐{index}号"))
        PersonName.objects.create(person=person, name=f"Tang {index}")
    assert len([hit for hit in search.search("唐") if hit.type == "person"]) > 30
    assert measured() == before


def test_a_snapshot_built_inside_a_transaction_is_not_kept(world: World) -> None:
    snapshot.clear()
    snapshot.snapshots(["person"])
    assert snapshot._snapshots == {}


def test_a_snapshot_is_not_kept_without_a_generation(world: World, monkeypatch: Any) -> None:
    monkeypatch.setattr(snapshot.data_version, "current", lambda using=None: None)
    monkeypatch.setattr(snapshot, "fingerprints", lambda kinds, alias: {})
    snapshot.clear()
    assert ("person", "zhou-lan") in keys_of(search.search("周斓"))
    assert snapshot._snapshots == {}


def test_the_admin_search_finds_drafts_and_keeps_to_its_queryset(world: World) -> None:
    draft = Person.objects.create(slug="draft-person", name="草稿人", status=Status.DRAFT)
    assert list(search.filter_queryset(Person.objects.all(), "草稿人")) == [draft]
    assert search.search("草稿人", types=["person"]) == []  # the public search sees approved records only
    assert not search.filter_queryset(Person.objects.filter(status=Status.APPROVED), "草稿人").exists()
    Person.objects.filter(pk=draft.pk).update(name="新名字")
    assert not search.filter_queryset(Person.objects.all(), "草稿人").exists()
    assert list(search.filter_queryset(Person.objects.all(), "新名字")) == [draft]
