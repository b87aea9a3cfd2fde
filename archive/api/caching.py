"""Rendered API responses, kept until the data they were read from changes.

The API is read far more than the archive is written, and a page of fifty
nested events costs tens of milliseconds of Python to build. A successful
response is stored under everything it depends on: the request (scheme,
host, path with its query string, Accept header, language) and the data's
generation (`archive.data_version`). A write anywhere changes the generation,
so every stored page becomes unreachable at once; nothing is invalidated by
hand, and a stale page cannot be served. When the generation cannot be told
(inside a transaction that has written), nothing is read or stored.

The store is the `api` cache of settings (`API_CACHE_SECONDS`, 0 turns it
off). Throttling and content negotiation still run for a cached answer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from archive import data_version

CACHE_ALIAS = "api"
# A larger document is built again each time rather than crowding out many pages.
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


def key_for(request: HttpRequest) -> str | None:
    """The cache key of a safe request, or None when its response must be built."""
    if request.method not in ("GET", "HEAD") or not enabled():
        return None
    state = data_version.current()
    if state is None:
        return None
    parts = [
        state,
        request.scheme or "",
        request.get_host(),
        request.get_full_path(),
        request.META.get("HTTP_ACCEPT", ""),
        translation.get_language() or "",
    ]
    return "api:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def fetch(key: str | None) -> HttpResponse | None:
    if key is None:
        return None
    stored = caches[CACHE_ALIAS].get(key)
    if not isinstance(stored, Stored):
        return None
    response = HttpResponse(stored.content, headers=dict(stored.headers))
    response.archive_last_modified = stored.last_modified  # type: ignore[attr-defined]
    return response


def store(key: str | None, response: HttpResponse, last_modified: int | None) -> None:
    if key is None or response.status_code != 200 or len(response.content) > MAX_STORED_BYTES:
        return
    headers = tuple((name, value) for name, value in response.items())
    caches[CACHE_ALIAS].set(key, Stored(response.content, headers, last_modified))
