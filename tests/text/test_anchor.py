"""Quotes must resolve to exact offsets and never drift to look-alikes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archive.text.anchor import (
    AmbiguousQuote,
    Anchor,
    QuoteNotFound,
    ReanchorError,
    codepoint_to_utf16,
    locate,
    reanchor,
    text_position_selector,
    text_quote_selector,
    utf16_to_codepoint,
)

PASSAGE = "民國十七年，孫百里自蕪湖致函周斓，言及𠀀字與𡈽字之異。孫百里又至蕪湖。"


def test_locate_exact_and_hint() -> None:
    first = locate(PASSAGE, "孫百里")
    assert first == Anchor(6, 9, "孫百里", folded=False)
    second = PASSAGE.index("孫百里", 7)
    assert locate(PASSAGE, "孫百里", hint_start=second).start == second
    with pytest.raises(AmbiguousQuote) as info:
        locate(PASSAGE, "孫百里", hint_start=3)
    assert info.value.positions == [6, second]
    # A lone occurrence is returned even when a stale hint points elsewhere.
    assert locate(PASSAGE, "周斓", hint_start=0).start == PASSAGE.index("周斓")


def test_locate_after_folding_returns_original_characters() -> None:
    anchor = locate(PASSAGE, "孙百里自芜湖")
    assert anchor.folded
    assert anchor.exact == "孫百里自蕪湖" == PASSAGE[anchor.start : anchor.end]
    wide = "Ｔｈｅ ＡＢＣ ｃｏｍｐａｎｙ"
    anchor = locate(wide, "abc")
    assert (anchor.start, anchor.end, anchor.exact, anchor.folded) == (4, 7, "ＡＢＣ", True)


def test_locate_folded_match_respects_character_boundaries() -> None:
    assert locate("重5㎏", "5kg").exact == "5㎏"
    with pytest.raises(QuoteNotFound):
        locate("重5㎏", "5k")


def test_locate_not_found_reports_closest() -> None:
    with pytest.raises(QuoteNotFound) as info:
        locate(PASSAGE, "孫百里自蕪湖寄函")
    error = info.value
    assert error.quote == "孫百里自蕪湖寄函"
    assert error.closest == PASSAGE[error.closest_start : error.closest_end]
    assert error.closest.startswith("孫百里自蕪湖")
    assert 0.5 < error.ratio < 1
    assert "not in the passage" in str(error) and repr(error.closest) in str(error)
    with pytest.raises(ValueError):
        locate(PASSAGE, "")


def test_locate_closest_is_bounded_for_long_inputs() -> None:
    passage = ("天地玄黃宇宙洪荒日月盈昃辰宿列張" * 700)[:10000]
    quote = ("寒來暑往秋收冬藏閏餘成歲律呂調陽" * 40)[:500]
    with pytest.raises(QuoteNotFound) as info:
        locate(passage, quote)
    assert info.value.closest == passage[info.value.closest_start : info.value.closest_end]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40), st.data())
def test_locate_finds_any_substring(passage: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(passage) - 1))
    end = data.draw(st.integers(start + 1, len(passage)))
    quote = passage[start:end]
    anchor = locate(passage, quote, hint_start=start)
    assert (anchor.start, anchor.end, anchor.exact, anchor.folded) == (start, end, quote, False)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="孫百里蕪湖周斓abcABCＡＢＣ ", min_size=1, max_size=30), st.data())
def test_locate_folded_maps_to_original_offsets(passage: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(passage) - 1))
    end = data.draw(st.integers(start + 1, len(passage)))
    quote = passage[start:end].translate(str.maketrans("孫蕪abc", "孙芜ＡＢＣ"))
    anchor = locate(passage, quote)
    assert anchor.exact == passage[anchor.start : anchor.end]
    if not anchor.folded:
        assert anchor.exact == quote
    # Whatever was found folds to the same thing as the quote.
    assert locate(anchor.exact, quote).start == 0


def test_selectors() -> None:
    start = PASSAGE.index("周斓")
    selector = text_quote_selector(PASSAGE, start, start + 2, context=4)
    assert selector == {
        "type": "TextQuoteSelector",
        "exact": "周斓",
        "prefix": PASSAGE[start - 4 : start],
        "suffix": PASSAGE[start + 2 : start + 6],
    }
    assert text_quote_selector("ab", 0, 2)["prefix"] == ""
    assert text_position_selector(3, 5) == {"type": "TextPositionSelector", "start": 3, "end": 5}
    with pytest.raises(ValueError):
        text_quote_selector("ab", 1, 1)
    with pytest.raises(ValueError):
        text_position_selector(5, 3)


def test_utf16_conversion_with_extension_b() -> None:
    text = "甲𠀀乙𡈽丙"
    assert [codepoint_to_utf16(text, i) for i in range(len(text) + 1)] == [0, 1, 3, 4, 6, 7]
    assert utf16_to_codepoint(text, 3) == 2
    assert utf16_to_codepoint(text, 7) == 5
    for bad in (2, 5, 8, -1):
        with pytest.raises(ValueError):
            utf16_to_codepoint(text, bad)
    with pytest.raises(ValueError):
        codepoint_to_utf16(text, 6)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_utf16_round_trip(text: str) -> None:
    units = len(text.encode("utf-16-le")) // 2
    for offset in range(len(text) + 1):
        utf16 = codepoint_to_utf16(text, offset)
        assert len(text[:offset].encode("utf-16-le")) // 2 == utf16
        assert utf16_to_codepoint(text, utf16) == offset
    assert codepoint_to_utf16(text, len(text)) == units


def test_reanchor_shift_and_stay() -> None:
    old = "孫百里自蕪湖致函周斓。"
    new = "民國十七年，" + old
    anchor = reanchor(old, new, 8, 10)
    assert (anchor.start, anchor.exact) == (14, "周斓")
    assert reanchor(old, old, 8, 10).start == 8


def test_reanchor_uses_context_among_duplicates() -> None:
    old = "孫百里至蕪湖。後孫百里返長沙。"
    second = old.index("孫百里", 1)
    new = "按：" + old.replace("返長沙", "歸長沙")
    anchor = reanchor(old, new, second, second + 3)
    assert anchor.start == second + 2


def test_reanchor_refuses_look_alikes() -> None:
    old = "孫百里至蕪湖。後孫百里返長沙。"
    second = old.index("孫百里", 1)
    # The cited sentence is gone; only the other occurrence remains.
    with pytest.raises(ReanchorError):
        reanchor(old, "孫百里至蕪湖。", second, second + 3)
    # The quote is gone altogether.
    with pytest.raises(ReanchorError) as info:
        reanchor(old, "孙百里至芜湖。", 0, 3)
    assert "no longer occurs" in info.value.reason
    # Identical contexts: nothing singles one out.
    with pytest.raises(ReanchorError):
        reanchor("abc", "xabcxabcx", 0, 3, context=1)
    # Periodic text: the stored position is not kept when a shifted copy
    # agrees with the context just as well.
    with pytest.raises(ReanchorError):
        reanchor("a" * 10, "a" * 11, 5, 6, context=4)


def test_reanchor_keeps_stored_position_among_duplicates() -> None:
    old = "孫百里至蕪湖。後孫百里返長沙。"
    second = old.index("孫百里", 1)
    new = old + "孫百里"
    assert reanchor(old, new, second, second + 3).start == second
    assert reanchor(old, new, 0, 3).start == 0


edit_texts = st.text(alphabet="ab孫𠀀\n ", max_size=20)


@settings(max_examples=200, deadline=None)
@given(edit_texts.filter(bool), edit_texts, st.data())
def test_reanchor_property(old: str, insert: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(old) - 1))
    end = data.draw(st.integers(start + 1, len(old)))
    quote = old[start:end]
    kind = data.draw(st.sampled_from(["insert", "delete"]))
    if kind == "insert":
        at = data.draw(st.one_of(st.integers(0, start), st.integers(end, len(old))))
        new = old[:at] + insert + old[at:]
        lo, hi, delta = at, at, len(insert)
    else:
        lo, hi = data.draw(
            st.one_of(
                st.tuples(st.integers(0, start), st.integers(0, start)),
                st.tuples(st.integers(end, len(old)), st.integers(end, len(old))),
            )
        )
        lo, hi = min(lo, hi), max(lo, hi)
        new = old[:lo] + old[hi:]
        delta = lo - hi
    shifted = start + delta if hi <= start else start
    assert new[shifted : shifted + len(quote)] == quote
    context = 4
    try:
        anchor = reanchor(old, new, start, end, context=context)
    except ReanchorError:
        # Refusing is allowed only when the quote is, or has become, repeated.
        assert len(_positions(old, quote)) > 1 or len(_positions(new, quote)) > 1
        return
    assert new[anchor.start : anchor.end] == quote == anchor.exact
    if old.count(quote) == 1 and len(_positions(new, quote)) == 1:
        assert anchor.start == shifted
    if hi < start - context or lo > end + context:
        # The edit left the cited occurrence and its whole context intact.
        assert anchor.start == shifted


def _positions(text: str, quote: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(quote, i)]


def test_reanchor_rejects_bad_span() -> None:
    with pytest.raises(ValueError):
        reanchor("abc", "abc", 2, 2)
    assert issubclass(ReanchorError, ValueError)
