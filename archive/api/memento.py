"""A record as it was published at a moment, a release or a version: `?as_of=`, `?release=`, `?version=`.

The answer is read from the history tables (simple-history), never from the
stored documents or the current rows, so it is what readers saw then: the
record's own fields, its names or aliases, and the published citations that
rested on it, each as of that moment. It is marked as a memento (RFC 7089):
``Memento-Datetime`` says when that state was published, ``Link`` names the
current version (``original``) and this permanent one (``memento``).

- ``as_of``: a date (``2026-12-01``: the state at the end of that day, UTC) or
  an ISO 8601 moment; the latest published state at or before it.
- ``release``: the version of the record that release ``N`` holds.
- ``version``: the record's version ``N`` as published (the permanent link
  every memento gives).

A record not published at that moment is a 404 that says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from archive import mementos
from archive.models import Curated, Release

__all__ = [
    "DETAIL_SCHEMA",
    "LIST_PARAMETERS",
    "LIST_SCHEMA",
    "PARAMETERS",
    "asked",
    "memento_list",
    "memento_response",
    "passage_response",
    "releases_response",
    "source_passages_response",
]

PARAMETERS = mementos.PARAMETERS
T = TypeVar("T")


def asked(request: Request) -> bool:
    return mementos.asked(request.query_params)


def _read(reading: Callable[[], T]) -> T:
    """A value the reading cannot take is DRF's 400 naming the parameter."""
    try:
        return reading()
    except mementos.BadValue as bad:
        raise ValidationError({bad.name: [bad.message]}) from bad


def memento_response(model: type[Curated], slug: str | int, request: Request, key: str = "slug") -> Response:
    """The record ``slug`` (or of id ``slug``, with ``key="id"``) as published then, marked as a memento."""
    found = _read(lambda: mementos.published(model, slug, request.query_params, key=key))
    state, moment = found.state, found.read_at
    current = request.build_absolute_uri(request.path)
    permanent = f"{current}?version={state.version}"
    document = {
        "memento": {
            "version": state.version,
            "published_at": state.history_date.isoformat(),
            "read_as_of": moment.isoformat(),
            "change": state.history_change_reason or "",
            "permalink": permanent,
            "current": current,
        },
        **mementos.document(model, state, moment),
    }
    return mementos.mark(Response(document), original=current, memento=permanent, moment=state.history_date)


LIST_PARAMETERS = mementos.LIST_PARAMETERS
_LIST_KEEPS = {"as_of", "release", "page", "page_size", "format"}


def _count(request: Request, name: str, default: int, largest: int) -> int:
    if name not in request.query_params:
        return default
    return min(_read(lambda: mementos.number(request.query_params, name)), largest)


def memento_list(model: type[Curated], request: Request, key: str = "slug") -> Response:
    """The records of ``model`` published at a moment or in a release, by slug, paged; read from the history.

    Each item holds the record's own fields then and its permanent link; the
    nested names and citations are in each record's own memento.
    """
    read = _list_reading(request)
    states = mementos.published_states(model, read)
    states.sort(key=lambda row: getattr(row, key))
    base = request.build_absolute_uri(request.path)
    shown = _paged(request, states)
    return _marked(Response({
        "count": len(states),
        "memento": _about(read, base),
        "results": [{**mementos.fields(row, model), **({"id": row.id} if key == "id" else {}),
                     "version": row.version, "permalink": f"{base}{getattr(row, key)}/?version={row.version}"}
                    for row in shown],
    }), read, base)


def passage_response(pk: int, request: Request) -> Response:
    """A passage as it stood then, with the citations published then that rest on it; a passage has no version."""
    read = _list_reading(request)
    base = request.build_absolute_uri(request.path)
    document = mementos.passage(pk, read)
    return _marked(Response({"memento": _about(read, base), **document}), read, base)


def source_passages_response(slug: str, request: Request) -> Response:
    """The passages of a source as they stood then, paged, each with the citations published then."""
    read = _list_reading(request)
    passages = mementos.source_passages(slug, read)
    base = request.build_absolute_uri(request.path)
    return _marked(Response({"count": len(passages), "memento": _about(read, base),
                             "results": _paged(request, passages)}), read, base)


def releases_response(request: Request, summary: Callable[[Release], dict[str, Any]]) -> Response:
    """The releases made by the moment read (or up to the release named), newest first, marked as a memento."""
    read = _list_reading(request)
    base = request.build_absolute_uri(request.path)
    made = list(Release.objects.prefetch_related("files").defer("published")
                .filter(made_at__lte=read.read_at).order_by("-number"))
    return _marked(Response({"count": len(made), "memento": _about(read, base),
                             "results": [summary(release) for release in made]}), read, base)


def _list_reading(request: Request) -> mementos.Listing:
    read = _read(lambda: mementos.listing(request.query_params))
    other = sorted(set(request.query_params) - _LIST_KEEPS)
    if other:
        raise ValidationError({name: ["Filters do not apply to a list as of a date or release."] for name in other})
    return read


def _paged(request: Request, items: list[T]) -> list[T]:
    size = _count(request, "page_size", 50, 200)
    page = _count(request, "page", 1, 10**6)
    return items[(page - 1) * size: page * size]


def _about(read: mementos.Listing, base: str) -> dict[str, object]:
    return {"read_as_of": read.read_at.isoformat(), "current": base,
            **({"release": read.release.number} if read.release is not None else {})}


def _marked(response: Response, read: mementos.Listing, base: str) -> Response:
    """Memento-Datetime the moment read; Link the current answer and this one, which keeps its address."""
    held = (f"release={read.release.number}" if read.release is not None
            else f"as_of={mementos.moment_text(read.read_at)}")
    return mementos.mark(response, original=base, memento=f"{base}?{held}", moment=read.read_at)


_AS_OF = OpenApiParameter(
    "as_of", OpenApiTypes.STR, OpenApiParameter.QUERY,
    description="Answer as published at this moment, read from the history: a date (2026-12-01, the end of that "
    "day, UTC) or an ISO 8601 moment (2026-12-01T12:00Z). The answer carries `Memento-Datetime` and `Link` "
    "headers (RFC 7089). Not with `release` or `version`; a value that cannot be read is a 400 naming it.",
)
_RELEASE = OpenApiParameter(
    "release", OpenApiTypes.INT, OpenApiParameter.QUERY,
    description="Answer as release N holds it (a whole number from 1); a release that does not exist, or does not "
    "hold the record, is a 404. Not with `as_of` or `version`.",
)
_VERSION = OpenApiParameter(
    "version", OpenApiTypes.INT, OpenApiParameter.QUERY,
    description="The record's published version N (a whole number from 1): the permanent link every memento gives. "
    "A version never published is a 404. Not with `as_of` or `release`.",
)
# A record's detail takes any one of the three; a list takes `as_of` or `release` and no filters with them.
DETAIL_SCHEMA = [_AS_OF, _RELEASE, _VERSION]
LIST_SCHEMA = [_AS_OF, _RELEASE]
