"""A reconciliation query batch, read from a request and checked before anything is looked up.

A batch is a JSON object of named queries (`{"q0": {"query": "唐生智", "type":
"person", "limit": 3, "properties": [{"pid": "unit", "v": "第三十六师"}]}}`),
sent as the `queries` parameter of a GET or a form POST, as OpenRefine does.
Every refusal is a `ReconcileError` naming the part of the request at fault.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from archive.models.registry import FictionMode
from archive.search import MAX_QUERY_LENGTH, normalise_query, search_key

from .types import PROPERTIES, TYPES, parse_entity_id

MAX_BATCH = 500
DEFAULT_LIMIT = 5
MAX_LIMIT = 100
MAX_VALUES = 20
# The whole batch's work: every candidate a name finds is compared with every value of its query's properties.
MAX_COMPARISONS = 10_000
_FICTION_WORDS = {"true": FictionMode.INCLUDE, "false": FictionMode.EXCLUDE, "yes": FictionMode.INCLUDE,
                  "no": FictionMode.EXCLUDE}


class ReconcileError(ValueError):
    """A request the service refuses: `param` names the parameter (or the part of a batch) at fault."""

    def __init__(self, param: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.param = param
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Value:
    """A property value: free text, or a record already reconciled (`id`)."""

    text: str
    entity: tuple[str, str] | None = None  # (type, slug) when the client sent an id of ours


@dataclass
class ReconQuery:
    key: str
    text: str
    types: tuple[str, ...]
    limit: int
    fiction: FictionMode
    properties: dict[str, list[Value]] = field(default_factory=dict)

    @property
    def values(self) -> int:
        """How many property values each candidate of the query is compared with."""
        return sum(len(values) for values in self.properties.values())


def parse_json(raw: str | bytes, param: str) -> Any:
    """The JSON document of a parameter or body; a lone surrogate (`\\ud800`) is no text and refused too."""
    try:
        document = json.loads(raw)
        # JSON may escape half a UTF-16 pair, which no UTF-8 text holds: found here, not in a query or a response.
        json.dumps(document, ensure_ascii=False).encode()
    except (ValueError, RecursionError):  # UnicodeError is a ValueError
        raise ReconcileError(param, _("%(param)s is not valid JSON.") % {"param": param}) from None
    return document


def _types(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None or raw == "" or raw == []:
        return tuple(TYPES)
    wanted = [raw] if isinstance(raw, str) else raw
    if not isinstance(wanted, list) or not all(isinstance(item, str) for item in wanted):
        raise ReconcileError(where, _("The type must be a type id or a list of them."))
    unknown = sorted(set(wanted) - set(TYPES))
    if unknown:
        raise ReconcileError(where, _("Unknown type %(unknown)s; the types are %(types)s.")
                             % {"unknown": ", ".join(unknown), "types": ", ".join(TYPES)})
    return tuple(t for t in TYPES if t in wanted)


def _limit(raw: Any, where: str) -> int:
    if raw is None:
        return DEFAULT_LIMIT
    whole = isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw) and raw == int(raw)
    if not whole or raw < 1:
        raise ReconcileError(where, _("The limit must be a whole number of at least 1."))
    return min(int(raw), MAX_LIMIT)


def _value(raw: Any, where: str) -> Value:
    if isinstance(raw, dict):
        ident, name = raw.get("id"), raw.get("name")
        if not isinstance(ident, str) or (name is not None and not isinstance(name, str)):
            raise ReconcileError(where, _("A reconciled value needs a text id (and may have a text name)."))
        return Value(text=name or ident, entity=parse_entity_id(ident))
    if isinstance(raw, bool):
        return Value(text="true" if raw else "false")
    if isinstance(raw, str | int | float):
        return Value(text=str(raw))
    raise ReconcileError(where, _("A property value must be text, a number, a boolean or {id, name}."))


def _fiction(values: list[Value], where: str) -> FictionMode:
    word = values[0].text.strip().lower() if values else ""
    if word in _FICTION_WORDS:
        return _FICTION_WORDS[word]
    try:
        return FictionMode(word)
    except ValueError:
        raise ReconcileError(where, _("fiction must be exclude, include or only.")) from None


def _properties(raw: Any, types: tuple[str, ...], where: str) -> tuple[dict[str, list[Value]], FictionMode]:
    found: dict[str, list[Value]] = {}
    fiction = FictionMode.EXCLUDE
    if raw is None:
        return found, fiction
    if not isinstance(raw, list):
        raise ReconcileError(where, _("properties must be a list of {pid, v}."))
    known = {prop.id for type_id in types for prop in PROPERTIES[type_id] if prop.scored} | {"fiction"}
    seen: set[str] = set()
    for index, item in enumerate(raw):
        at = f"{where}[{index}]"
        pid = item.get("pid", item.get("p")) if isinstance(item, dict) else None
        if not isinstance(pid, str) or "v" not in item:
            raise ReconcileError(at, _("A property needs a pid and a value v."))
        if pid not in known:
            raise ReconcileError(at, _("Unknown property %(pid)s; these types take %(known)s.")
                                 % {"pid": pid, "known": ", ".join(sorted(known))})
        # Each property once, its values in one list: else one query could repeat a property without end.
        if pid in seen:
            raise ReconcileError(at, _("The property %(pid)s is given twice; give its values in one list.")
                                 % {"pid": pid})
        seen.add(pid)
        values = item["v"] if isinstance(item["v"], list) else [item["v"]]
        if len(values) > MAX_VALUES:
            raise ReconcileError(at, _("A property takes at most %(max)d values.") % {"max": MAX_VALUES}, 413)
        parsed = list(dict.fromkeys(_value(value, at) for value in values))  # the same value counts once
        if pid == "fiction":
            fiction = _fiction(parsed, at)
        else:
            found[pid] = [value for value in parsed if value.text.strip()]
    return found, fiction


def read_query(key: str, raw: Any) -> ReconQuery:
    where = f"queries.{key}"
    if isinstance(raw, str):
        raw = {"query": raw}
    if not isinstance(raw, dict):
        raise ReconcileError(where, _("A query must be an object with a query text."))
    text = raw.get("query")
    if not isinstance(text, str) or not search_key(normalise_query(text)).strip():
        raise ReconcileError(f"{where}.query", _("The query text is missing or empty."))
    text = normalise_query(text)
    if len(text) > MAX_QUERY_LENGTH:
        raise ReconcileError(f"{where}.query", _("The query is longer than %(max)d characters.")
                             % {"max": MAX_QUERY_LENGTH})
    types = _types(raw.get("type"), f"{where}.type")
    properties, fiction = _properties(raw.get("properties"), types, f"{where}.properties")
    return ReconQuery(key=key, text=text, types=types, limit=_limit(raw.get("limit"), f"{where}.limit"),
                      fiction=fiction, properties=properties)


def check_work(queries: list[ReconQuery], candidates: dict[str, int]) -> None:
    """Refuse a batch whose candidates × values, summed over its queries, pass MAX_COMPARISONS."""
    work = sum(candidates[query.key] * query.values for query in queries)
    if work > MAX_COMPARISONS:
        raise ReconcileError("queries", _("This batch would compare %(work)d candidates × property values; a batch "
                                          "may compare at most %(max)d. Send fewer queries or values at a time.")
                             % {"work": work, "max": MAX_COMPARISONS}, 413)


def read_batch(raw: str) -> list[ReconQuery]:
    batch = parse_json(raw, "queries")
    if not isinstance(batch, dict):
        raise ReconcileError("queries", _("queries must be a JSON object of named queries."))
    if len(batch) > MAX_BATCH:
        raise ReconcileError("queries", _("A batch holds at most %(max)d queries.") % {"max": MAX_BATCH}, 413)
    return [read_query(str(key), value) for key, value in batch.items()]
