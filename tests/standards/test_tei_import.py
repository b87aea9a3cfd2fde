"""TEI import: an exported source comes back as a new draft source with the same passages and citation
offsets; malformed or unsupported TEI is refused with the element and line, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from archive import selectors
from archive.importing.tei import TeiImportError, import_tei
from archive.models import Citation, Passage, Person, Source, Status

pytestmark = pytest.mark.usefixtures("collection")


def export(client: Client, slug: str) -> bytes:
    response = client.get(f"/api/v1/sources/{slug}/", {"format": "tei"})
    assert response.status_code == 200
    return bytes(response.content)


def spans(citations: Any) -> list[tuple[Any, ...]]:
    rows = citations.values_list("passage__seq", "start", "end", "quote", "rank", "claim", "person__slug",
                                 "unit__slug", "location__slug", "event__slug", "post__slug", "participation__slug")
    return sorted(rows, key=lambda row: tuple(str(value) for value in row))


def test_every_shipped_source_round_trips(client: Client) -> None:
    for source in Source.objects.filter(status=Status.APPROVED):
        result = import_tei(export(client, source.slug), name=f"{source.slug}.xml", slug=f"{source.slug}-tei")
        copy = result.source
        assert copy.status == Status.DRAFT and copy.text == source.text
        assert (copy.title, copy.author, copy.kind, copy.language, copy.date) == (
            source.title, source.author, source.kind, source.language, source.date)
        assert list(copy.passages.order_by("seq").values_list("seq", "start", "end", "text")) == list(
            Passage.objects.filter(source=source).order_by("seq").values_list("seq", "start", "end", "text"))
        imported = Citation.objects.filter(passage__source=copy)
        assert not imported.exclude(status=Status.DRAFT).exists()
        assert spans(imported) == spans(selectors.citations_with_targets().filter(passage__source=source))
        assert result.unmatched == []


TEI_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0">
<teiHeader><fileDesc><titleStmt><title>试卷</title></titleStmt><publicationStmt><p/></publicationStmt>
<sourceDesc><bibl><title>试卷</title><note type="kind">history</note></bibl></sourceDesc></fileDesc>
<profileDesc><langUsage><language ident="zh-Hans">中文</language></langUsage></profileDesc></teiHeader>
<text><body><div type="source">"""
TEI_TAIL = "</div></body></text></TEI>"


def tei_document(body: str) -> bytes:
    return (TEI_HEAD + body + TEI_TAIL).encode()


def test_names_without_ref_are_reconciled() -> None:
    body = '<p n="1"><persName>唐生智</persName>在<placeName>南京</placeName>遇见<persName>王</persName>。</p>'
    result = import_tei(tei_document(body), name="hand.xml", slug="hand-made")
    cited = {(c.quote, c.target_field, c.target.slug) for c in Citation.objects.filter(passage__source=result.source)}
    assert ("唐生智", "person", "tang-shengzhi") in cited
    assert ("南京", "location", "nanjing") in cited
    assert result.unmatched == ["§1 王 (person)"]  # two people are called 王: not guessed


@pytest.mark.parametrize(
    ("body", "element", "line"),
    [
        ('<p n="1">一行<hi>强调</hi></p>', "hi", 6),
        ('<p n="1">一行</p>\n<list/>', "list", 7),
        ('<p n="2">一行</p>', "p", 6),
        ('<p n="1">一行\n两行</p>', "p", 6),
        ('<p n="1"><rs type="ship">船</rs></p>', "rs", 6),
        ('<p n="1">一行</p>\n<p n="2">未闭合', "TEI", 7),
        ('<p n="1">一<anchor/>行</p>', "anchor", 6),
        # Numbers, characters and nodes that crashed the import or lost text.
        ('<p n="²">一行</p>', "p", 6),
        ('<p n="١">一行</p>', "p", 6),
        ('<p n="1">一<g type="char" n="U+D800"/>行</p>', "g", 6),
        ('<p n="1">一<g type="char" n="U+0000"/>行</p>', "g", 6),
        ('<p n="1">一<g type="char" n="U+110000"/>行</p>', "g", 6),
        ('<p n="1">一<g type="char" n="U+ 00C"/>行</p>', "g", 6),
        ('<p n="1">一<!-- 注 -->行</p>', "p", 6),
        ('<p n="1">一<?pi 行?>行</p>', "p", 6),
        ('<p n="1"><persName>唐<!-- 注 -->生智</persName></p>', "persName", 6),
    ],
)
def test_bad_tei_names_element_and_line_and_writes_nothing(body: str, element: str, line: int) -> None:
    before = (Source.objects.count(), Passage.objects.count(), Citation.objects.count(), Person.objects.count())
    with pytest.raises(TeiImportError) as refused:
        import_tei(tei_document(body), name="bad.xml", slug="bad-one")
    assert f"<{element}>" in str(refused.value) and f"line {line}" in str(refused.value), str(refused.value)
    assert (Source.objects.count(), Passage.objects.count(), Citation.objects.count(),
            Person.objects.count()) == before


