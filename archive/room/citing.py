"""How to cite a room page: Chicago author-date text, CSL-JSON, BibTeX and RIS, and the tags reference managers read.

A record page is cited as a page of the archive, at the version read (its
permanent link, `?version=`), with the date it was read. The lists of the
reading room read as of a release or a moment cite the archive as it stood
then: a release by its number (its downloads are the citable snapshot), a
moment by the moment. A source page cites
the source itself, by its own bibliographic fields (those the API gives as CSL-JSON),
with the edition's address. Zotero and other reference managers read the
`citation_*` (Highwire) and Dublin Core tags and the JSON-LD of the page's
head, which `head_tags` and `json_ld` give.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import mementos
from archive.models import Event, Location, Person, Source, Unit

# What a record is in schema.org, as the API's JSON-LD says it (`archive.api.linked_data`).
SCHEMA_TYPES: dict[type, str] = {Person: "Person", Unit: "Organization", Location: "Place", Event: "Event"}
API_ROUTES: dict[type, str] = {
    Person: "api:person-detail", Unit: "api:unit-detail", Location: "api:location-detail",
    Event: "api:event-detail", Source: "api:source-detail",
}
PAGE_ROUTES: dict[type, str] = {
    Person: "room:person", Unit: "room:unit", Location: "room:place", Event: "room:event", Source: "room:source",
}
KINDS: dict[str, type] = {"people": Person, "units": Unit, "places": Location, "events": Event, "sources": Source}
FORMATS = {
    "csl": ("application/vnd.citationstyles.csl+json", "json"),
    "bibtex": ("application/x-bibtex", "bib"),
    "ris": ("application/x-research-info-systems", "ris"),
}


def site_name() -> str:
    return _("Reading room of the retreat from Nanjing")


@dataclass
class Reference:
    """One thing to cite, with everything the formats need."""

    key: str
    title: str
    url: str  # absolute, permanent
    read: dt.date
    authors: list[str] = field(default_factory=list)
    issued: dt.date | None = None
    year: str = ""
    version: int | None = None
    container: str = ""
    publisher: str = ""
    place: str = ""
    language: str = ""
    description: str = ""
    csl_type: str = "webpage"
    links: dict[str, str] = field(default_factory=dict)  # API, JSON-LD, TEI, the downloads
    schema_type: str = "WebPage"
    release: int | None = None  # the archive as a release holds it
    as_of: dt.datetime | None = None  # the archive as published at a moment

    @property
    def date_text(self) -> str:
        return self.issued.isoformat() if self.issued else self.year


def _absolute(request: HttpRequest, path: str) -> str:
    return str(request.build_absolute_uri(path))


def _kind_of(model: type) -> str:
    return next(kind for kind, known in KINDS.items() if known is model)


def _links(request: HttpRequest, model: type, slug: str, version: int | None) -> dict[str, str]:
    """The record's data and reference files; at `version` when the reader reads a past version, else current."""
    api = reverse(API_ROUTES[model], kwargs={"slug": slug})
    at = f"version={version}" if version is not None else ""
    links = {"api": _absolute(request, api + (f"?{at}" if at else ""))}
    if model is Source:
        links["tei"] = _absolute(request, api + "?format=tei")
        links["csl_api"] = _absolute(request, api + "?format=csl")
    else:
        links["jsonld"] = _absolute(request, api + "?format=jsonld" + (f"&{at}" if at else ""))
    cite = reverse("room:cite", kwargs={"kind": _kind_of(model), "slug": slug})
    for name in FORMATS:
        links[name] = cite + f"?format={name}" + (f"&{at}" if at else "")
    return links


def of_record(request: HttpRequest, model: type, *, slug: str, name: str, version: int,
              published: dt.datetime | None, description: str = "", past: bool = False) -> Reference:
    """A record page at `version`: the archive as author, the version's permanent link, read today.

    The data links follow the page: the current record, or the version read when `past`.
    """
    path = reverse(PAGE_ROUTES[model], kwargs={"slug": slug}) + f"?version={version}"
    issued = timezone.localtime(published).date() if published else None
    return Reference(
        key=f"{slug}-v{version}", title=name, url=_absolute(request, path), read=timezone.localdate(),
        authors=[site_name()], issued=issued, year=str(issued.year) if issued else "", version=version,
        container=site_name(), description=description, links=_links(request, model, slug, version if past else None),
        schema_type=SCHEMA_TYPES.get(model, "WebPage"),
    )


