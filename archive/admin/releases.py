"""Releases in the admin: listed read only; a reviewer's button makes one (`archive.importing.release_view`)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from archive.models import Release
from archive.services.releases import can_make_release


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("number", "made_at", "made_by", "note")
    readonly_fields = ("number", "made_at", "made_by", "note", "changelog", "contributors")
    exclude = ("published",)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)  # releases are public

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the database refuses it too

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        context = {**(extra_context or {}), "can_make_release": can_make_release(request.user)}
        return super().changelist_view(request, extra_context=context)