def test_not_tei_at_all() -> None:
    with pytest.raises(TeiImportError, match="<html>"):
        import_tei(b"<html><body/></html>", name="page.html", slug="page")
    # An external entity is never read: the passage that holds only its reference stays blank.
    evil = tei_document('<p n="1">&x;</p>').replace(
        b"<TEI ", b'<!DOCTYPE TEI [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<TEI ', 1)
    with pytest.raises(TeiImportError, match="entity reference"):
        import_tei(evil, name="evil.xml", slug="evil")


def test_an_entity_inside_a_passage_is_refused_not_dropped() -> None:
    before = (Source.objects.count(), Passage.objects.count())
    declared = tei_document('<p n="1">撤至<placeName>&city;</placeName>。</p>').replace(
        b"<TEI ", b'<!DOCTYPE TEI [<!ENTITY city "\xe5\x8d\x97\xe4\xba\xac">]>\n<TEI ', 1)
    with pytest.raises(TeiImportError) as refused:
        import_tei(declared, name="entity.xml", slug="entity")
    assert "<placeName>" in str(refused.value) and "line 7" in str(refused.value) and "entity" in str(refused.value)
    assert (Source.objects.count(), Passage.objects.count()) == before


def test_an_existing_slug_is_refused(client: Client) -> None:
    source = Source.objects.filter(status=Status.APPROVED).first()
    assert source is not None
    with pytest.raises(TeiImportError, match=source.slug):
        import_tei(export(client, source.slug), name="again.xml", slug=source.slug)


def test_the_command(client: Client, tmp_path: Any) -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    path = tmp_path / "edition.xml"
    path.write_bytes(tei_document('<p n="1"><persName>唐生智</persName>下令撤退。</p>'))
    out = StringIO()
    call_command("import_tei", str(path), "--slug", "edition", stdout=out)
    assert "1 passages, 1 draft citations" in out.getvalue()
    path.write_bytes(tei_document('<p n="1"><hi>唐生智</hi></p>'))
    with pytest.raises(CommandError, match="<hi> at line 6"):
        call_command("import_tei", str(path), "--slug", "edition-2")


def test_characters_xml_cannot_hold_survive_export_and_import(client: Client) -> None:
    from tests.factories import cite, source_with_text
    from tests.standards.test_tei_export import valid

    text = "\ufeff唐生智\x0c下令\x01撤退。\r\n\x0c\r\n\x0b第二行\x1f"
    source = source_with_text(text, slug="control-characters")
    Source.objects.filter(pk=source.pk).update(title="标题\x07")
    tang = Person.objects.get(slug="tang-shengzhi")
    first = source.passages.get(seq=1)
    cite(first, "唐生智\x0c下令", person=tang)
    assert Citation.objects.filter(passage=first).exists()
    document = export(client, "control-characters")
    valid(document)
    copy = import_tei(document, name="control.xml", slug="control-characters-tei").source
    assert copy.text == text
    assert list(copy.passages.values_list("seq", "start", "end", "text").order_by("seq")) == list(
        source.passages.values_list("seq", "start", "end", "text").order_by("seq"))
    assert Citation.objects.get(passage__source=copy).quote == "唐生智\x0c下令"