def of_archive(request: HttpRequest, *, release: int | None, at: dt.datetime) -> Reference:
    """The reading room's lists as a release holds them (``release``) or as published at the moment ``at``.

    Cited by the permanent address of that reading (``/?release=N`` or
    ``/?as_of=<moment>``), issued on the release's date or at the moment; the
    data links are the API's lists read the same way, and a release's page
    with its downloads and checksums.
    """
    query = f"release={release}" if release is not None else f"as_of={mementos.moment_text(at)}"
    issued = timezone.localtime(at).date()
    title = _("Records of the retreat from Nanjing")
    cite = reverse("room:cite_archive")
    links = {"api": _absolute(request, reverse("api:person-list") + f"?{query}")}
    links.update({name: cite + f"?format={name}&{query}" for name in FORMATS})
    if release is not None:
        links["release"] = _absolute(request, reverse("room:releases") + f"#release-{release}")
    return Reference(
        key=f"archive-r{release}" if release is not None else f"archive-{at:%Y%m%dT%H%M%S}",
        title=title, url=_absolute(request, reverse("room:home") + f"?{query}"), read=timezone.localdate(),
        authors=[site_name()], issued=issued, year=str(issued.year), csl_type="dataset", schema_type="Dataset",
        links=links, release=release, as_of=None if release is not None else at,
    )


def of_source(request: HttpRequest, source: Source) -> Reference:
    """A source, by its own bibliographic fields (those the API's CSL-JSON gives), read in the room's edition."""
    authors = [name for name in re.split(r"\s*[;；、]\s*", source.author.strip()) if name]
    year = match.group(0) if (match := re.match(r"\d{4}", source.date or "")) else ""
    edition = _absolute(request, reverse("room:source", kwargs={"slug": source.slug}))
    return Reference(
        key=source.slug, title=source.title, url=edition, read=timezone.localdate(), authors=authors,
        year=year, container=source.container_title, publisher=source.publisher, place=source.publisher_place,
        language=source.language, description=source.description,
        csl_type="chapter" if source.container_title else "book", links=_links(request, Source, source.slug, None),
        schema_type="CreativeWork",
    )


def _sentence(text: str) -> str:
    return text if text.endswith((".", "。", "?", "!")) else f"{text}."


def chicago(ref: Reference) -> str:
    """Chicago author-date, reference-list form; a work with no author is entered by its title."""
    year = _sentence(ref.year or _("n.d."))
    title = f"“{_sentence(ref.title)}”" if ref.version is not None or ref.container else _sentence(ref.title)
    pieces = [_sentence(", ".join(ref.authors)), year, title] if ref.authors else [_sentence(ref.title), year]
    if ref.container:
        pieces.append(_sentence(ref.container))
    if ref.version is not None:
        pieces.append(_("Version %(number)d.") % {"number": ref.version})
    if ref.release is not None:
        pieces.append(_("Release %(number)d.") % {"number": ref.release})
    elif ref.as_of is not None:
        pieces.append(_("As published at %(moment)s.") % {"moment": ref.as_of.isoformat(timespec="seconds")})
    if ref.publisher:
        pieces.append(_sentence(f"{ref.place}: {ref.publisher}" if ref.place else ref.publisher))
    pieces.append(_("Accessed %(date)s.") % {"date": ref.read.isoformat()})
    pieces.append(f"{ref.url}.")
    return " ".join(pieces)


def _edition(ref: Reference) -> str:
    """The version a reference manager records: a record's version, a release's number, or the moment read."""
    if ref.version is not None:
        return str(ref.version)
    if ref.release is not None:
        return _("release %(number)d") % {"number": ref.release}
    return ref.as_of.isoformat(timespec="seconds") if ref.as_of is not None else ""


def _date_parts(day: dt.date) -> dict[str, Any]:
    return {"date-parts": [[day.year, day.month, day.day]]}


def csl(ref: Reference) -> list[dict[str, Any]]:
    item: dict[str, Any] = {"id": ref.key, "type": ref.csl_type, "title": ref.title, "URL": ref.url,
                            "accessed": _date_parts(ref.read)}
    if ref.authors:
        item["author"] = [{"literal": name} for name in ref.authors]
    if ref.issued:
        item["issued"] = _date_parts(ref.issued)
    elif ref.year.isdigit():
        item["issued"] = {"date-parts": [[int(ref.year)]]}
    optional = {"container-title": ref.container, "publisher": ref.publisher, "publisher-place": ref.place,
                "language": ref.language, "version": _edition(ref)}
    item.update({key: value for key, value in optional.items() if value})
    return [item]


