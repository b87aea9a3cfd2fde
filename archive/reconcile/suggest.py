"""Suggest services: entities, types and properties by the prefix a user has typed so far."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from archive.search import candidates as names
from archive.search import search_key as fold_key

from .batch import ReconcileError, read_query
from .types import TYPES, properties_of

MAX_SUGGESTIONS = 20


def _prefix(raw: str | None) -> str:
    if raw is None or not raw.strip():
        raise ReconcileError("prefix", _("prefix is required."))
    return raw


def entities(prefix: str | None, type_id: str | None, fiction: str | None, cursor: int) -> dict[str, Any]:
    raw: dict[str, Any] = {"query": _prefix(prefix), "type": type_id or None}
    if fiction:
        raw["properties"] = [{"pid": "fiction", "v": fiction}]
    try:
        query = read_query("suggest", raw)
    except ReconcileError as error:
        # The parameters of a suggest request are plain: name the one at fault.
        part = error.param.removeprefix("queries.suggest.")
        param = "prefix" if part == "query" else "type" if part == "type" else "fiction"
        raise ReconcileError(param, error.message) from None
    found = names.find(query.text, query.types, query.fiction.value)[cursor : cursor + MAX_SUGGESTIONS]
    result = []
    for item in found:
        entry: dict[str, Any] = {
            "id": f"{item.type}:{item.record.slug}",
            "name": item.record.title,
            "notable": [{"id": item.type, "name": str(TYPES[item.type].name)}],
        }
        if item.record.aliases:
            entry["description"] = " / ".join(item.record.aliases[:5])
        result.append(entry)
    return {"result": result}


def _starts(text: str, prefix: str) -> bool:
    return fold_key(text).startswith(fold_key(prefix)) or fold_key(prefix) in fold_key(text)


def types(prefix: str | None) -> dict[str, Any]:
    wanted = _prefix(prefix)
    return {"result": [{"id": t.id, "name": str(t.name)} for t in TYPES.values()
                       if _starts(t.id, wanted) or _starts(str(t.name), wanted)]}


def properties(prefix: str | None, type_id: str | None) -> dict[str, Any]:
    wanted = _prefix(prefix)
    if type_id is not None and type_id not in TYPES:
        raise ReconcileError("type", _("Unknown type %(unknown)s; the types are %(types)s.")
                             % {"unknown": type_id, "types": ", ".join(TYPES)})
    return {"result": [{"id": p.id, "name": str(p.name), "description": str(p.description)}
                       for p in properties_of(type_id) if _starts(p.id, wanted) or _starts(str(p.name), wanted)]}
