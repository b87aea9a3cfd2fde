"""JSON-LD of persons, units, places, events and citations (`?format=jsonld`), in schema.org and Web Annotation.

Why schema.org: it names every kind of record the archive holds (Person,
Organization for a unit, Place with GeoCoordinates, Event with sub- and
super-events), it is what general-purpose linked-data consumers and search
engines read, and its terms stay flat like the API's own JSON. CIDOC-CRM and
Linked Art model the same history more finely, but through chains of
intermediate nodes (E7 Activity, E52 Time-Span …) that every consumer must
walk; the API's own JSON already carries that detail (statements, accounts).
A citation is a W3C Web Annotation (the `oa:` vocabulary), as the
`annotation` format gives it. Terms the two vocabularies lack (a record's
fiction flag, a unit's echelon, a side, an EDTF date) are in the archive's
own namespace, `{context}#`.

Every document names one context, served by the app at
`/api/v1/context.jsonld` (`CONTEXT`), so that a consumer never needs another
host. Values come from the API's serializers, which choose among statements
and honour the fiction mode, so JSON-LD shows exactly what the JSON shows.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from archive.api import formats, serializers
from archive.models import Citation, Event, Location, Person, Unit

_ID = {"@type": "@id"}
_DATETIME = {"@type": "xsd:dateTime"}

# The context: schema.org terms, Web Annotation terms (as the W3C anno.jsonld context names them), and ours.
CONTEXT: dict[str, Any] = {
    "schema": "https://schema.org/",
    "oa": "http://www.w3.org/ns/oa#",
    "dcterms": "http://purl.org/dc/terms/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "id": "@id",
    "type": "@type",
    # schema.org
    "Person": "schema:Person",
    "Organization": "schema:Organization",
    "Place": "schema:Place",
    "GeoCoordinates": "schema:GeoCoordinates",
    "Event": "schema:Event",
    "name": "schema:name",
    "alternateName": "schema:alternateName",
    "description": "schema:description",
    "url": {"@id": "schema:url", "@type": "@id"},
    "birthDate": "schema:birthDate",
    "deathDate": "schema:deathDate",
    "memberOf": {"@id": "schema:memberOf", **_ID},
    "parentOrganization": {"@id": "schema:parentOrganization", **_ID},
    "subOrganization": {"@id": "schema:subOrganization", **_ID},
    "containedInPlace": {"@id": "schema:containedInPlace", **_ID},
    "geo": "schema:geo",
    "latitude": {"@id": "schema:latitude", "@type": "xsd:decimal"},
    "longitude": {"@id": "schema:longitude", "@type": "xsd:decimal"},
    "startDate": {"@id": "schema:startDate", **_DATETIME},
    "endDate": {"@id": "schema:endDate", **_DATETIME},
    "location": {"@id": "schema:location", **_ID},
    "superEvent": {"@id": "schema:superEvent", **_ID},
    "subEvent": {"@id": "schema:subEvent", **_ID},
    "attendee": {"@id": "schema:attendee", **_ID},
    "citation": {"@id": "schema:citation", **_ID},
    # Web Annotation
    "Annotation": "oa:Annotation",
    "TextualBody": "oa:TextualBody",
    "SpecificResource": "oa:SpecificResource",
    "TextQuoteSelector": "oa:TextQuoteSelector",
    "TextPositionSelector": "oa:TextPositionSelector",
    "describing": "oa:describing",
    "identifying": "oa:identifying",
    "body": {"@id": "oa:hasBody", **_ID},
    "target": {"@id": "oa:hasTarget", **_ID},
    "source": {"@id": "oa:hasSource", **_ID},
    "selector": {"@id": "oa:hasSelector", **_ID},
    "motivation": {"@id": "oa:motivatedBy", "@type": "@vocab"},
    "purpose": {"@id": "oa:hasPurpose", "@type": "@vocab"},
    "value": "rdf:value",
    "format": "dc:format",
    "exact": "oa:exact",
    "prefix": "oa:prefix",
    "suffix": "oa:suffix",
    "start": {"@id": "oa:start", "@type": "xsd:nonNegativeInteger"},
    "end": {"@id": "oa:end", "@type": "xsd:nonNegativeInteger"},
    "created": {"@id": "dcterms:created", **_DATETIME},
    "modified": {"@id": "dcterms:modified", **_DATETIME},
}


def context_document(request: Any) -> dict[str, Any]:
    """The context with the archive's own namespace, which lives beside it."""
    own = context_url(request) + "#"
    terms = {
        "archive": own,
        "fictional": {"@id": "archive:fictional", "@type": "xsd:boolean"},
        "side": "archive:side",
        "echelon": "archive:echelon",
        "kind": "archive:kind",
        "date": "archive:dateEDTF",
        "rank": "archive:rank",
    }
    return {"@context": {**CONTEXT, **terms}}


