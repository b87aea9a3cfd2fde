"""Admin of places and their aliases."""

from __future__ import annotations

from django.contrib import admin

from archive.importing.spreadsheets import LocationAliasResource, LocationResource
from archive.models import Location, LocationAlias

from .base import ChildAdmin, CuratedAdmin, FictionalFilter, MergeMixin, ReviewStateFilter


class LocationAliasInline(admin.TabularInline):
    model = LocationAlias
    fields = ("name", "language", "note")
    extra = 1


@admin.register(Location)
class LocationAdmin(MergeMixin, CuratedAdmin):
    resource_classes = [LocationResource]
    inlines = [LocationAliasInline]
    list_display = ("name", "slug", "kind", "parent", "latitude", "longitude", "fictional", "status", "modified_by")
    list_filter = (ReviewStateFilter, "kind", FictionalFilter, "marked_historical")
    list_select_related = ("parent", "modified_by")
    search_fields = ("name", "slug", "aliases__name")
    autocomplete_fields = ("parent",)
    actions = (*CuratedAdmin.actions, "merge_selected")


@admin.register(LocationAlias)
class LocationAliasAdmin(ChildAdmin):
    resource_classes = [LocationAliasResource]
    parent_field = "location"
    list_display = ("name", "location", "language", "note")
    list_filter = ("language",)
    list_select_related = ("location",)
    search_fields = ("name", "location__name", "location__slug")
    autocomplete_fields = ("location",)
