"""OpenAPI description of the API, as drf-spectacular generates it, made exact.

drf-spectacular describes every renderer's media type with the JSON
serializer's schema and knows nothing of `?format=`, of the `fiction` rule on
details, or of the errors every endpoint can give. This AutoSchema adds the
`format` parameter with the formats of each operation, gives each format's
media type the schema of the document it really returns, and documents the
400, 404 and 429 answers, so that a client generated from the schema (or a
schema-driven test) sees what the server does.
"""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from archive.models.registry import FictionMode

_STRING = {"type": "string"}
_NULLABLE_POINT = {
    "type": "object",
    "nullable": True,
    "properties": {
        "type": {"type": "string", "enum": ["Point"]},
        "coordinates": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
    },
    "required": ["type", "coordinates"],
}

CSL_ITEM = {
    "type": "object",
    "description": "A CSL-JSON item (Citation Style Language).",
    "properties": {
        "id": _STRING,
        "type": {"type": "string", "enum": ["book", "chapter", "manuscript", "article"]},
        "title": _STRING,
        "author": {"type": "array", "items": {"type": "object", "properties": {
            "literal": _STRING, "family": _STRING, "given": _STRING}}},
        "issued": {"type": "object", "properties": {
            "date-parts": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
            "circa": {"type": "boolean"}}},
        "language": _STRING,
        "publisher": _STRING,
        "publisher-place": _STRING,
        "container-title": _STRING,
        "URL": _STRING,
        "abstract": _STRING,
        "note": _STRING,
    },
    "required": ["id", "type", "title"],
}

GEOJSON_FEATURE = {
    "type": "object",
    "description": "A GeoJSON Feature (RFC 7946); geometry is null where the place has no coordinates.",
    "properties": {
        "type": {"type": "string", "enum": ["Feature"]},
        "id": _STRING,
        "geometry": _NULLABLE_POINT,
        "properties": {"type": "object"},
    },
    "required": ["type", "geometry", "properties"],
}
GEOJSON_COLLECTION = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["FeatureCollection"]},
        "features": {"type": "array", "items": GEOJSON_FEATURE},
    },
    "required": ["type", "features"],
}

LPF_FEATURE = {
    "type": "object",
    "description": "A place in Linked Places Format v1.1.",
    "properties": {
        "@id": _STRING,
        "@context": _STRING,
        "type": {"type": "string", "enum": ["Feature"]},
        "properties": {"type": "object", "properties": {"title": _STRING}},
        "names": {"type": "array", "items": {"type": "object", "properties": {
            "toponym": _STRING, "lang": _STRING,
            "citations": {"type": "array", "items": {"type": "object", "properties": {
                "label": _STRING, "@id": _STRING}}}}}},
        "types": {"type": "array", "items": {"type": "object"}},
        "geometry": _NULLABLE_POINT,
        "relations": {"type": "array", "items": {"type": "object", "properties": {
            "relationType": _STRING, "relationTo": _STRING, "label": _STRING}}},
    },
    "required": ["@id", "type", "properties", "names", "geometry"],
}
LPF_COLLECTION = {
    "type": "object",
    "properties": {
        "@context": _STRING,
        "type": {"type": "string", "enum": ["FeatureCollection"]},
        "features": {"type": "array", "items": LPF_FEATURE},
    },
    "required": ["@context", "type", "features"],
}

_SELECTOR = {"type": "object", "properties": {
    "type": {"type": "string", "enum": ["TextQuoteSelector", "TextPositionSelector"]},
    "exact": _STRING, "prefix": _STRING, "suffix": _STRING,
    "start": {"type": "integer"}, "end": {"type": "integer"}}}
ANNOTATION = {
    "type": "object",
    "description": "A W3C Web Annotation: the claim, the record it is about, and the quote in its passage.",
    "properties": {
        "@context": _STRING,
        "id": _STRING,
        "type": {"type": "string", "enum": ["Annotation"]},
        "motivation": _STRING,
        "body": {"type": "array", "items": {"type": "object"}},
        "target": {"type": "object", "properties": {
            "source": _STRING, "selector": {"type": "array", "items": _SELECTOR}}},
    },
    "required": ["id", "type", "body", "target"],
}
ANNOTATION_PAGE = {
    "type": "object",
    "properties": {
        "@context": _STRING,
        "id": _STRING,
        "type": {"type": "string", "enum": ["AnnotationPage"]},
        "partOf": {"type": "object"},
        "items": {"type": "array", "items": ANNOTATION},
        "next": _STRING,
        "prev": _STRING,
    },
    "required": ["type", "items"],
}

