"""A source as a TEI P5 document (`GET /api/v1/sources/{slug}/?format=tei`).

The header carries the source's bibliographic data; the standOff lists the
persons, units (`org`), places and events its approved citations are
evidence for, each with its API URL as an `idno`, then the claims (`interp`)
and any citation whose quote crosses another (`span`). The body, written by
`archive.text.tei`, holds the whole text, passages as `<p n=…>`, each
citation inline with `@ref` its record's URL and `@cert` from its rank.
The text is recovered from the body exactly (`archive.text.tei.read_body`).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from lxml import etree

from archive import selectors
from archive.api.serializers import citation_target, record_url
from archive.models import Citation, Passage, Source
from archive.text import tei
from archive.text.segment import Segment, separators_of

MEDIA_TYPE = "application/tei+xml"

_LISTS = (
    ("person", "listPerson", "person", "persName"),
    ("unit", "listOrg", "org", "orgName"),
    ("location", "listPlace", "place", "placeName"),
    ("event", "listEvent", "event", "label"),
)


def _sub(parent: Any, name: str, text: str | None = None, **attributes: str) -> Any:
    element = etree.SubElement(parent, tei.tei(name))
    for key, value in attributes.items():
        element.set(key, tei.xml_safe(value))
    if text:
        element.text = tei.xml_safe(text)
    return element


def _header(root: Any, source: Source, request: Any) -> None:
    header = _sub(root, "teiHeader")
    file_desc = _sub(header, "fileDesc")
    title_stmt = _sub(file_desc, "titleStmt")
    _sub(title_stmt, "title", source.title)
    if source.author:
        _sub(title_stmt, "author", source.author)
    publication = _sub(file_desc, "publicationStmt")
    _sub(publication, "publisher", _("Archive of the retreat from Nanjing, December 1937"))
    _sub(publication, "idno", record_url(source, request), type="URI")
    bibl = _sub(_sub(file_desc, "sourceDesc"), "bibl")
    _sub(bibl, "title", source.title)
    for name, value in (("author", source.author), ("date", source.date), ("publisher", source.publisher),
                        ("pubPlace", source.publisher_place)):
        if value:
            _sub(bibl, name, value)
    if source.container_title:
        _sub(bibl, "title", source.container_title, level="m")
    if source.url:
        _sub(bibl, "ref", source.url, target=source.url)
    _sub(bibl, "note", source.kind, type="kind")
    if source.description:
        _sub(bibl, "note", source.description, type="description")
    languages = _sub(_sub(header, "profileDesc"), "langUsage")
    _sub(languages, "language", source.get_language_display(), ident=source.language)


def _record_id(field: str, slug: str) -> str:
    return f"{field}.{slug}"


def _stand_off(root: Any, cited: list[Citation], crossing: list[tei.Span], request: Any) -> None:
    records: dict[str, dict[str, Any]] = {field: {} for field, *_rest in _LISTS}
    for citation in cited:
        target = citation.target
        if target is None:
            continue
        owner = {"post": ("person", getattr(target, "person", None)),
                 "participation": ("event", getattr(target, "event", None))}.get(citation.target_field or "")
        field, record = owner if owner else (citation.target_field or "", target)
        if record is not None and field in records:
            records[field].setdefault(record.slug, record)
    if not cited:
        return
    stand_off = _sub(root, "standOff")
    for field, list_name, item_name, name_element in _LISTS:
        if not records[field]:
            continue
        listing = _sub(stand_off, list_name)
        for slug, record in sorted(records[field].items()):
            item = _sub(listing, item_name)
            item.set(tei.xml_id("id"), _record_id(field, slug))
            if item_name == "event":
                _sub(item, "idno", record_url(record, request), type="URI")
                _sub(item, name_element, record.title)
            else:
                _sub(item, name_element, record.name)
                _sub(item, "idno", record_url(record, request), type="URI")
    claims = _sub(stand_off, "interpGrp", type="claims")
    for citation in cited:
        interp = _sub(claims, "interp", citation.claim or "—")
        interp.set(tei.xml_id("id"), f"claim.{citation.pk}")
    if crossing:
        spans = _sub(stand_off, "spanGrp", type="citations")
        for span in crossing:
            spans.append(tei.span_element(span))


def document(source: Source, request: Any) -> bytes:
    """The TEI document of an approved source with its visible citations."""
    passages = list(Passage.objects.filter(source=source).order_by("seq").values_list("pk", "seq", "start", "end",
                                                                                      "text"))
    cited = list(selectors.citations_with_targets().filter(passage__source=source).order_by("passage__seq", "start",
                                                                                            "id"))
    spans: dict[int, list[tei.Span]] = {}
    for citation in cited:
        target = citation_target(citation, request)
        spans.setdefault(citation.passage_id, []).append(tei.Span(
            citation.start, citation.end, target["type"], target["url"], tei.CERT_OF_RANK[citation.rank],
            f"claim.{citation.pk}", f"citation.{citation.pk}",
        ))
    root = etree.Element(tei.tei("TEI"), nsmap=tei.NSMAP)
    root.set(tei.xml_id("lang"), source.language)
    _header(root, source, request)
    body = etree.SubElement(etree.SubElement(root, tei.tei("text")), tei.tei("body"))
    div = _sub(body, "div", type="source")
    div.set(tei.xml_id("space"), "preserve")
    segments = [Segment(seq, start, end, text) for _pk, seq, start, end, text in passages]
    separators = separators_of(source.text, segments)
    crossing: list[tei.Span] = []
    for (pk, seq, _start, _end, text), separator in zip(passages, separators, strict=False):
        tei.add_separator(div, separator)
        paragraph, anchored = tei.passage_element(seq, text, spans.get(pk, []))
        div.append(paragraph)
        crossing += anchored
    tei.add_separator(div, separators[-1])
    if not passages and not source.text:
        _sub(div, "ab", type="separator")
    # The standOff follows the text, whose writing found the crossing quotes it lists.
    _stand_off(root, cited, crossing, request)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
