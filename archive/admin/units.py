"""Admin of units, their aliases and the posts people held in them."""

from __future__ import annotations

from django.contrib import admin

from archive.importing.spreadsheets import PostResource, UnitAliasResource, UnitResource
from archive.models import Post, Unit, UnitAlias

from .base import ChildAdmin, CuratedAdmin, CuratedInlineMixin, FictionalFilter, MergeMixin, ReviewStateFilter


class UnitAliasInline(admin.TabularInline):
    model = UnitAlias
    fields = ("name", "script")
    extra = 1


class PostInline(CuratedInlineMixin, admin.TabularInline):
    model = Post
    fk_name = "unit"
    fields = ("slug", "person", "title", "date_from", "date_to", "acting", "concurrent", "status")
    autocomplete_fields = ("person",)
    extra = 0
    show_change_link = True


@admin.register(Unit)
class UnitAdmin(MergeMixin, CuratedAdmin):
    resource_classes = [UnitResource]
    inlines = [UnitAliasInline, PostInline]
    list_display = ("name", "slug", "echelon", "side", "parent", "fictional", "status", "modified_by")
    list_filter = (ReviewStateFilter, "echelon", "side", FictionalFilter, "marked_historical")
    list_select_related = ("parent", "modified_by")
    search_fields = ("name", "slug", "aliases__name")
    autocomplete_fields = ("parent",)
    actions = (*CuratedAdmin.actions, "merge_selected")


@admin.register(UnitAlias)
class UnitAliasAdmin(ChildAdmin):
    resource_classes = [UnitAliasResource]
    parent_field = "unit"
    list_display = ("name", "unit", "script")
    list_filter = ("script",)
    list_select_related = ("unit",)
    search_fields = ("name", "unit__name", "unit__slug")
    autocomplete_fields = ("unit",)


@admin.register(Post)
class PostAdmin(CuratedAdmin):
    resource_classes = [PostResource]
    list_display = (
        "slug",
        "person",
        "unit",
        "title",
        "date_from",
        "date_to",
        "acting",
        "concurrent",
        "fictional",
        "status",
    )
    list_filter = (ReviewStateFilter, FictionalFilter, "acting", "concurrent", "unit__side")
    list_select_related = ("person", "unit", "modified_by")
    search_fields = ("slug", "title", "person__name", "unit__name")
    autocomplete_fields = ("person", "unit")
