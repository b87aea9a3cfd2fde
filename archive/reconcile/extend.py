"""Data extension: our fields of reconciled records, as the API shows them.

Each record is read with the API's selector and serializer, so a value is the
one the API shows (statements' chosen value, visible related records only)
and, as on the API's detail page, a record's nested data follows its own
nature: fiction is shown for a fictional record and left out for a real one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from archive import selectors
from archive.api import serializers, stored
from archive.models.registry import FictionMode

from .batch import ReconcileError, parse_json
from .types import PROPERTIES, TYPES, entity_id, parse_entity_id

# Each id is read as the API's detail (built and stored when not current): bounded so that a request stays
# within a second.
MAX_IDS = 50

SELECT: dict[str, tuple[Callable[[FictionMode], QuerySet], type[Any]]] = {
    "person": (selectors.persons, serializers.PersonSerializer),
    "unit": (selectors.units, serializers.UnitSerializer),
    "location": (selectors.locations, serializers.LocationSerializer),
    "event": (selectors.events, serializers.EventSerializer),
}


def _entity(type_id: str, ref: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [{"id": entity_id(type_id, ref["slug"]), "name": ref["name"]}] if ref else []


def _text(value: Any) -> list[dict[str, Any]]:
    return [{"str": str(value)}] if value not in (None, "") else []


def _number(value: Any) -> list[dict[str, Any]]:
    return [{"float": float(value)}] if value is not None else []


def _moment(value: Any) -> list[dict[str, Any]]:
    return [{"date": value}] if value else []


def _units_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for post in data["posts"]:
        for cell in _entity("unit", post["unit"]):
            seen.setdefault(cell["id"], cell)
    return list(seen.values())


def _coordinates(data: dict[str, Any]) -> list[dict[str, Any]]:
    if data["latitude"] is None or data["longitude"] is None:
        return []
    return [{"str": f"{data['latitude']},{data['longitude']}"}]


CELLS: dict[str, dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]]] = {
    "person": {
        "birth": lambda d: _text(d["birth"]), "death": lambda d: _text(d["death"]),
        "side": lambda d: _text(d["side"]), "unit": _units_of,
    },
    "unit": {
        "side": lambda d: _text(d["side"]), "echelon": lambda d: _text(d["echelon"]),
        "parent": lambda d: _entity("unit", d["parent"]),
    },
    "location": {
        "coordinates": _coordinates, "latitude": lambda d: _number(d["latitude"]),
        "longitude": lambda d: _number(d["longitude"]), "parent": lambda d: _entity("location", d["parent"]),
    },
    "event": {
        "date": lambda d: _text(d["date"]), "earliest": lambda d: _moment(d["earliest"]),
        "latest": lambda d: _moment(d["latest"]),
        "place": lambda d: [cell for ref in d["locations"] for cell in _entity("location", ref)],
        "parent": lambda d: _entity("event", d["parent"]),
    },
}


def _read_query(raw: str) -> tuple[list[str], list[str]]:
    query = parse_json(raw, "extend")
    if not isinstance(query, dict):
        raise ReconcileError("extend", _("extend must be a JSON object with ids and properties."))
    ids, properties = query.get("ids"), query.get("properties")
    if not isinstance(ids, list) or not all(isinstance(item, str) for item in ids):
        raise ReconcileError("extend.ids", _("ids must be a list of entity ids."))
    if len(ids) > MAX_IDS:
        raise ReconcileError("extend.ids", _("At most %(max)d ids at a time.") % {"max": MAX_IDS}, 413)
    if not isinstance(properties, list) or not all(isinstance(p, dict) and isinstance(p.get("id"), str)
                                                   for p in properties):
        raise ReconcileError("extend.properties", _("properties must be a list of {id}."))
    known = {prop.id for props in PROPERTIES.values() for prop in props if prop.extended}
    pids = [p["id"] for p in properties]
    unknown = sorted(set(pids) - known)
    if unknown:
        raise ReconcileError("extend.properties", _("Unknown property %(unknown)s; the properties are %(known)s.")
                             % {"unknown": ", ".join(unknown), "known": ", ".join(sorted(known))})
    # Each known property once, so that the rows' cells are bounded by ids × the properties there are.
    repeated = sorted({pid for pid in pids if pids.count(pid) > 1})
    if repeated:
        raise ReconcileError("extend.properties", _("The property %(pid)s is asked for twice.")
                             % {"pid": ", ".join(repeated)})
    return list(dict.fromkeys(ids)), pids


def _documents(ids: list[str], request: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """The API's document of each known, approved record, by our id."""
    by_type: dict[str, set[str]] = defaultdict(set)
    for ident in ids:
        parsed = parse_entity_id(ident)
        if parsed is not None:
            by_type[parsed[0]].add(parsed[1])
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for type_id, slugs in by_type.items():
        select, serializer = SELECT[type_id]
        model = select(FictionMode.EXCLUDE).model
        flags = dict(model.objects.approved().filter(slug__in=slugs).values_list("slug", "fictional"))
        for fictional in (False, True):
            chosen = [slug for slug, flag in flags.items() if flag == fictional]
            if not chosen:
                continue
            mode = FictionMode.INCLUDE if fictional else FictionMode.EXCLUDE
            if stored.enabled():
                # The API's stored documents: one indexed read where they are current, instead of serialising.
                read = [json.loads(text) for text in stored.documents(stored.KINDS[type_id], chosen, mode)]
            else:
                read = serializer(select(mode).filter(slug__in=chosen), many=True, context={"request": request}).data
            for data in read:
                found[entity_id(type_id, data["slug"])] = (type_id, data)
    return found


def extend(raw: str, request: Any) -> dict[str, Any]:
    """The data extension response for the `extend` parameter."""
    ids, pids = _read_query(raw)
    names = {prop.id: str(prop.name) for props in PROPERTIES.values() for prop in props}
    documents = _documents(ids, request)
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for ident in ids:
        type_id, data = documents.get(ident, ("", {}))
        cells = CELLS.get(type_id, {})
        rows[ident] = {pid: cells[pid](data) if pid in cells else [] for pid in pids}
    return {"meta": [{"id": pid, "name": names[pid]} for pid in pids], "rows": rows}


def propose(type_id: str | None, limit: int | None) -> dict[str, Any]:
    """The properties data extension offers for a type."""
    if type_id is not None and type_id not in TYPES:
        raise ReconcileError("type", _("Unknown type %(unknown)s; the types are %(types)s.")
                             % {"unknown": type_id, "types": ", ".join(TYPES)})
    chosen = [prop for prop in (PROPERTIES[type_id] if type_id else
                                [p for props in PROPERTIES.values() for p in props]) if prop.extended]
    unique = list({prop.id: prop for prop in chosen}.values())
    document: dict[str, Any] = {
        "properties": [{"id": prop.id, "name": str(prop.name), "description": str(prop.description)}
                       for prop in unique[: limit or None]],
    }
    if type_id:
        document["type"] = type_id
    if limit:
        document["limit"] = limit
    return document