_BIBTEX_SPECIAL = re.compile(r"([\\{}%&$#_^~])")


def _bibtex_text(text: str) -> str:
    """Text inside braces: TeX's special characters escaped, line breaks folded."""
    return _BIBTEX_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def bibtex(ref: Reference) -> str:
    kind = "book" if ref.csl_type == "book" else "misc"
    fields = [("title", ref.title), ("author", " and ".join(f"{{{a}}}" for a in ref.authors)),
              ("year", ref.year), ("publisher", ref.publisher), ("address", ref.place),
              ("howpublished", ref.container), ("version", _edition(ref)),
              ("url", ref.url), ("urldate", ref.read.isoformat()), ("language", ref.language)]
    key = re.sub(r"[^A-Za-z0-9_-]", "", ref.key) or "record"
    lines = [f"@{kind}{{{key},"]
    for name, value in fields:
        if value:
            text = value if name == "author" else _bibtex_text(value)
            lines.append(f"  {name} = {{{text}}},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def ris(ref: Reference) -> str:
    kind = {"book": "BOOK", "chapter": "CHAP", "article": "GEN", "article-newspaper": "NEWS"}.get(ref.csl_type, "ELEC")
    rows = [("TY", kind), ("TI", ref.title), *(("AU", name) for name in ref.authors), ("PY", ref.year),
            ("DA", ref.issued.strftime("%Y/%m/%d") if ref.issued else ""), ("T2", ref.container),
            ("PB", ref.publisher), ("CY", ref.place), ("ET", _edition(ref)),
            ("LA", ref.language), ("UR", ref.url), ("Y2", ref.read.strftime("%Y/%m/%d"))]
    lines = [f"{tag}  - {' '.join(str(value).split())}" for tag, value in rows if value]
    return "\r\n".join([*lines, "ER  - ", ""])


def render(ref: Reference, fmt: str) -> str:
    if fmt == "csl":
        return json.dumps(csl(ref), ensure_ascii=False, indent=2)
    return bibtex(ref) if fmt == "bibtex" else ris(ref)


def head_tags(ref: Reference) -> list[tuple[str, str]]:
    """The `<meta name=… content=…>` pairs of Highwire Press (`citation_*`) and Dublin Core (`DC.*`)."""
    tags = [("citation_title", ref.title), *(("citation_author", name) for name in ref.authors)]
    tags += [("citation_date", ref.date_text), ("citation_publisher", ref.publisher or ref.container),
             ("citation_language", ref.language), ("citation_public_url", ref.url),
             ("DC.title", ref.title), *(("DC.creator", name) for name in ref.authors),
             ("DC.date", ref.date_text), ("DC.publisher", ref.publisher or ref.container),
             ("DC.identifier", ref.url), ("DC.language", ref.language),
             ("DC.type", "Text" if ref.schema_type == "CreativeWork" else "InteractiveResource")]
    return [(name, value) for name, value in tags if value]


def json_ld(ref: Reference) -> dict[str, Any]:
    """What the page is about in schema.org; the full record is the API's JSON-LD, linked as `sameAs`."""
    document: dict[str, Any] = {"@context": "https://schema.org", "@type": ref.schema_type, "name": ref.title,
                                "url": ref.url}
    optional: dict[str, Any] = {
        "description": ref.description,
        "author": [{"@type": "Person" if ref.version is None and ref.csl_type != "dataset" else "Organization",
                    "name": a} for a in ref.authors],
        "datePublished": ref.date_text, "inLanguage": ref.language, "version": _edition(ref),
        "sameAs": ref.links.get("jsonld") or ref.links.get("api"),
        "publisher": {"@type": "Organization", "name": ref.publisher} if ref.publisher else None,
    }
    if ref.version is None:
        document.update({key: value for key, value in optional.items() if value})
    else:
        document.update({key: value for key, value in optional.items() if value and key not in {"author", "version"}})
        document["subjectOf"] = {"@type": "WebPage", "url": ref.url, "version": ref.version,
                                 "isPartOf": {"@type": "WebSite", "name": ref.container}}
    return document


def for_page(ref: Reference) -> dict[str, Any]:
    """What a page's head and its "Cite this" show."""
    return {"chicago": chicago(ref), "links": ref.links, "meta": head_tags(ref), "json_ld": json_ld(ref),
            "version": ref.version, "release": ref.release, "as_of": ref.as_of}
