"""Passages must tile the source text so that nothing is lost or invented."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archive.text.segment import (
    Segment,
    join_passages,
    separators_of,
    sha256_text,
    split_passages,
    verify_tiling,
)

PIECES = [
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "\u3000",
    "\ufeff",
    "𠀀",
    "𡈽",
    "e\u0301",
    "中文",
    "孫百里",
    "ｱ",
    "Ａ",
    "\u2028",
    "\x0c",
    "  \n",
    "\r\r\n",
    "abc",
]
texts = st.tuples(
    st.booleans(),
    st.lists(st.one_of(st.text(max_size=8), st.sampled_from(PIECES)), max_size=25),
).map(lambda pair: ("\ufeff" if pair[0] else "") + "".join(pair[1]))


def reference_lines(text: str) -> list[str]:
    """Independent oracle: the non-blank lines, via re.split."""
    body = text[1:] if text.startswith("\ufeff") else text
    return [line for line in re.split(r"\r\n|\r|\n", body) if line and not line.isspace()]


@settings(max_examples=200, deadline=None)
@given(texts)
def test_passages_tile_the_text(text: str) -> None:
    segments = split_passages(text)
    assert [s.text for s in segments] == reference_lines(text)
    assert [s.seq for s in segments] == list(range(1, len(segments) + 1))
    prev_end = 0
    for seg in segments:
        assert prev_end <= seg.start < seg.end
        assert text[seg.start : seg.end] == seg.text
        prev_end = seg.end
    gaps = separators_of(text, segments)
    assert len(gaps) == len(segments) + 1
    for index, gap in enumerate(gaps):
        body = gap[1:] if index == 0 and gap.startswith("\ufeff") else gap
        assert all(not p or p.isspace() for p in re.split(r"\r\n|\r|\n", body))
        if 0 < index < len(segments):
            assert re.search(r"[\r\n]", gap)
    rebuilt = join_passages(len(text), segments, gaps)
    assert rebuilt == text
    assert rebuilt.encode("utf-8") == text.encode("utf-8")
    verify_tiling(text, segments)


def test_examples() -> None:
    text = "\ufeff第一段\r\n\r\n  第二段 \r第三段𠀀\n \t\n"
    segments = split_passages(text)
    assert [(s.start, s.end, s.text) for s in segments] == [
        (1, 4, "第一段"),
        (8, 14, "  第二段 "),
        (15, 19, "第三段𠀀"),
    ]
    assert separators_of(text, segments) == ["\ufeff", "\r\n\r\n", "\r", "\n \t\n"]


def test_blank_and_empty_texts_have_no_passages() -> None:
    for text in ["", "\ufeff", "\n\r\n\r", "   \n\t", "\ufeff  \r\n"]:
        assert split_passages(text) == []
        assert separators_of(text, []) == [text]
        assert join_passages(len(text), [], [text]) == text
        verify_tiling(text, [])


def test_bom_only_stripped_at_start() -> None:
    segments = split_passages("a\n\ufeff")
    assert [s.text for s in segments] == ["a", "\ufeff"]


@pytest.mark.parametrize(
    ("segments", "message"),
    [
        ([Segment(1, 0, 3, "abc"), Segment(3, 4, 7, "def")], "segment 3"),
        ([Segment(1, 0, 3, "abd")], "segment 1"),
        ([Segment(1, 0, 2, "ab")], "segment 1"),
        ([Segment(1, 0, 7, "abc\ndef")], "segment 1"),
        ([Segment(1, 4, 7, "def")], "segment 1"),
        ([Segment(1, 0, 3, "abc")], "after the last"),
        ([Segment(1, 0, 3, "abc"), Segment(2, 0, 3, "abc")], "segment 2"),
    ],
)
def test_verify_tiling_names_the_bad_segment(segments: list[Segment], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        verify_tiling("abc\ndef", segments)


def test_join_passages_rejects_misaligned_pieces() -> None:
    text = "abc\ndef"
    segments = split_passages(text)
    with pytest.raises(ValueError):
        join_passages(len(text), segments, ["", "\n"])
    with pytest.raises(ValueError):
        join_passages(len(text), segments, ["", "\r\n", ""])
    with pytest.raises(ValueError):
        join_passages(len(text) + 1, segments, ["", "\n", ""])


def test_sha256_text_hashes_utf8() -> None:
    assert sha256_text("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_text("孫") != sha256_text("孙")
    assert sha256_text("𠀀") == __import__("hashlib").sha256("𠀀".encode()).hexdigest()
