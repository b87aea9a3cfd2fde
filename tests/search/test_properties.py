"""Properties of folding and of search that hold for any text (hypothesis, bounded)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from archive import search
from archive.search.keys import gram_code, grams, normalise_query, query_grams, search_key, search_key_aligned
from archive.text.normalize import fold
from tests.factories import source_with_text

# One line of text: no line terminators (a passage is one line), no control characters.
LINE = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85")
HAN_HEAVY = st.one_of(st.sampled_from("蕪湖芜湖金陵南京下关關撤退江唐生智周斕斓孫孙百里挹門门薴苧苎ＡａA"), LINE)
_slugs = itertools.count(1)


@settings(max_examples=50, deadline=None)
@given(st.text(HAN_HEAVY, max_size=40))
def test_folding_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)
    assert search_key(search_key(text)) == search_key(text)


@settings(max_examples=50, deadline=None)
@given(st.text(HAN_HEAVY, max_size=40))
def test_key_is_aligned_with_the_original(text: str) -> None:
    folded, origin = search_key_aligned(text)
    assert folded == search_key(text)
    assert len(origin) == len(folded)
    assert origin == sorted(origin)
    assert all(0 <= index < len(text) for index in origin)


@settings(max_examples=50, deadline=None)
@given(st.text(HAN_HEAVY, min_size=1, max_size=30))
def test_the_grams_of_a_query_are_among_the_grams_of_a_text_containing_it(query: str) -> None:
    key = search_key(query)
    assume(key)
    text_grams = set(grams("前" + key + "后"))
    assert set(query_grams(key)) <= text_grams


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prefix=st.text(HAN_HEAVY, max_size=20),
    needle=st.text(HAN_HEAVY, min_size=1, max_size=12),
    suffix=st.text(HAN_HEAVY, max_size=20),
)
def test_a_passage_is_found_by_any_string_it_contains(db: Any, prefix: str, needle: str, suffix: str) -> None:
    assume(normalise_query(needle) == needle)  # the query as the user would leave it after trimming
    text = prefix + needle + suffix
    assume(text.strip())
    source = source_with_text(text, slug=f"prop-{next(_slugs)}")
    [passage] = source.passages.all()
    search.reindex([source])
    hits = [hit for hit in search.search(needle, types=["passage"]) if hit.id == passage.pk]
    assert len(hits) == 1
    hit = hits[0]
    assert hit.start is not None and hit.end is not None
    assert search_key(needle) in search_key(passage.text[hit.start : hit.end])


@given(st.characters(), st.characters(), st.characters(), st.characters())
def test_gram_codes_of_characters_and_pairs_never_collide(a: str, b: str, c: str, d: str) -> None:
    assert gram_code(a) < 0x110000 <= gram_code(a + b)
    assert (gram_code(a + b) == gram_code(c + d)) == (a + b == c + d)
