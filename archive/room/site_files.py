"""The two files every client asks the site's root for: `/favicon.ico` and `/robots.txt`."""

from __future__ import annotations

import functools
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

_FAVICON = Path(__file__).resolve().parent.parent / "static" / "room" / "favicon.ico"
# The curators' pages and the language switch are for people, not crawlers; the room and the API are public.
ROBOTS = "User-agent: *\nDisallow: /admin/\nDisallow: /i18n/\nAllow: /\n"


@functools.cache
def _favicon() -> bytes:
    return _FAVICON.read_bytes()


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_favicon(), content_type="image/vnd.microsoft.icon")


@require_safe
@cache_control(max_age=86400, public=True)
def robots(request: HttpRequest) -> HttpResponse:
    return HttpResponse(ROBOTS, content_type="text/plain; charset=utf-8")
