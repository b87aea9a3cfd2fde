"""The reconciliation service in the OpenAPI schema (a drf-spectacular postprocessing hook).

The service's views are plain Django views, which drf-spectacular does not
see; this hook adds their paths, parameters and answers to `/api/schema/`,
so that `/api/docs/` shows them beside the API.
"""

from __future__ import annotations

from typing import Any

from .batch import DEFAULT_LIMIT, MAX_BATCH, MAX_LIMIT
from .types import TYPES

_TAG = "reconcile"
_OBJECT = {"type": "object", "additionalProperties": True}
_ERROR = {
    "type": "object",
    "properties": {"status": {"type": "integer"}, "param": {"type": "string"}, "error": {"type": "string"}},
    "required": ["status", "param", "error"],
}
_TYPE = {"type": "object", "properties": {"id": {"type": "string", "enum": list(TYPES)}, "name": {"type": "string"}}}
_CANDIDATE = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "`type:slug`, e.g. `person:tang-shengzhi`"},
        "name": {"type": "string"},
        "description": {"type": "string"},
        "score": {"type": "number", "description": "0 to 100"},
        "match": {"type": "boolean", "description": "True only for a first candidate clearly ahead of the next"},
        "type": {"type": "array", "items": _TYPE},
        "features": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["id", "name", "score", "match"],
}
_RESULT = {"type": "object", "properties": {"result": {"type": "array", "items": _CANDIDATE}}, "required": ["result"]}
_QUERIES = (
    "A JSON object of named queries, e.g. "
    '`{"q0": {"query": "唐生智", "type": "person", "limit": 3, "properties": [{"pid": "unit", "v": "第三十六师"}]}}`. '
    f"At most {MAX_BATCH} queries; `limit` defaults to {DEFAULT_LIMIT}, at most {MAX_LIMIT}. The property "
    "`fiction` (exclude, include, only) asks for fictional records."
)


def _param(name: str, description: str, *, required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "description": description,
            "schema": {"type": "string"}}


def _answers(schema: dict[str, Any], description: str) -> dict[str, Any]:
    error = {"application/json": {"schema": _ERROR}}
    return {
        "200": {"description": description, "content": {"application/json": {"schema": schema}}},
        "400": {"description": "A parameter is wrong; `param` names it.", "content": error},
    }


def _get(operation_id: str, summary: str, parameters: list[dict[str, Any]], schema: dict[str, Any],
         description: str) -> dict[str, Any]:
    return {"operationId": operation_id, "summary": summary, "tags": [_TAG], "parameters": parameters,
            "responses": _answers(schema, description)}


def _service() -> dict[str, Any]:
    form = {
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            "queries": {"type": "string", "description": _QUERIES},
            "extend": {"type": "string", "description": 'Data extension: `{"ids": [...], "properties": [{"id": '
                       '"birth"}]}`'},
        }}},
    }
    parameters = [
        _param("queries", _QUERIES),
        _param("query", "One query (version 0.1): a name, or a JSON query object."),
        _param("extend", "Data extension of reconciled ids (as the form field of a POST)."),
    ]
    description = ("Without parameters, the service manifest; with `queries`, a result batch (one `{result}` "
                   "per query key); with `extend`, the data extension's `{meta, rows}`.")
    get = _get("reconcile", "Reconciliation service (W3C reconciliation API 0.2)", parameters,
               {"oneOf": [_OBJECT, {"type": "object", "additionalProperties": _RESULT}]}, description)
    post = {**get, "operationId": "reconcile_post", "parameters": [], "requestBody": {"content": form}}
    return {"get": get, "post": post}


def paths() -> dict[str, Any]:
    prefix, type_ = _param("prefix", "What the user has typed so far.", required=True), _param(
        "type", f"One of {', '.join(TYPES)}.")
    suggestions = {"type": "object", "properties": {"result": {"type": "array", "items": _OBJECT}}}
    identified = {"name": "ident", "in": "path", "required": True, "schema": {"type": "string"},
                  "description": "`type:slug`"}
    return {
        "/reconcile/": _service(),
        "/reconcile/suggest/entity/": {"get": _get(
            "reconcile_suggest_entity", "Suggest records by prefix",
            [prefix, type_, _param("fiction", "exclude (default), include or only"), _param("cursor", "offset")],
            suggestions, "Matching records, best first.")},
        "/reconcile/suggest/type/": {"get": _get("reconcile_suggest_type", "Suggest types", [prefix], suggestions,
                                                 "Matching types.")},
        "/reconcile/suggest/property/": {"get": _get("reconcile_suggest_property", "Suggest properties",
                                                     [prefix, type_], suggestions, "Matching properties.")},
        "/reconcile/suggest/flyout/": {"get": _get("reconcile_flyout", "A record's flyout HTML",
                                                   [_param("id", "`type:slug`", required=True)], _OBJECT,
                                                   "`{id, html}`.")},
        "/reconcile/extend/propose/": {"get": _get("reconcile_propose_properties", "Properties data extension offers",
                                                   [type_, _param("limit", "how many")], _OBJECT,
                                                   "`{type, properties}`.")},
        "/reconcile/1.0/": {"get": _get("reconcile_draft", "The manifest of version 1.0-draft", [], _OBJECT,
                                        "Its routes follow: /match, /suggest/…, /preview, /extend, /extend/propose.")},
        "/reconcile/1.0/match": {"post": {
            "operationId": "reconcile_draft_match", "summary": "Reconciliation, version 1.0-draft", "tags": [_TAG],
            "requestBody": {"content": {"application/json": {"schema": _OBJECT}}},
            "responses": _answers(_OBJECT, "`{results: [{candidates}]}`, in the order of the queries.")}},
        "/reconcile/1.0/extend": {"post": {
            "operationId": "reconcile_draft_extend", "summary": "Data extension, version 1.0-draft", "tags": [_TAG],
            "requestBody": {"content": {"application/json": {"schema": _OBJECT}}},
            "responses": _answers(_OBJECT, "`{meta, rows: [{id, properties: [{id, values}]}]}`.")}},
        "/reconcile/types/": {"get": _get("reconcile_types", "The types and their properties", [], _OBJECT,
                                          "`{result}`.")},
        "/reconcile/view/{ident}/": {"get": {
            "operationId": "reconcile_view", "summary": "Redirect to the record in the API", "tags": [_TAG],
            "parameters": [identified],
            "responses": {"302": {"description": "To the record's API URL."},
                          "404": {"description": "No such record.",
                                  "content": {"application/json": {"schema": _ERROR}}}}}},
        "/reconcile/preview/{ident}/": {"get": {
            "operationId": "reconcile_preview", "summary": "An HTML card of the record", "tags": [_TAG],
            "parameters": [identified],
            "responses": {"200": {"description": "HTML.", "content": {"text/html": {"schema": {"type": "string"}}}},
                          "404": {"description": "No such record.",
                                  "content": {"application/json": {"schema": _ERROR}}}}}},
    }


def add_reconciliation_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    result.setdefault("paths", {}).update(paths())
    return result
