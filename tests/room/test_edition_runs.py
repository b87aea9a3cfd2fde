"""Cutting a passage into runs marked by the citations over them, overlaps included."""

from __future__ import annotations

from dataclasses import dataclass

from archive.room.edition import runs


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
