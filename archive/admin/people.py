"""Admin of people and the forms of their names."""

from __future__ import annotations

from django.contrib import admin

from archive.importing.spreadsheets import PersonNameResource, PersonResource
from archive.models import Person, PersonName

from .base import ChildAdmin, CuratedAdmin, FictionalFilter, MergeMixin, ReviewStateFilter


class PersonNameInline(admin.TabularInline):
    model = PersonName
    fields = ("name", "kind", "script", "note")
    extra = 1


@admin.register(Person)
class PersonAdmin(MergeMixin, CuratedAdmin):
    resource_classes = [PersonResource]
    inlines = [PersonNameInline]
    list_display = ("name", "slug", "side", "birth", "death", "fictional", "marked_historical", "status", "modified_by")
    list_filter = (ReviewStateFilter, "side", FictionalFilter, "marked_historical")
    list_select_related = ("modified_by",)
    search_fields = ("name", "slug", "names__name")
    actions = (*CuratedAdmin.actions, "merge_selected")


@admin.register(PersonName)
class PersonNameAdmin(ChildAdmin):
    resource_classes = [PersonNameResource]
    parent_field = "person"
    list_display = ("name", "person", "kind", "script", "note")
    list_filter = ("kind", "script")
    list_select_related = ("person",)
    search_fields = ("name", "person__name", "person__slug")
    autocomplete_fields = ("person",)
