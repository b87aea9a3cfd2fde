"""Import a TEI P5 edition as a new source whose tagged names become draft citations, all or nothing.

The TEI is read as `archive.api.tei` writes it (`archive.text.tei.read_body`):
passages as `<p n=…>`, names inline (`persName`, `orgName`, `placeName`,
`rs`) or as standOff `span`s between anchors. The text the body spells must
cut into exactly those passages by the archive's own rule (one non-blank
line each), so that offsets mean the same thing here as everywhere.

A name becomes a draft citation of the record its `@ref` (an API URL of this
archive) names; without one, or when the URL names nothing, the name's own
words are reconciled against the approved records (`archive.search.candidates`)
and taken when one of them names it whole and no other does. Names matched
by neither are listed in the result, not cited. Any error — malformed XML,
an element or attribute this import does not read, a passage that is not a
line — names the element and its line, and nothing is written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from django.db import models, transaction
from django.utils.translation import gettext as _
from lxml import etree

from archive import search as search_index
from archive.models import Event, Location, Participation, Person, Post, Source, Status, Unit
from archive.search import candidates
from archive.services.authorship import save_as
from archive.services.citations import citation_create
from archive.text import tei
from archive.text.segment import split_passages

from .bulk import insert_passages
from .source_file import SourceImportError, max_bytes
from .source_text import _check_metadata, passage_roles

_COLLECTIONS: dict[str, type[models.Model]] = {
    "persons": Person, "units": Unit, "locations": Location, "events": Event,
}
_TARGET_OF_MODEL: dict[type[models.Model], str] = {Person: "person", Unit: "unit", Location: "location",
                                                   Event: "event"}
# A name that reconciliation must match whole, by type.
_RECONCILED_TYPES = {"person": "person", "unit": "unit", "location": "location", "event": "event"}


class TeiImportError(SourceImportError):
    """TEI that cannot be imported; the message names the element and the line."""


@dataclass
class TeiImportResult:
    source: Source
    passages: int
    citations: int
    unmatched: list[str] = field(default_factory=list)  # "§seq quote (element)" of names not cited


def parse(data: bytes) -> Any:
    """The document's root, read without entities, DTDs or the network."""
    if len(data) > max_bytes():
        raise TeiImportError(_("The file is larger than %(limit)s bytes.") % {"limit": max_bytes()})
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        line = error.position[0] if error.position else None
        raise TeiImportError(str(tei.TeiError(error.msg, element="TEI", line=line))) from None


def _header(root: Any) -> dict[str, str]:
    file_desc = root.find(f"{tei.tei('teiHeader')}/{tei.tei('fileDesc')}")
    if file_desc is None:
        raise tei.TeiError(_("has no teiHeader/fileDesc"), element="TEI", line=root.sourceline)

    def text(path: str) -> str:
        found = file_desc.find("/".join(tei.tei(part) for part in path.split("/")))
        return " ".join("".join(found.itertext()).split()) if found is not None else ""

    bibl = f"{tei.tei('sourceDesc')}/{tei.tei('bibl')}"
    kind = ""
    for note in file_desc.iterfind(f"{bibl}/{tei.tei('note')}"):
        if note.get("type") == "kind":
            kind = (note.text or "").strip()
    language_element = root.find(f".//{tei.tei('langUsage')}/{tei.tei('language')}")
    language = language_element.get("ident") if language_element is not None else root.get(tei.xml_id("lang"))
    return {
        "title": text("titleStmt/title"), "author": text("titleStmt/author") or text("sourceDesc/bibl/author"),
        "date": text("sourceDesc/bibl/date"), "publisher": text("sourceDesc/bibl/publisher"),
        "publisher_place": text("sourceDesc/bibl/pubPlace"), "kind": kind, "language": language or "",
    }


