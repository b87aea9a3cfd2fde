"""The standard formats the API speaks besides its own JSON.

Each builder turns one record, as the selectors prefetched it, into a
document of a format that other software already reads: CSL-JSON for
reference managers and citeproc, GeoJSON for maps, Linked Places Format for
gazetteers (World Historical Gazetteer), W3C Web Annotation for annotation
tools, and flat CSV rows for spreadsheets. Builders never query; the views
pick the builder from `?format=` and the renderers only serialise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from archive.api.serializers import citation_target, citation_url, passage_url, record_url
from archive.models import Citation, Event, Location, Person, Source, SourceKind, Unit
from archive.text import anchor

LPF_CONTEXT = "https://raw.githubusercontent.com/LinkedPasts/linked-places/master/linkedplaces-context-v1.1.jsonld"
ANNOTATION_CONTEXT = "http://www.w3.org/ns/anno.jsonld"

# --- CSL-JSON ------------------------------------------------------------------------------

_CSL_TYPES: dict[str, str] = {
    SourceKind.DIARY: "manuscript",
    SourceKind.ORDER: "manuscript",
    SourceKind.REPORT: "manuscript",
    SourceKind.NEWSPAPER: "article",
    SourceKind.WEB_NOVEL: "article",
}
_EDTF_DAY = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")


def _date_parts(edtf: str) -> dict[str, Any] | None:
    """CSL `issued` from an EDTF date: its year, month and day, an interval's two ends."""
    parts = []
    for end in edtf.split("/")[:2]:
        match = _EDTF_DAY.match(end.strip())
        if not match:
            return None
        parts.append([int(piece) for piece in match.groups() if piece and int(piece)])
    if not parts:
        return None
    issued: dict[str, Any] = {"date-parts": parts}
    if any(mark in edtf for mark in "~?%"):
        issued["circa"] = True
    return issued


def _csl_names(author: str) -> list[dict[str, str]]:
    """Chinese and Japanese names stay whole (`literal`); `Family, Given` is split."""
    names = []
    for name in re.split(r"\s*[;；、]\s*", author.strip()):
        if not name:
            continue
        family, comma, given = name.partition(", ")
        names.append({"family": family, "given": given} if comma and given else {"literal": name})
    return names


def csl_type(source: Source) -> str:
    if source.container_title:
        return _CSL_TYPES.get(source.kind, "chapter")
    return _CSL_TYPES.get(source.kind, "book")


