"""The curators' admin: one module per area, plus the shared machinery in `base`.

Django's admin autodiscovery imports this package; importing the area modules
registers every model. The curators' own pages (source reader, review queue)
are routed separately, by `curator_urls`.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from archive.models import SlugRedirect

from . import audit, citations, events, people, places, releases, sources, statements, units
from .base import AuditedAdmin

__all__ = ["audit", "citations", "events", "people", "places", "releases", "sources", "statements", "units"]


@admin.register(SlugRedirect)
class SlugRedirectAdmin(AuditedAdmin):
    """Redirects are written by merges only; the admin shows them."""

    list_display = ("model", "old_slug", "new_slug", "created_at", "created_by", "note")
    list_filter = ("model",)
    list_select_related = ("created_by",)
    search_fields = ("old_slug", "new_slug")
    readonly_fields = ("model", "old_slug", "new_slug", "note", "created_at", "created_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
