"""Cutting a passage into runs marked by the citations over them, overlaps included."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import translation

from archive.room.edition import marked, notes, runs


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


@dataclass(frozen=True)
class Named:
    name: str


@dataclass(frozen=True)
class Held:
    person: Named
    unit: Named


@dataclass(frozen=True)
class TookPart:
    event: Named


@dataclass(frozen=True)
class Note:
    pk: int
    quote: str
    target_url: str
    claim: str = ""
    target: Any = None
    post: Any = None
    participation: Any = None


def test_the_notes_name_each_record_with_its_link_and_claim_and_escape_what_they_write() -> None:
    commander = Note(3, "唐<生智>", "/people/tang/?a=1&b=2", claim="下令\"撤退\"", target=Named("唐生智"))
    post = Note(4, "司令长官", "/people/tang/", post=Held(Named("唐生智"), Named("卫戍司令部")))
    crossing = Note(5, "渡江", "/events/crossing/", participation=TookPart(Named("渡江<夜>")))
    with translation.override("en"):
        html = notes([commander, post, crossing])
    assert html == (
        '<ul class="notes">\n  '
        '<li id="note-3"><q lang="zh">唐&lt;生智&gt;</q> →\n    '
        '<a href="/people/tang/?a=1&amp;b=2" class="target" lang="zh">唐生智</a>\n    '
        '<span class="claim" lang="zh">下令&quot;撤退&quot;</span>\n  </li>'
        '<li id="note-4"><q lang="zh">司令长官</q> →\n    '
        '<a href="/people/tang/" class="target" lang="zh">唐生智 · 卫戍司令部</a>\n    \n  </li>'
        '<li id="note-5"><q lang="zh">渡江</q> →\n    '
        '<a href="/events/crossing/" class="target" lang="zh">渡江&lt;夜&gt;</a>\n    \n  </li>'
        "\n  </ul>"
    )