def csl_item(source: Source, request: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": source.slug, "type": csl_type(source), "title": source.title}
    if source.author:
        item["author"] = _csl_names(source.author)
    issued = _date_parts(source.date) if source.date else None
    if issued:
        item["issued"] = issued
    optional = {
        "language": source.language,
        "publisher": source.publisher,
        "publisher-place": source.publisher_place,
        "container-title": source.container_title,
        "URL": source.url or record_url(source, request),
        "abstract": source.description,
    }
    item.update({key: value for key, value in optional.items() if value})
    note = f"{source.get_kind_display()}"
    if source.is_fiction:
        note += "; fiction"
    item["note"] = note
    return item


# --- GeoJSON and Linked Places --------------------------------------------------------------


def _point(location: Location) -> dict[str, Any] | None:
    if location.latitude is None or location.longitude is None:
        return None
    return {"type": "Point", "coordinates": [float(location.longitude), float(location.latitude)]}


def geojson_feature(location: Location, request: Any) -> dict[str, Any]:
    parent = location.parent
    return {
        "type": "Feature",
        "id": location.slug,
        "geometry": _point(location),
        "properties": {
            "slug": location.slug,
            "name": location.name,
            "kind": location.kind,
            "url": record_url(location, request),
            "fictional": location.fictional,
            "parent": parent.slug if parent else None,
            "aliases": [alias.name for alias in location.aliases.all()],
            "coordinate_precision": location.coordinate_precision,
        },
    }


def geojson_collection(features: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "FeatureCollection", "features": features}


def _lpf_names(location: Location, request: Any) -> list[dict[str, Any]]:
    """Each name with the citations whose quote contains it; the rest go to the main name."""
    toponyms = [(location.name, "zh")] + [(alias.name, alias.language) for alias in location.aliases.all()]
    cited: dict[str, list[dict[str, str]]] = {name: [] for name, _lang in toponyms}
    for citation in location.visible_citations:  # type: ignore[attr-defined]  # selectors prefetch it
        mentioned = [name for name, _lang in toponyms if name in citation.quote] or [location.name]
        for name in mentioned:
            cited[name].append(
                {"label": f"{citation.passage.source.title} §{citation.passage.seq}: {citation.claim}",
                 "@id": citation_url(citation.pk, request)}
            )
    return [{"toponym": name, "lang": lang, "citations": cited[name]} for name, lang in toponyms]


def lpf_feature(location: Location, request: Any) -> dict[str, Any]:
    url = record_url(location, request)
    feature: dict[str, Any] = {
        "@id": url,
        "type": "Feature",
        "properties": {"title": location.name, "ccodes": ["CN"] if location.kind != "country" else []},
        "names": _lpf_names(location, request),
        "types": [{"label": location.get_kind_display(), "sourceLabels": [{"label": location.kind, "lang": "en"}]}],
        "geometry": _point(location),
        "relations": [],
    }
    if location.parent is not None:
        feature["relations"].append(
            {
                "relationType": "gvp:broaderPartitive",
                "relationTo": record_url(location.parent, request),
                "label": f"part of {location.parent.name}",
            }
        )
    if location.description:
        feature["descriptions"] = [{"value": location.description, "lang": "en"}]
    return feature


def lpf_collection(features: list[dict[str, Any]]) -> dict[str, Any]:
    return {"@context": LPF_CONTEXT, "type": "FeatureCollection", "features": features}


# --- W3C Web Annotation ------------------------------------------------------------------


def annotation(citation: Citation, request: Any, *, context: bool = True) -> dict[str, Any]:
    """A citation as a Web Annotation: the claim describes, the record is identified,
    and the quote is selected in the passage both by its words and by its offsets."""
    passage = citation.passage
    target = citation_target(citation, request)
    document: dict[str, Any] = {"@context": ANNOTATION_CONTEXT} if context else {}
    document.update(
        {
            "id": citation_url(citation.pk, request),
            "type": "Annotation",
            "motivation": "describing",
            "created": citation.created_at.isoformat(),
            "modified": citation.updated_at.isoformat(),
            "body": [
                {"type": "TextualBody", "value": citation.claim, "format": "text/plain", "purpose": "describing"},
                {"type": "SpecificResource", "source": target["url"], "purpose": "identifying"},
            ],
            "target": {
                "source": passage_url(passage.pk, request),
                "selector": [
                    anchor.text_quote_selector(passage.text, citation.start, citation.end),
                    anchor.text_position_selector(citation.start, citation.end),
                ],
            },
        }
    )
    return document


def annotation_page(items: list[dict[str, Any]], *, page_url: str, total: int, next_url: str | None,
                    previous_url: str | None) -> dict[str, Any]:
    page: dict[str, Any] = {
        "@context": ANNOTATION_CONTEXT,
        "id": page_url,
        "type": "AnnotationPage",
        "partOf": {"type": "AnnotationCollection", "total": total},
        "items": items,
    }
    if next_url:
        page["next"] = next_url
    if previous_url:
        page["prev"] = previous_url
    return page


# --- CSV rows ------------------------------------------------------------------------------


def _joined(values: Any) -> str:
    return "; ".join(str(value) for value in values)


def _slug(record: Any) -> str:
    return record.slug if record is not None else ""


PERSON_COLUMNS = ("slug", "url", "name", "fictional", "side", "birth", "death", "names", "posts", "citations",
                  "description")
UNIT_COLUMNS = ("slug", "url", "name", "fictional", "echelon", "side", "parent", "aliases", "citations", "description")
LOCATION_COLUMNS = ("slug", "url", "name", "fictional", "kind", "parent", "latitude", "longitude",
                    "coordinate_precision", "aliases", "citations", "description")
EVENT_COLUMNS = ("slug", "url", "title", "fictional", "kind", "date_text", "date", "earliest", "latest", "locations",
                 "parent", "participants", "citations", "description")


def person_row(person: Person, request: Any) -> dict[str, Any]:
    return {
        "slug": person.slug, "url": record_url(person, request), "name": person.name,
        "fictional": person.fictional, "side": person.side, "birth": person.birth, "death": person.death,
        "names": _joined(name.name for name in person.names.all()),
        "posts": _joined(f"{post.unit.name} {post.title}" for post in person.visible_posts),  # type: ignore[attr-defined]  # selectors prefetch it
        "citations": len(person.visible_citations), "description": person.description,  # type: ignore[attr-defined]  # selectors prefetch it
    }


def unit_row(unit: Unit, request: Any) -> dict[str, Any]:
    return {
        "slug": unit.slug, "url": record_url(unit, request), "name": unit.name, "fictional": unit.fictional,
        "echelon": unit.echelon, "side": unit.side, "parent": _slug(unit.parent),
        "aliases": _joined(alias.name for alias in unit.aliases.all()),
        "citations": len(unit.visible_citations), "description": unit.description,  # type: ignore[attr-defined]  # selectors prefetch it
    }


def location_row(location: Location, request: Any) -> dict[str, Any]:
    return {
        "slug": location.slug, "url": record_url(location, request), "name": location.name,
        "fictional": location.fictional, "kind": location.kind, "parent": _slug(location.parent),
        "latitude": location.latitude if location.latitude is not None else "",
        "longitude": location.longitude if location.longitude is not None else "",
        "coordinate_precision": location.coordinate_precision,
        "aliases": _joined(alias.name for alias in location.aliases.all()),
        "citations": len(location.visible_citations), "description": location.description,  # type: ignore[attr-defined]  # selectors prefetch it
    }


def event_row(event: Event, request: Any) -> dict[str, Any]:
    return {
        "slug": event.slug, "url": record_url(event, request), "title": event.title, "fictional": event.fictional,
        "kind": event.kind, "date_text": event.date_text, "date": event.date,
        "earliest": event.earliest.isoformat() if event.earliest else "",
        "latest": event.latest.isoformat() if event.latest else "",
        "locations": _joined(place.slug for place in event.locations.all()), "parent": _slug(event.parent),
        "participants": _joined(
            (part.person or part.unit).slug for part in event.visible_participations  # type: ignore[attr-defined]  # selectors prefetch it
        ),
        "citations": len(event.visible_citations), "description": event.description,  # type: ignore[attr-defined]  # selectors prefetch it
    }


Builder = Callable[[Any, Any], dict[str, Any]]