def context_url(request: Any) -> str:
    return str(request.build_absolute_uri(reverse("api:jsonld-context")))


def _refs(items: list[dict[str, Any] | None]) -> list[str]:
    return [item["url"] for item in items if item]


def _citations(data: dict[str, Any]) -> list[str]:
    return [citation["url"] for citation in data.get("citations", [])]


def _clean(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if value not in (None, "", [])}


def person(record: Person, request: Any) -> dict[str, Any]:
    data = serializers.PersonSerializer(record, context={"request": request}).data
    return _clean({
        "id": data["url"], "type": "Person", "name": data["name"],
        "alternateName": [name["name"] for name in data["names"] if name["name"] != data["name"]],
        "birthDate": data["birth"], "deathDate": data["death"], "side": data["side"],
        "fictional": data["fictional"], "description": data["description"],
        "memberOf": sorted({post["unit"]["url"] for post in data["posts"] if post["unit"]}),
        "citation": _citations(data),
    })


def unit(record: Unit, request: Any) -> dict[str, Any]:
    data = serializers.UnitSerializer(record, context={"request": request}).data
    return _clean({
        "id": data["url"], "type": "Organization", "name": data["name"],
        "alternateName": [alias["name"] for alias in data["aliases"]],
        "echelon": data["echelon"], "side": data["side"], "fictional": data["fictional"],
        "description": data["description"],
        "parentOrganization": data["parent"]["url"] if data["parent"] else None,
        "subOrganization": _refs(data["children"]), "citation": _citations(data),
    })


def location(record: Location, request: Any) -> dict[str, Any]:
    data = serializers.LocationSerializer(record, context={"request": request}).data
    geo = None
    if data["latitude"] is not None and data["longitude"] is not None:
        geo = {"type": "GeoCoordinates", "latitude": data["latitude"], "longitude": data["longitude"]}
    return _clean({
        "id": data["url"], "type": "Place", "name": data["name"],
        "alternateName": [alias["name"] for alias in data["aliases"]], "kind": data["kind"],
        "fictional": data["fictional"], "description": data["description"], "geo": geo,
        "containedInPlace": data["parent"]["url"] if data["parent"] else None, "citation": _citations(data),
    })


def event(record: Event, request: Any) -> dict[str, Any]:
    data = serializers.EventSerializer(record, context={"request": request}).data
    attendees = [part["person"] or part["unit"] for part in data["participations"]]
    return _clean({
        "id": data["url"], "type": "Event", "name": data["title"], "kind": data["kind"],
        "fictional": data["fictional"], "description": data["description"], "date": data["date"],
        "startDate": data["earliest"], "endDate": data["latest"],
        "location": _refs(data["locations"]), "superEvent": data["parent"]["url"] if data["parent"] else None,
        "subEvent": _refs(data["children"]), "attendee": sorted(set(_refs(attendees))),
        "citation": _citations(data),
    })


def citation(record: Citation, request: Any) -> dict[str, Any]:
    """A Web Annotation, as the `annotation` format gives it, with the citation's rank."""
    return {**formats.annotation(record, request, context=False), "rank": record.rank}


def single(document: dict[str, Any], request: Any) -> dict[str, Any]:
    return {"@context": context_url(request), **document}


def graph(documents: list[dict[str, Any]], request: Any) -> dict[str, Any]:
    return {"@context": context_url(request), "@graph": documents}
