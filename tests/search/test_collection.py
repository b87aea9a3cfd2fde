"""Search over the shipped collection (`fixtures/*.json`), the same assertions on every engine.

Each engine's passage hits are compared with a reference computed in Python
over every passage, so SQLite and PostgreSQL are shown to give the same
results as each other. Skipped when the fixtures are absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from archive import search
from archive.models import Location, Passage, Person, Source, Status
from archive.search.keys import search_key

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
pytestmark = pytest.mark.skipif(
    not sorted(FIXTURES.glob("*.json")), reason=f"the shipped collection is not there yet: no {FIXTURES}/*.json"
)

TERMS = ["江", "撤退", "下关", "挹江门", "南京", "金陵", "唐生智", "蕪湖", "芜湖", "渡江", "命令", "师"]


@pytest.fixture
def collection(db: Any) -> None:
    from archive.importing.collection import load_collection

    load_collection(FIXTURES)
    search.rebuild()


def reference_passages(term: str, fiction: str = "exclude") -> list[int]:
    """Passage ids containing the folded term, by a scan in Python, in the order search gives them."""
    key = search_key(term)
    sources = {s.pk: s for s in Source.objects.filter(status=Status.APPROVED)}
    rank = {pk: i for i, pk in enumerate(sorted(sources, key=lambda pk: (sources[pk].title, pk)))}
    rows = Passage.objects.filter(source__in=list(sources)).values_list("pk", "source_id", "seq", "text")
    kept = [
        (rank[source_id], seq, pk) for pk, source_id, seq, text in rows
        if key in search_key(text) and search._keep(bool(sources[source_id].is_fiction), fiction)
    ]
    return [pk for _rank, _seq, pk in sorted(kept)]


@pytest.mark.parametrize("fiction", ["exclude", "include", "only"])
def test_passage_hits_equal_a_python_scan(collection: None, fiction: str) -> None:
    assert Passage.objects.exists()
    for term in TERMS:
        got = [hit.id for hit in search.search(term, fiction=fiction, types=["passage"])]
        assert got == reference_passages(term, fiction), term


def test_every_approved_name_finds_its_record_first(collection: None) -> None:
    for model, type_ in ((Person, "person"), (Location, "location")):
        for record in model.objects.filter(status=Status.APPROVED):
            hits = search.search(record.name, fiction="include", types=[type_])
            exact = [hit for hit in hits if hit.score == 0]
            assert record.slug in {hit.slug for hit in exact}, record.name


def test_every_recorded_alias_finds_its_record(collection: None) -> None:
    for person in Person.objects.filter(status=Status.APPROVED).prefetch_related("names"):
        for name in person.names.all():
            if len(name.name) <= search.MAX_QUERY_LENGTH:
                slugs = {hit.slug for hit in search.search(name.name, fiction="include", types=["person"])}
                assert person.slug in slugs, name.name
    for place in Location.objects.filter(status=Status.APPROVED).prefetch_related("aliases"):
        for alias in place.aliases.all():
            slugs = {hit.slug for hit in search.search(alias.name, fiction="include", types=["location"])}
            assert place.slug in slugs, alias.name


def _location(name: str) -> Location:
    found = Location.objects.filter(name=name, status=Status.APPROVED).first()
    if found is None:
        pytest.skip(f"the collection has no approved place {name}")
    return found


def test_wuhu_in_either_script(collection: None) -> None:
    wuhu = _location("芜湖")
    for query in ("芜湖", "蕪湖"):
        assert wuhu.slug in {hit.slug for hit in search.search(query, types=["location"])}
    assert search.search("芜湖", types=["passage"]) == search.search("蕪湖", types=["passage"])


def test_jinling_finds_nanjing_when_recorded(collection: None) -> None:
    nanjing = _location("南京")
    if not nanjing.aliases.filter(name="金陵").exists():
        pytest.skip("金陵 is not recorded as an alias of 南京 in the collection")
    hits = search.search("金陵", fiction="include")
    assert (nanjing.slug, "alias") in {(hit.slug, hit.matched) for hit in hits}


def test_nanking_finds_nanjing_when_recorded(collection: None) -> None:
    nanjing = _location("南京")
    if not nanjing.aliases.filter(name__iexact="Nanking").exists():
        pytest.skip("Nanking is not recorded as an alias of 南京 in the collection")
    assert nanjing.slug in {hit.slug for hit in search.search("Nanking", types=["location"])}


@pytest.mark.parametrize("query", ["tang shengzhi", "Tang Shengzhi", "tangshengzhi"])
def test_tang_shengzhi_by_pinyin(collection: None, query: str) -> None:
    tang = Person.objects.filter(name="唐生智", status=Status.APPROVED).first()
    if tang is None:
        pytest.skip("the collection has no approved person 唐生智")
    assert tang.slug in {hit.slug for hit in search.search(query, fiction="include", types=["person"])}


def test_zhou_lan_homophone(collection: None) -> None:
    zhou = Person.objects.filter(name="周斓", status=Status.APPROVED).first()
    if zhou is None:
        pytest.skip("the collection has no approved person 周斓")
    assert zhou.slug in {hit.slug for hit in search.search("周澜", fiction="include", types=["person"])}
