"""Admin of citations: the exact words of a passage that are evidence for a record.

The quote is typed or pasted; its offsets follow from it (`Citation.clean()`
finds it in the passage, after folding if need be, and refuses it with the
closest match when it is absent), so `start` and `end` are read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from archive.importing.spreadsheets import CitationResource
from archive.models import TARGET_FIELDS, Citation

from .base import CuratedAdmin, EstimatedCountPaginator, PassageSourceListFilter, ReviewStateFilter


def field_label(model: type[models.Model], name: str) -> Any:
    """The verbose name of `model`'s own field `name` (`get_field` may also return a reverse relation)."""
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field.verbose_name


class TargetFilter(admin.SimpleListFilter):
    title = _("evidence for")
    parameter_name = "target"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [(name, field_label(Citation, name)) for name in TARGET_FIELDS]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in TARGET_FIELDS:
            return queryset.filter(**{f"{self.value()}__isnull": False})
        return queryset


class FromFictionFilter(admin.SimpleListFilter):
    """A citation is fictional when its passage comes from fiction."""

    title = _("fictional")
    parameter_name = "fictional"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("from fiction")), ("no", _("from history"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in ("yes", "no"):
            return queryset.filter(passage__source__is_fiction=self.value() == "yes")
        return queryset


@admin.register(Citation)
class CitationAdmin(CuratedAdmin):
    resource_classes = [CitationResource]
    paginator = EstimatedCountPaginator
    list_display = ("excerpt", "passage", "target", "claim", "rank", "from_fiction", "status", "modified_by")
    list_filter = (ReviewStateFilter, "rank", TargetFilter, FromFictionFilter, PassageSourceListFilter)
    list_select_related = (
        "passage__source",
        "person",
        "unit",
        "location",
        "event",
        "post",
        "participation",
        "modified_by",
    )
    search_fields = ("quote", "claim", "slug")
    autocomplete_fields = ("passage", *TARGET_FIELDS)
    fields = ("passage", "quote", "start", "end", "claim", "rank", *TARGET_FIELDS, "slug")
    readonly_fields = ("start", "end", "slug")
    # Newest first, by the primary key: the model's order joins passage and source.
    ordering = ("-pk",)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Rows name their passage and source; the source's whole text stays in the database.
        return super().get_queryset(request).defer("passage__source__text")

    @admin.display(description=_("quote"))
    def excerpt(self, obj: Citation) -> str:
        return Truncator(obj.quote).chars(40)

    @admin.display(description=_("evidence for"))
    def target(self, obj: Citation) -> str:
        name = obj.target_field
        if name is None:
            return "—"
        record = getattr(obj, name)
        label = record.slug if name in ("post", "participation") else str(record)
        return f"{field_label(Citation, name)}: {label}"

    @admin.display(boolean=True, description=_("from fiction"), ordering="passage__source__is_fiction")
    def from_fiction(self, obj: Citation) -> bool:
        return obj.passage.source.is_fiction
