"""Cutting a passage into runs marked by the citations over them, overlaps included."""

from __future__ import annotations

from dataclasses import dataclass

from archive.room.edition import marked, runs


@dataclass(frozen=True)
class Cited:
    pk: int
    start: int
    end: int


def test_overlapping_quotes_mark_each_run_with_every_citation_over_it() -> None:
    text = "我艰难地出了挹江门……"
    a, b = Cited(1, 0, 6), Cited(2, 2, 9)
    cut = runs(text, [a, b])
    assert "".join(run.text for run in cut) == text
    assert [(run.text, [c.pk for c in run.citations]) for run in cut] == [
        ("我艰", [1]), ("难地出了", [1, 2]), ("挹江门", [2]), ("……", []),
    ]
    assert [[c.pk for c in run.starts] for run in cut] == [[1], [2], [], []]


def test_a_quote_beyond_the_text_is_left_unmarked() -> None:
    cut = runs("短文", [Cited(1, 1, 9)])
    assert [(run.text, run.citations) for run in cut] == [("短文", [])]


def test_a_passage_is_written_as_html_with_each_cited_run_marked_and_its_text_escaped() -> None:
    text = "<b>我</b>艰难地出了挹江门"
    a, b = Cited(7, 3, 9), Cited(8, 5, 15)
    assert marked(text, [a, b]) == (
        "&lt;b&gt;"
        '<span id="c-7" class="anchor"></span><mark data-citations="7"><a href="#note-7">我&lt;</a></mark>'
        '<span id="c-8" class="anchor"></span><mark data-citations="7 8"><a href="#note-7">/b&gt;艰</a></mark>'
        '<mark data-citations="8"><a href="#note-8">难地出了挹江</a></mark>'
        "门"
    )
    assert marked("无引文", []) == "无引文"
