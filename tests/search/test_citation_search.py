"""The admin's citation search reads the stored folded quote and claim, and misses nothing the old scan found."""

from __future__ import annotations

import random
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive import search
from archive.models import Citation, Location, Person, Status
from archive.search.keys import search_key
from tests.factories import approved, cite

from .conftest import World

# Simplified and Traditional forms of the same characters, to mix into claims.
PAIRS = [("后", "後"), ("将", "將"), ("军", "軍"), ("长", "長"), ("门", "門"), ("孙", "孫"), ("芜", "蕪")]


def found(query: str) -> set[int]:
    return set(search.filter_queryset(Citation.objects.all(), query).values_list("pk", flat=True))


def old_scan(query: str) -> set[int]:
    """What the admin found before the folded column: every quote and claim folded in Python."""
    parsed = search.Query.of(search.normalise_query(query))
    named = set()
    for field in ("person", "unit", "location", "event"):
        model = Citation._meta.get_field(field).related_model
        named |= {
            (field, pk)
            for pk in search.matching_record_ids(model, model._default_manager.all(), parsed)  # type: ignore[union-attr]
        }
    return {
        citation.pk
        for citation in Citation.objects.all()
        if parsed.key in search_key(citation.quote)
        or parsed.key in search_key(citation.claim)
        or (citation.target_field, getattr(citation, f"{citation.target_field}_id")) in named
    }


def test_a_traditional_quote_is_found_by_a_simplified_query(world: World) -> None:
    citation = cite(world.passage(world.memoir, 1), "蕪湖失守後", location=world.wuhu, claim="x")
    assert citation.pk in found("芜湖失守后")
    assert citation.pk in found("失守後")


def test_a_claim_is_found_in_either_script(world: World) -> None:
    traditional = cite(world.passage(world.history, 2), "渡江北去", location=world.xiaguan, claim="將軍渡江")
    simplified = cite(world.passage(world.history, 4), "不许部队出城", unit=world.division, claim="将军不许")
    assert found("将军") == {traditional.pk, simplified.pk}
    assert found("將軍") == {traditional.pk, simplified.pk}


def test_the_name_of_the_cited_record_matches(world: World) -> None:
    citation = cite(world.passage(world.history, 3), "金陵城内", location=world.nanjing, claim="x")
    assert citation.pk in found("Nanking")
    assert citation.pk in found("南京")


def test_a_match_never_straddles_the_quote_and_the_claim(world: World) -> None:
    citation = cite(world.passage(world.history, 2), "渡江北去", location=world.xiaguan, claim="撤退")
    assert citation.folded == "渡江北去\n撤退"
    assert citation.pk not in found("北去撤退")


def test_bulk_create_writes_the_key(world: World) -> None:
    passage = world.passage(world.memoir, 2)
    start = passage.text.index("唐生智將軍")
    Citation.objects.bulk_create([
        Citation(passage=passage, quote="唐生智將軍", start=start, end=start + 5, claim="下令", person=world.tang,
                 slug="bulk-one")
    ])
    assert Citation.objects.get(slug="bulk-one").folded == "唐生智将军\n下令"
    assert Citation.objects.get(slug="bulk-one").pk in found("生智将")


def test_a_write_around_the_key_clears_it_and_is_still_found(world: World) -> None:
    # A draft, which save() writes in place (a published citation's edit waits for review).
    citation = cite(world.passage(world.history, 2), "渡江北去", location=world.xiaguan, claim="x", status="draft")
    Citation.objects.filter(pk=citation.pk).update(claim="長江以北")
    assert Citation.objects.get(pk=citation.pk).folded is None
    assert citation.pk in found("长江以北")
    # Changing other columns leaves the key alone.
    Citation.objects.filter(pk=citation.pk).update(folded="渡江北去\n长江以北")
    Citation.objects.filter(pk=citation.pk).update(rank="preferred")
    assert Citation.objects.get(pk=citation.pk).folded == "渡江北去\n长江以北"
    # save() folds it again.
    stored = Citation.objects.get(pk=citation.pk)
    stored.claim = "江北"
    stored.save()
    assert Citation.objects.get(pk=citation.pk).folded == "渡江北去\n江北"


def test_the_same_citations_as_the_old_scan_on_a_generated_sample(world: World) -> None:
    rng = random.Random(1937)
    passages = [world.passage(source, seq) for source, seq in
                [(world.history, 1), (world.history, 2), (world.history, 3), (world.memoir, 1), (world.memoir, 2),
                 (world.novel, 1), (world.novel, 2)]]
    targets: list[dict[str, Any]] = [{"person": world.tang}, {"location": world.nanjing}, {"unit": world.division},
                                     {"event": world.retreat}, {"location": world.wuhu}]
    texts = []
    for index in range(40):
        passage = rng.choice(passages)
        start = rng.randrange(len(passage.text) - 2)
        quote = passage.text[start : start + rng.randint(2, 8)].strip() or passage.text[start]
        claim = "".join(rng.choice(rng.choice(PAIRS)) for _ in range(rng.randint(1, 6)))
        citation = cite(passage, quote, claim=claim, status=rng.choice(list(Status)), **rng.choice(targets))
        if index % 5 == 0:  # some rows lose their key, as after an update() of the claim
            Citation.objects.filter(pk=citation.pk).update(claim=claim + "门")
        texts += [quote, claim]
    queries = ["南京", "Nanking", "tang shengzhi", "三十六", "撤退", "门", "軍", "江"]
    for text in rng.sample(texts, 30):
        start = rng.randrange(len(text))
        queries.append(text[start : start + rng.randint(1, 3)])
    for query in queries:
        if search.normalise_query(query):
            assert found(query) == old_scan(query), query


def test_the_number_of_queries_does_not_grow_with_the_citations(world: World) -> None:
    def queries_for_a_page() -> int:
        with CaptureQueriesContext(connection) as captured:
            queryset = search.filter_queryset(Citation.objects.order_by("-pk"), "江")
            list(queryset[:50])
            queryset.count()
        return len(captured)

    passage = world.passage(world.history, 2)
    cite(passage, "渡江北去", location=world.xiaguan)
    few = queries_for_a_page()
    for index in range(30):
        person = approved(Person(slug=f"p{index}", name=f"江{index}"))
        cite(passage, "渡江", person=person, claim=f"江{index}")
        cite(passage, "下关", location=approved(Location(slug=f"l{index}", name=f"江口{index}", kind="town")))
    Citation.objects.filter(claim="江3").update(claim="江三")  # one row folded in Python
    assert queries_for_a_page() == few
    # Inside the test's transaction the name snapshots are built afresh: two queries per kind.
    assert few <= 16
