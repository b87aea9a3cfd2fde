"""Text is never corrupted: properties over arbitrary Unicode, checked with hypothesis.

The texts mix Han (BMP and Extension B), Latin, Cyrillic, Arabic, combining
marks, CRLF and lone CR line ends, tabs, a leading BOM, and emoji, because
each of those has broken a byte-exact round trip somewhere: a BOM dropped by
a codec, CRLF translated, a surrogate pair counted as two characters, a
combining mark normalised into its base. Every example runs in a savepoint
that is rolled back, so examples do not see each other's sources.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from django.db import transaction
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from archive.importing.export import export_collection
from archive.importing.source_text import SourceImportError, import_source
from archive.models import Citation, Location, Passage, Source
from tests.factories import approved, cite

pytestmark = pytest.mark.django_db

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

MIXED = st.sampled_from(
    [
        *"南京挹江门下關碼頭唐生智",
        *("𠀀", "𠮷", "𪚥", "😀"),  # astral: CJK Extension B and an emoji
        *"Nanjing ÉéñçTang",
        *"Тан Шэнчжи",
        *"نانجينغ",
        *("\u0301", "\u0308", "\u20dd", "\u200d", "\u3000", "\u00a0"),  # combining marks, joiners, wide spaces
        *("，", "。", "“", "”", "!", " ", "\t"),
    ]
)
LINE_END = st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\n\n\n"])
PARAGRAPH = st.text(MIXED, min_size=1, max_size=30).filter(lambda text: text.strip() != "")


@st.composite
def source_texts(draw: st.DrawFn, *, min_paragraphs: int = 1) -> str:
    paragraphs = draw(st.lists(PARAGRAPH, min_size=min_paragraphs, max_size=8))
    ends = draw(st.lists(LINE_END, min_size=len(paragraphs), max_size=len(paragraphs)))
    text = "".join(p + e for p, e in zip(paragraphs, ends, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final line end
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text


def _import(directory: Path, name: str, text: str, *, slug: str = "prop", replace: bool = False) -> Source:
    path = directory / name
    path.write_bytes(text.encode("utf-8"))
    return import_source(path=path, slug=slug, title="Title", kind="history", language="zh-Hans",
                         replace=replace).source


@PROPERTY
@given(text=source_texts())
def test_import_then_export_reproduces_the_file_byte_for_byte(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, transaction.atomic():
        directory = Path(tmp)
        source = _import(directory, "source.txt", text)
        passages = list(Passage.objects.filter(source=source).order_by("seq"))
        assert all(source.text[p.start : p.end] == p.text for p in passages)
        report = export_collection(directory / "export", shipped=directory / "no-shipped-collection")
        exported = (report.directory / "sources" / "source.txt").read_bytes()
        assert exported == text.encode("utf-8")
        transaction.set_rollback(True)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, int, int, int, str]:
    """A text, a quote in one of its passages (passage index, start, length), and an edited text."""
    text = draw(source_texts(min_paragraphs=2))
    index = draw(st.integers(min_value=0, max_value=20))
    start = draw(st.integers(min_value=0, max_value=29))
    length = draw(st.integers(min_value=1, max_value=8))
    operation = draw(st.sampled_from(["insert", "delete", "change", "duplicate", "prepend"]))
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    piece = draw(PARAGRAPH)
    if operation == "insert":
        edited = text[:cut] + piece + text[cut:]
    elif operation == "delete":
        edited = text[:cut] + text[cut + draw(st.integers(min_value=1, max_value=12)):]
    elif operation == "change":
        edited = text[:cut] + piece + text[cut + len(piece):]
    elif operation == "prepend":
        edited = piece + "\n\n" + text
    else:
        edited = text + "\n\n" + text[cut : cut + 20]
    return text, index, start, length, edited


@PROPERTY
@given(case=edits())
def test_after_a_replace_every_citation_selects_its_quote_or_the_replace_is_refused(
    case: tuple[str, int, int, int, str],
) -> None:
    text, index, start, length, edited = case
    with tempfile.TemporaryDirectory() as tmp, transaction.atomic():
        directory = Path(tmp)
        source = _import(directory, "v1.txt", text)
        passages = list(Passage.objects.filter(source=source).order_by("seq"))
        passage = passages[index % len(passages)]
        begin = min(start, max(len(passage.text) - 1, 0))
        quote = passage.text[begin : begin + length]
        assume(quote.strip() != "" and passage.text.index(quote) == begin)
        place = approved(Location(slug="place", name="地点", kind="other"))
        citation = cite(passage, quote, location=place)
        before = (citation.passage_id, citation.start, citation.end)
        try:
            with transaction.atomic():
                _import(directory, "v2.txt", edited, replace=True)
        except SourceImportError:
            # Refused: the old text and the citation stand as they were.
            stored = Citation.objects.get(pk=citation.pk)
            assert (stored.passage_id, stored.start, stored.end) == before
            assert Source.objects.get(pk=source.pk).text == text
        else:
            stored = Citation.objects.select_related("passage").get(pk=citation.pk)
            assert stored.passage.source_id == source.pk
            assert stored.passage.text[stored.start : stored.end] == quote
            assert Source.objects.get(pk=source.pk).text == edited
        transaction.set_rollback(True)
