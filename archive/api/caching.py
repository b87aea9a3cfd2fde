"""Rendered API responses, kept until the data they were read from changes.

The API is read far more than the archive is written, and a page of fifty
nested events costs tens of milliseconds of Python to build. A successful
response is stored under everything it depends on and nothing else: the
canonical request (scheme, host, path, the negotiated format, the parsed and
normalised query parameters of `archive.api.parameters`, language) and the
data's version (`archive.data_version`). Neither the raw query string nor
the raw Accept header is part of the key, so spellings of one question share
one entry, and a parameter no endpoint reads is refused before any lookup.
A write anywhere changes the generation, so every stored page becomes
unreachable at once; nothing is invalidated by hand, and a stale page cannot
be served. When the generation cannot be told (inside a transaction that has
written), nothing is read or stored.

The store is the `api` cache of settings (`API_CACHE_SECONDS`, 0 turns it
off), bounded in bytes per process (`API_CACHE_MAX_BYTES`,
`archive.api.bounded_cache`). Throttling and content negotiation still run
for a cached answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse
from django.utils import translation
from rest_framework.renderers import JSONRenderer

from archive import data_version

CACHE_ALIAS = "api"
# A larger document is built again each time rather than crowding out many pages
# (and never more than an eighth of the store's ceiling).
MAX_STORED_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Stored:
    content: bytes
    headers: tuple[tuple[str, str], ...]
    last_modified: int | None


class CachedResponse(Exception):
    """Raised once the request is checked, to answer with a stored response instead of running the view."""

    def __init__(self, response: HttpResponse) -> None:
        super().__init__("served from the response cache")
        self.response = response


def enabled() -> bool:
    return bool(getattr(settings, "API_CACHE_SECONDS", 0))


def max_stored_bytes() -> int:
    ceiling = getattr(caches[CACHE_ALIAS], "max_bytes", None)
    return MAX_STORED_BYTES if ceiling is None else min(MAX_STORED_BYTES, ceiling // 8)


def canonical_media_type(request: Any) -> str:
    """The negotiated media type with only the parameter that changes the output.

    DRF echoes whatever parameters the Accept header carried into the
    response's Content-Type; of those, JSON's `indent` (clamped to 0–8) is the
    only one a renderer reads, so the rest is dropped before the response is
    built and stored.
    """
    renderer = request.accepted_renderer
    if isinstance(renderer, JSONRenderer):
        indent = renderer.get_indent(getattr(request, "accepted_media_type", "") or "", {})
        if indent:
            return f"{renderer.media_type}; indent={indent}"
    return renderer.media_type


def key_for(request: Any, *, params: Sequence[tuple[str, str]]) -> str | None:
    """The cache key of a safe request, or None when its response must be built.

    ``params`` are the request's query parameters as `archive.api.parameters` reduced them.
    """
    if request.method not in ("GET", "HEAD") or not enabled():
        return None
    state = data_version.current()
    if state is None:
        return None
    parts = [
        state,
        request.scheme or "",
        request.get_host(),
        request.path,
        request.accepted_renderer.format,
        canonical_media_type(request),
        translation.get_language() or "",
        *(f"{name}={value}" for name, value in sorted(params)),
    ]
    return "api:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def fetch(key: str | None) -> HttpResponse | None:
    if key is None:
        return None
    stored = caches[CACHE_ALIAS].get(key)
    if not isinstance(stored, Stored):
        return None
    response = HttpResponse(stored.content, headers=dict(stored.headers))
    response.archive_last_modified = stored.last_modified  # type: ignore[attr-defined]  # set here for a later reader
    return response


def store(key: str | None, response: HttpResponse, last_modified: int | None) -> None:
    if key is None or response.status_code != 200 or len(response.content) > max_stored_bytes():
        return
    headers = tuple((name, value) for name, value in response.items())
    caches[CACHE_ALIAS].set(key, Stored(response.content, headers, last_modified))
