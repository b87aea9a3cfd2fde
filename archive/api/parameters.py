"""The query parameters of an API request, checked and reduced to their meaning.

Two requests that ask the same question must be answered from one stored
response, and a question no endpoint understands must not be stored at all:
otherwise a client that varies a parameter nobody reads (`?junk=1`, `?junk=2`
…) or the spelling of a value (`1937-12-12T17:00` and `1937-12-12T17:00:00`)
fills the response cache with copies. So every parameter of a request is
checked before anything is looked up: an unknown name is a 400 that names it
and lists the ones the endpoint takes, a bad value is a 400 that names its
parameter, and what remains is a sorted tuple of (name, canonical value)
pairs — the parsed value, not the string that was sent — from which the
response cache builds its key (`archive.api.caching`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db.models import Model
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

# Parameters every endpoint of the API takes: the format override.
COMMON = frozenset({"format"})
PAGINATION = frozenset({"page", "page_size"})


def refuse_nul(request: Request) -> None:
    """PostgreSQL refuses a NUL character in any text it is sent; refuse it here, naming the parameter."""
    for name, values in request.query_params.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            raise ValidationError({name.replace("\x00", "\\0"): ["A parameter cannot contain a NUL character."]})


def refuse_unknown(request: Request, allowed: Iterable[str]) -> None:
    """A 400 naming every parameter the endpoint does not take, with the ones it does."""
    known = set(allowed) | COMMON
    unknown = sorted(name for name in request.query_params if name not in known)
    if unknown:
        takes = ", ".join(sorted(known))
        raise ValidationError({name: [f"Unknown parameter; this endpoint takes {takes}."] for name in unknown})


def canonical_value(value: Any) -> str | None:
    """One spelling for each meaning: records by slug or id, instants in UTC, numbers as numbers."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, Model):
        return str(getattr(value, "slug", None) or value.pk)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    if isinstance(value, tuple | list):
        return "|".join(str(canonical_value(item)) for item in value)
    return str(value)
