"""Rendered API responses, kept until the records they show change.

The API is read far more than the archive is written, and a page of fifty
nested events costs tens of milliseconds of Python to build. A successful
response is stored under everything it depends on and nothing else: the
canonical request (scheme, host, path, the negotiated format, the parsed and
normalised query parameters of `archive.api.parameters`, language) and the
versions of the document tags the view names (`archive.models.document_versions`:
the record's own tag for a detail, its kind's list tag for a list, and `*`).
Neither the raw query string nor the raw Accept header is part of the key, so
spellings of one question share one entry, and a parameter no endpoint reads
is refused before any lookup.

A write bumps the tags of the documents that show what it wrote
(`archive.freshness`), so the stored pages of those documents become
unreachable and every other page stays: a curator editing one event leaves
the cached persons it does not nest alone. The versions are read before the
document is built, so a page is never stored under a version newer than the
data it shows. Inside a transaction nothing is read or stored: its own writes
may yet be rolled back.

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
from django.db import connections, router
from django.http import HttpResponse
from django.utils import translation
from rest_framework.renderers import JSONRenderer

from archive.models import DocumentVersion
from archive.models.document_versions import EVERYTHING

CACHE_ALIAS = "api"
# Marks an answer given from the store, so that a load test can count its hits.
HIT_HEADER = "X-Archive-Cache"
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


def tag_versions(tags: Sequence[str]) -> str | None:
    """The versions of `tags` and of `*`, as one token; None inside a transaction."""
    alias = router.db_for_read(DocumentVersion)
    if connections[alias].in_atomic_block:
        return None  # a rollback would bring back versions seen with writes that never happened
    versions = DocumentVersion.objects.versions([EVERYTHING, *tags], using=alias)
    return f"{alias}:" + ",".join(f"{tag}={version}" for tag, version in versions.items())


def key_for(request: Any, *, params: Sequence[tuple[str, str]], tags: Sequence[str]) -> str | None:
    """The cache key of a safe request, or None when its response must be built.

    ``params`` are the request's query parameters as `archive.api.parameters`
    reduced them; ``tags`` name the documents the response shows.
    """
    if request.method not in ("GET", "HEAD") or not enabled():
        return None
    state = tag_versions(tags)
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
    response[HIT_HEADER] = "hit"
    response.archive_last_modified = stored.last_modified  # type: ignore[attr-defined]  # set here for a later reader
    return response


def store(key: str | None, response: HttpResponse, last_modified: int | None) -> None:
    if key is None or response.status_code != 200 or len(response.content) > max_stored_bytes():
        return
    headers = tuple((name, value) for name, value in response.items())
    caches[CACHE_ALIAS].set(key, Stored(response.content, headers, last_modified))
