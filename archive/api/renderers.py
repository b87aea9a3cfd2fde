"""Renderers of the formats named by `?format=` (DRF's URL_FORMAT_OVERRIDE).

The views build each format's document (see `archive.api.formats`); a
renderer here only names the format and its media type and serialises. A
format an endpoint does not offer fails content negotiation, which DRF
answers with a 404, never a 500.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer


class CSLRenderer(JSONRenderer):
    media_type = "application/vnd.citationstyles.csl+json"
    format = "csl"


class GeoJSONRenderer(JSONRenderer):
    media_type = "application/geo+json"
    format = "geojson"


class LinkedPlacesRenderer(JSONRenderer):
    media_type = "application/ld+json"
    format = "lpf"


class AnnotationRenderer(JSONRenderer):
    # Negotiated as JSON-LD; the view adds the profile of Web Annotation to the
    # Content-Type (a parameter here would keep the renderer from matching */*).
    media_type = "application/ld+json"
    format = "annotation"
    content_type = 'application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"'


class JsonLdRenderer(JSONRenderer):
    """schema.org and Web Annotation JSON-LD (`archive.api.linked_data`)."""

    media_type = "application/ld+json"
    format = "jsonld"


class TeiRenderer(BaseRenderer):
    """A TEI P5 document, already serialised by `archive.api.tei`."""

    media_type = "application/tei+xml"
    format = "tei"
    charset = None  # the XML declaration names UTF-8

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        return data if isinstance(data, bytes) else b""


# A spreadsheet runs a cell that begins with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> str:
    """Neutralise formula injection (CWE-1236) by prefixing a single quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


class CSVRenderer(BaseRenderer):
    """Flat rows, one per record; the first row names the columns."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        rows = data if isinstance(data, list) else [data] if isinstance(data, dict) else []
        view = (renderer_context or {}).get("view")
        # The view names the columns, so that an empty page still has its header row.
        columns = list(getattr(view, "csv_columns", ()) or (rows[0] if rows else ["detail"]))
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n", extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: escape_cell(value) for key, value in row.items()})
        return buffer.getvalue().encode(self.charset)
