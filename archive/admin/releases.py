"""Releases in the admin: listed read only, and made by a reviewer with one button."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _

from archive.importing.releases import ReleaseError, can_make_release, make_release
from archive.models import Release


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

    def get_urls(self) -> list[URLPattern]:
        make = path("make/", self.admin_site.admin_view(self.make_view), name="archive_release_make")
        return [make, *super().get_urls()]

    def make_view(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        listing = reverse("admin:archive_release_changelist")
        if not can_make_release(request.user):
            messages.error(request, _("Only a reviewer makes a release."))
            return HttpResponseRedirect(listing)
        try:
            release = make_release(by=request.user.get_username(), base_url=request.build_absolute_uri("/"),
                                   note=request.POST.get("note", "")[:500])
        except ReleaseError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, _("Release %(number)s was made.") % {"number": release.number})
        return HttpResponseRedirect(listing)
