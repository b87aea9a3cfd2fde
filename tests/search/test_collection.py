"""Search over the shipped collection (`fixtures/*.json`), the same assertions on every engine.

Each engine's passage hits are compared with a reference computed in Python
over every passage, so SQLite and PostgreSQL are shown to give the same
results as each other. Skipped when the fixtures are absent.
"""

from __future__ import annotations

from pathlib import Path

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
def indexed(collection: None) -> None:
    """The shipped collection (tests/conftest.py) with its passages indexed, as `load_collection` leaves it."""
    search.rebuild()


def reference_passages(term: str, fiction: str = "exclude") -> list[int]:
    """Passage ids containing the folded term, by a scan in Python, in the order search gives them."""
    key = search_key(term)
    sources = {s.pk: s for s in Source.objects.filter(status=Status.APPROVED)}
    rows = Passage.objects.filter(source__in=list(sources)).values_list("pk", "source_id", "seq", "text")
    kept = [
        (source_id, seq, pk) for pk, source_id, seq, text in rows
        if key in search_key(text) and search.fiction_kept(bool(sources[source_id].is_fiction), fiction)
    ]
    return [pk for _source, _seq, pk in sorted(kept)]


def test_engine_results_names_and_aliases(indexed: None) -> None:
    """One load of the collection (slow on PostgreSQL) serves every general check."""
    assert Passage.objects.exists()
    for fiction in search.FICTION_CHOICES:
        for term in TERMS:
            got = [hit.id for hit in search.search(term, fiction=fiction, types=["passage"])]
            assert got == reference_passages(term, fiction), (term, fiction)

    for model, type_ in ((Person, "person"), (Location, "location")):
        for record in model.objects.filter(status=Status.APPROVED):
            hits = search.search(record.name, fiction="include", types=[type_])
            assert record.slug in {hit.slug for hit in hits if hit.score == 0}, record.name

    for person in Person.objects.filter(status=Status.APPROVED).prefetch_related("names"):
        for name in person.names.all():
            slugs = {hit.slug for hit in search.search(name.name, fiction="include", types=["person"])}
            assert person.slug in slugs, name.name
    for place in Location.objects.filter(status=Status.APPROVED).prefetch_related("aliases"):
        for alias in place.aliases.all():
            slugs = {hit.slug for hit in search.search(alias.name, fiction="include", types=["location"])}
            assert place.slug in slugs, alias.name


def test_the_examples_of_the_contract(indexed: None) -> None:
    """Each example whose records the collection holds; skipped only if it holds none of them."""
    checked, missing = 0, []

    def slugs(query: str, type_: str) -> set[str | None]:
        return {hit.slug for hit in search.search(query, fiction="include", types=[type_])}

    places = {p.name: p for p in Location.objects.filter(status=Status.APPROVED, name__in=["芜湖", "南京"])}
    people = {p.name: p for p in Person.objects.filter(status=Status.APPROVED, name__in=["唐生智", "周斓"])}
    if "芜湖" in places:
        assert places["芜湖"].slug in slugs("芜湖", "location") & slugs("蕪湖", "location")
        assert search.search("芜湖", types=["passage"]) == search.search("蕪湖", types=["passage"])
        checked += 1
    else:
        missing.append("place 芜湖")
    nanjing = places.get("南京")
    for alias in ("金陵", "Nanking"):
        if nanjing is not None and nanjing.aliases.filter(name__iexact=alias).exists():
            hits = search.search(alias, fiction="include", types=["location"])
            assert (nanjing.slug, "alias") in {(hit.slug, hit.matched) for hit in hits}, alias
            checked += 1
        else:
            missing.append(f"{alias} as an alias of 南京")
    if "唐生智" in people:
        for query in ("tang shengzhi", "Tang Shengzhi", "tangshengzhi"):
            assert people["唐生智"].slug in slugs(query, "person"), query
        checked += 1
    else:
        missing.append("person 唐生智")
    if "周斓" in people:
        assert people["周斓"].slug in slugs("周澜", "person")
        checked += 1
    else:
        missing.append("person 周斓")
    if not checked:
        pytest.skip(f"the collection holds none of the examples: {', '.join(missing)}")
