"""Version 1.0-draft of the specification, beside 0.2, under `/reconcile/1.0/`.

The draft changed shapes, not meaning: the manifest says which services
exist with booleans and fixed routes (`/match`, `/suggest/…`, `/preview`,
`/extend`, `/extend/propose`); a batch is a JSON body `{"queries": [...]}`
whose queries are lists of `conditions` (a name, an id, or a property,
possibly `required`); results come back as a list in the same order, and
data extension rows as a list of `{id, properties: [{id, values}]}`. These
functions turn the draft's shapes into the 0.2 ones the service answers and
back, so that both versions score alike.
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from archive.search import candidates as names

from . import extend, scoring
from .batch import MAX_BATCH, ReconcileError, read_query
from .extend import MAX_IDS
from .manifest import manifest
from .types import FICTION, PROPERTIES, TYPES, parse_entity_id

VERSIONS = ["1.0-draft"]


def manifest_draft(request: Any) -> dict[str, Any]:
    older = manifest(request)
    return {
        "versions": VERSIONS,
        "name": older["name"],
        "lang": get_language() or "en",
        "documentation": older["documentation"],
        "batchSize": MAX_BATCH,
        "view": {"url": older["view"]["url"].replace("{{id}}", "{id}")},
        "defaultTypes": older["defaultTypes"],
        "suggest": {"entity": True, "property": True, "type": True},
        "preview": {"width": 400, "height": 200},
        "extend": {"proposeProperties": True, "propertySettings": []},
        "standardizedScore": True,
    }


def _feature_names() -> dict[str, str]:
    names = {prop.id: str(prop.name) for props in PROPERTIES.values() for prop in props}
    return {**names, FICTION.id: str(FICTION.name), "name": _("Name"), "fictional": _("Fictional"),
            "id": _("Identifier")}


def _conditions(raw: dict[str, Any], where: str) -> tuple[str | None, list[str], list[dict[str, Any]], set[str]]:
    """The name, the ids, the 0.2 properties and the required property ids of one query's conditions."""
    conditions = raw.get("conditions")
    if not isinstance(conditions, list) or not conditions:
        raise ReconcileError(f"{where}.conditions", _("A query needs a non-empty list of conditions."))
    name: str | None = None
    ids: list[str] = []
    properties: list[dict[str, Any]] = []
    required: set[str] = set()
    for index, condition in enumerate(conditions):
        at = f"{where}.conditions[{index}]"
        if not isinstance(condition, dict) or "propertyValue" not in condition:
            raise ReconcileError(at, _("A condition needs a matchType and a propertyValue."))
        kind, value = condition.get("matchType"), condition["propertyValue"]
        if kind == "name" and isinstance(value, str) and name is None:
            name = value
        elif kind == "id" and isinstance(value, str):
            ids.append(value)
        elif kind == "property" and isinstance(condition.get("propertyId"), str):
            # The draft gives a property's values as conditions; 0.2 takes them as one list per property.
            values = value if isinstance(value, list) else [value]
            merged = next((p for p in properties if p["pid"] == condition["propertyId"]), None)
            if merged is None:
                properties.append({"pid": condition["propertyId"], "v": values})
            else:
                merged["v"] = [*merged["v"], *values]
            if condition.get("required") is True:
                required.add(condition["propertyId"])
        else:
            raise ReconcileError(at, _("matchType must be name (with a text), id (with a text) or property "
                                       "(with a propertyId)."))
    return name, list(dict.fromkeys(ids)), properties, required


def _by_ids(ids: list[str], type_id: str | None, slugs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Candidates for the query's id conditions; `slugs` keeps each type's records by slug, read once a batch."""
    found = []
    for ident in ids:
        parsed = parse_entity_id(ident)
        if parsed is None or (type_id and parsed[0] != type_id):
            continue
        if parsed[0] not in slugs:
            slugs[parsed[0]] = {record.slug: record for record in names.records_by_pk(parsed[0]).values()}
        record = slugs[parsed[0]].get(parsed[1])
        if record is not None:
            found.append({"id": ident, "name": record.title, "score": 100, "match": True,
                          "type": [{"id": parsed[0], "name": str(TYPES[parsed[0]].name)}],
                          "features": [{"id": "id", "value": True}]})
    return found


def match(body: Any) -> dict[str, Any]:
    """The draft's result batch for its query batch."""
    if not isinstance(body, dict) or not isinstance(body.get("queries"), list):
        raise ReconcileError("queries", _("The body must be a JSON object with a list of queries."))
    if len(body["queries"]) > MAX_BATCH:
        raise ReconcileError("queries", _("A batch holds at most %(max)d queries.") % {"max": MAX_BATCH}, 413)
    queries, extra = [], {}
    id_count = 0
    for index, raw in enumerate(body["queries"]):
        where = f"queries[{index}]"
        if not isinstance(raw, dict):
            raise ReconcileError(where, _("A query must be an object with conditions."))
        name, ids, properties, required = _conditions(raw, where)
        id_count += len(ids)
        if id_count > MAX_IDS:
            raise ReconcileError(f"{where}.conditions", _("A batch takes at most %(max)d id conditions.")
                                 % {"max": MAX_IDS}, 413)
        extra[str(index)] = (ids, required, raw.get("type"))
        if name is not None:
            older = {"query": name, "type": raw.get("type"), "limit": raw.get("limit"), "properties": properties}
            queries.append(read_query(str(index), older))
        elif not ids:
            raise ReconcileError(f"{where}.conditions", _("A query needs a name or an id condition."))
    answered = scoring.answer(queries) if queries else {}
    feature_names = _feature_names()
    results = []
    slugs: dict[str, dict[str, Any]] = {}
    for index in range(len(body["queries"])):
        ids, required, type_id = extra[str(index)]
        candidates = _by_ids(ids, type_id if isinstance(type_id, str) else None, slugs)
        for candidate in answered.get(str(index), {}).get("result", []):
            features = {feature["id"]: feature["value"] for feature in candidate["features"]}
            if all(features.get(pid) is True for pid in required):
                candidates.append(candidate)
        for candidate in candidates:
            candidate["features"] = [{**feature, "name": feature_names.get(feature["id"], feature["id"])}
                                     for feature in candidate["features"]]
        results.append({"candidates": candidates})
    return {"results": results}


def extend_draft(body: Any, request: Any) -> dict[str, Any]:
    """The draft's data extension: rows as a list of `{id, properties: [{id, values}]}`."""
    older = extend.extend(json.dumps(body), request)
    rows = [{"id": ident, "properties": [{"id": pid, "values": values} for pid, values in row.items()]}
            for ident, row in older["rows"].items()]
    return {"meta": older["meta"], "rows": rows}