def _by_url(ref: str) -> tuple[str, models.Model] | None:
    """The record an API URL of this archive names (`…/persons/slug/`, `…/persons/slug/#post-x`)."""
    parts = urlsplit(ref)
    pieces = [unquote(piece) for piece in parts.path.strip("/").split("/")]
    if len(pieces) < 2 or pieces[-2] not in _COLLECTIONS:
        return None
    record = _COLLECTIONS[pieces[-2]]._default_manager.filter(slug=pieces[-1]).first()
    if record is None:
        return None
    fragment = parts.fragment
    if fragment.startswith("post-") and isinstance(record, Person):
        post = Post.objects.filter(slug=fragment.removeprefix("post-"), person=record).first()
        return ("post", post) if post is not None else None
    if fragment.startswith("participation-") and isinstance(record, Event):
        part = Participation.objects.filter(slug=fragment.removeprefix("participation-"), event=record).first()
        return ("participation", part) if part is not None else None
    return _TARGET_OF_MODEL[type(record)], record


def _reconciled(quote: str, target: str) -> tuple[str, models.Model] | None:
    """The one approved record whose name is the quote, whole."""
    type_id = _RECONCILED_TYPES.get(target)
    if type_id is None:
        return None
    whole = [found for found in candidates.find(quote, (type_id,), "include") if found.name_score >= 90]
    if len(whole) != 1:
        return None
    model = {"person": Person, "unit": Unit, "location": Location, "event": Event}[type_id]
    return type_id, model._default_manager.get(pk=whole[0].record.pk)


def _check_passages(reading: tei.Reading, root: Any) -> None:
    cut = [(segment.seq, segment.start, segment.end, segment.text) for segment in split_passages(reading.text)]
    if cut == reading.passages:
        return
    lines = {tei.seq_of(p): p.sourceline for p in root.iter(tei.tei("p"))}
    for index, passage in enumerate(reading.passages):
        if index >= len(cut) or cut[index] != passage:
            raise tei.TeiError(_("passage %(seq)s is not one whole line of the text (a passage may not hold a line "
                                 "break, and passages must be separated by one)") % {"seq": passage[0]},
                               element="p", line=lines.get(passage[0]))
    raise tei.TeiError(_("the text holds a line outside every passage"), element="div")


@transaction.atomic
def import_tei(data: bytes, *, name: str, slug: str, by: Any = None, kind: str | None = None,
               language: str | None = None) -> TeiImportResult:
    """Import the TEI `data` (from a file called `name`) as the new draft source `slug`."""
    try:
        root = parse(data)
        reading = tei.read_body(root)
        header = _header(root)
        _check_passages(reading, root)
    except tei.TeiError as error:
        raise TeiImportError(str(error)) from None
    kind = kind or header["kind"]
    language = language or header["language"]
    _check_metadata(slug=slug, title=header["title"], kind=kind, language=language, date=header["date"])
    if Source.objects.filter(slug=slug).exists():
        raise TeiImportError(_("A source %(slug)s exists already; a TEI edition is imported as a new source.")
                             % {"slug": slug})
    source = Source(
        slug=slug, title=header["title"], author=header["author"], kind=kind, language=language,
        date=header["date"], publisher=header["publisher"], publisher_place=header["publisher_place"],
        text=reading.text, sha256=hashlib.sha256(data).hexdigest(), file_name=name, status=Status.DRAFT,
        created_by=by,
    )
    save_as(source, by=by, reason=f"imported from the TEI file {name}")
    segments = split_passages(reading.text)
    passages = {p.seq: p for p in insert_passages(source, segments, passage_roles(segments),
                                                  reason=f"imported from the TEI file {name}")}
    result = TeiImportResult(source, len(passages), 0)
    for mention in sorted(reading.mentions, key=lambda m: (m.seq, m.start, m.end, m.ident)):
        passage = passages[mention.seq]
        quote = passage.text[mention.start : mention.end]
        found = (_by_url(mention.ref) if mention.ref else None) or _reconciled(quote, mention.target)
        if found is None:
            result.unmatched.append(f"§{mention.seq} {quote} ({mention.target})")
            continue
        target_type, target = found
        citation_create(
            passage=passage, quote=quote, start=mention.start, end=mention.end, target_type=target_type,
            target=target, claim=(mention.claim or quote)[:500],
            rank=tei.RANK_OF_CERT.get(mention.cert or "", "normal"), by=by,
        )
        result.citations += 1
    search_index.reindex([source])
    return result
