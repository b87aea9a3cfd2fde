"""TEI P5 export of every shipped source: valid against TEI All, the text recovered byte for byte,
every visible citation marked with its record's URL and certainty."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from lxml import etree

from archive import selectors
from archive.models import Citation, Passage, Source, Status
from archive.text import tei

pytestmark = pytest.mark.usefixtures("collection")

SCHEMA = Path(__file__).parent / "tei_schema" / "tei_all.rng"


@functools.cache
def tei_all() -> etree.RelaxNG:
    # TEI All is a megabyte of RELAX NG: compiled once per run (about 15 s).
    return etree.RelaxNG(etree.parse(str(SCHEMA)))


def export(client: Client, slug: str) -> bytes:
    response = client.get(f"/api/v1/sources/{slug}/", {"format": "tei"})
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("application/tei+xml")
    return bytes(response.content)


def valid(document: bytes) -> Any:
    root = etree.fromstring(document)
    schema = tei_all()
    assert schema.validate(root.getroottree()), schema.error_log.filter_from_errors()[:5]
    return root


def test_every_source_is_valid_tei_and_gives_its_text_back(client: Client) -> None:
    sources = list(Source.objects.filter(status=Status.APPROVED))
    assert len(sources) >= 3
    for source in sources:
        root = valid(export(client, source.slug))
        reading = tei.read_body(root)
        assert reading.text == source.text, source.slug
        assert reading.passages == list(
            Passage.objects.filter(source=source).order_by("seq").values_list("seq", "start", "end", "text")
        )
        header = root.find(f"{tei.tei('teiHeader')}/{tei.tei('fileDesc')}")
        assert header.findtext(f"{tei.tei('titleStmt')}/{tei.tei('title')}") == source.title


def test_citations_are_marked_with_their_records(client: Client) -> None:
    source = Source.objects.filter(status=Status.APPROVED).exclude(text="").order_by("-length").first()
    assert source is not None
    root = valid(export(client, source.slug))
    mentions = {mention.ident: mention for mention in tei.read_body(root).mentions}
    cited = selectors.citations_with_targets().filter(passage__source=source)
    assert cited.exists()
    assert set(mentions) == {f"citation.{citation.pk}" for citation in cited}
    for citation in cited:
        mention = mentions[f"citation.{citation.pk}"]
        assert (mention.seq, mention.start, mention.end) == (citation.passage.seq, citation.start, citation.end)
        assert mention.cert == tei.CERT_OF_RANK[citation.rank]
        assert mention.claim == citation.claim
        assert mention.target == citation.target_field
        assert mention.ref.startswith("http://testserver/api/v1/")
    # Drafts are never exported.
    hidden = Citation.objects.filter(passage__source=source).exclude(status=Status.APPROVED)
    assert not {f"citation.{c.pk}" for c in hidden} & set(mentions)
    # The standOff lists the records, under their URLs.
    idnos = {idno.text for idno in root.iter(tei.tei("idno"))}
    tang_cited = cited.filter(person__slug="tang-shengzhi").exists()
    assert not tang_cited or "http://testserver/api/v1/persons/tang-shengzhi/" in idnos


def test_unknown_and_unapproved_sources_are_404(client: Client) -> None:
    assert client.get("/api/v1/sources/nothing/", {"format": "tei"}).status_code == 404
    response = client.get("/api/v1/sources/", {"format": "tei"})
    assert response.status_code == 404  # one source at a time


@pytest.mark.parametrize("text", ["\ufeff第一行\r\n\r\n第二行\r\n", "\u3000\n第一行\n\u3000\u3000\n第二行", "一行",
                                  "第一\x0c行\x01\n\x0c\n\x0b第二行"])
def test_separators_of_every_kind_come_back(text: str) -> None:
    from archive.text.segment import separators_of, split_passages

    segments = split_passages(text)
    root = etree.Element(tei.tei("TEI"), nsmap=tei.NSMAP)
    body = etree.SubElement(etree.SubElement(root, tei.tei("text")), tei.tei("body"))
    div = etree.SubElement(body, tei.tei("div"))
    separators = separators_of(text, segments)
    for segment, separator in zip(segments, separators, strict=False):
        tei.add_separator(div, separator)
        div.append(tei.passage_element(segment.seq, segment.text, [])[0])
    tei.add_separator(div, separators[-1])
    parsed = etree.fromstring(etree.tostring(root, encoding="UTF-8"))
    assert tei.read_body(parsed).text == text
