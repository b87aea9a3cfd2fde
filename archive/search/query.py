"""What a search accepts: the query, the types of hit and the fiction choice, checked before any lookup.

The API answers a bad parameter with a 400 naming it and the admin shows the
message, so every refusal is a `QueryError` that carries the parameter's
name. The limits live here too, since both callers quote them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from archive.models.registry import FictionMode

from .keys import normalise_query, search_key

TYPES = ("person", "unit", "location", "event", "source", "passage")
FICTION_CHOICES = tuple(mode.value for mode in FictionMode)
MAX_QUERY_LENGTH = 100
# Curators paste whole quotes into the admin's search box.
MAX_ADMIN_QUERY_LENGTH = 1000


class QueryError(ValueError):
    """A query or parameter the search refuses; `param` names the parameter."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.message = message


def clean_query(query: Any, *, max_length: int = MAX_QUERY_LENGTH) -> str:
    if not isinstance(query, str):
        raise QueryError("q", "The query must be text.")
    text = normalise_query(query)
    if not text or not search_key(text).strip():
        raise QueryError("q", "The query is empty.")
    if len(text) > max_length:
        raise QueryError("q", f"The query is longer than {max_length} characters.")
    return text


def clean_fiction(fiction: Any) -> str:
    if fiction not in FICTION_CHOICES:
        raise QueryError("fiction", f"fiction must be one of {', '.join(FICTION_CHOICES)}, not {fiction!r}.")
    return str(fiction)


def clean_types(types: Collection[str] | None) -> tuple[str, ...]:
    if not types:
        return TYPES
    if isinstance(types, str):
        types = [types]
    unknown = sorted(set(types) - set(TYPES))
    if unknown:
        raise QueryError("type", f"Unknown type {', '.join(unknown)}; the types are {', '.join(TYPES)}.")
    return tuple(t for t in TYPES if t in types)


def fiction_kept(fictional: bool, fiction: str) -> bool:
    """Whether a hit that is (or is not) `fictional` is shown under the `fiction` choice."""
    return fiction == "include" or (fiction == "only") == fictional