JSONLD_NODE = {
    "type": "object",
    "description": "A record in schema.org terms, or a citation as a Web Annotation, under the context "
    "`/api/v1/context.jsonld` (`archive.api.linked_data`).",
    "properties": {"@context": _STRING, "id": _STRING, "type": _STRING},
    "required": ["id", "type"],
}
JSONLD_GRAPH = {
    "type": "object",
    "properties": {"@context": _STRING, "@graph": {"type": "array", "items": JSONLD_NODE}},
    "required": ["@context", "@graph"],
}
TEI_DOCUMENT = {"type": "string", "description": "A TEI P5 document (XML) of the source's whole text, its "
                "bibliographic data in the header, its citations marked inline (`archive.api.tei`)."}

# Schemas of each format's document: (for a list, for one record).
FORMAT_SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "csl": ({"type": "array", "items": CSL_ITEM}, CSL_ITEM),
    "geojson": (GEOJSON_COLLECTION, GEOJSON_FEATURE),
    "lpf": (LPF_COLLECTION, {**LPF_FEATURE, "required": [*LPF_FEATURE["required"], "@context"]}),
    "annotation": (ANNOTATION_PAGE, {**ANNOTATION, "required": [*ANNOTATION["required"], "@context"]}),
    "csv": ({"type": "string", "description": "Comma-separated rows, one per record, with a header row."}, _STRING),
    "jsonld": (JSONLD_GRAPH, {**JSONLD_NODE, "required": [*JSONLD_NODE["required"], "@context"]}),
    "tei": (TEI_DOCUMENT, TEI_DOCUMENT),
}

_ERROR = {
    "type": "object",
    "description": "`detail`, or a message for each parameter that was wrong.",
    "additionalProperties": True,
}


class ArchiveAutoSchema(AutoSchema):
    def _is_list(self) -> bool:
        return getattr(self.view, "action", None) in ("list", "passages")

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        formats = ["json", *(renderer.format for renderer in self.view.get_renderers()[1:])]
        parameters.append(
            OpenApiParameter(
                "format", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=formats, default="json",
                description="Format of the answer; another format than these is a 404.",
            )
        )
        if not self._is_list() and getattr(self.view, "action", None) == "retrieve" and self._has_fiction():
            parameters.append(
                OpenApiParameter(
                    "fiction", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=[mode.value for mode in FictionMode],
                    description="Which citations nested data shows: exclude drops those of fiction, include and "
                    "only show all. Without it, a fictional record shows its fiction, any other does not. The "
                    "record itself always answers.",
                )
            )
        return parameters

    def _has_fiction(self) -> bool:
        from archive.api.views import CitationViewSet, SourceViewSet

        return not isinstance(self.view, SourceViewSet | CitationViewSet)

    def _get_response_bodies(self, direction: Literal["request", "response"] = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        ok = responses.get("200")
        if ok and "content" in ok:
            described: set[str] = set()
            for renderer in self.view.get_renderers()[1:]:
                schemas = FORMAT_SCHEMAS.get(renderer.format)
                if schemas and renderer.media_type in ok["content"]:
                    schema = schemas[0] if self._is_list() else schemas[1]
                    if renderer.media_type in described:  # two formats of one media type (LPF and JSON-LD)
                        schema = {"oneOf": [ok["content"][renderer.media_type]["schema"], schema]}
                    ok["content"][renderer.media_type] = {"schema": schema}
                    described.add(renderer.media_type)
        error = {"application/json": {"schema": _ERROR}}
        responses.setdefault("400", {"description": "A parameter is wrong; the message names it.",
                                     "content": error})
        responses.setdefault("404", {"description": "No such record, page or format.", "content": error})
        responses.setdefault("429", {"description": "Too many requests; Retry-After says when to come back.",
                                     "content": error})
        return responses
