"""Admin of sources and their passages.

Passages are made by the importer: their text and offsets prove that they
tile the source, so the admin shows them read-only. A curator changes only a
passage's `role` (body, quotation, boilerplate) and the work it `quotes`.
The source's full text is not shown in the form (a novel runs to megabytes);
its length, hash and file name are.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from archive.importing.spreadsheets import SourceResource
from archive.models import Passage, Source
from archive.services import records

from .base import AuditedAdmin, CuratedAdmin, ReviewStateFilter, SourceListFilter


@admin.register(Source)
class SourceAdmin(CuratedAdmin):
    resource_classes = [SourceResource]
    list_display = (
        "title",
        "slug",
        "author",
        "kind",
        "language",
        "date",
        "is_fiction",
        "length",
        "status",
        "modified_by",
    )
    list_filter = (ReviewStateFilter, "kind", "is_fiction", "language")
    list_select_related = ("modified_by",)
    search_fields = ("title", "slug", "author")
    exclude = ("text",)

    def get_queryset(self, request: HttpRequest) -> Any:
        # The full text is neither listed nor edited here.
        return super().get_queryset(request).defer("text")
    readonly_fields = ("is_fiction", "length", "sha256", "file_name")


@admin.register(Passage)
class PassageAdmin(AuditedAdmin):
    list_display = ("__str__", "seq", "role", "excerpt", "quotes")
    list_filter = ("role", SourceListFilter)
    list_select_related = ("source", "quotes")
    search_fields = ("source__slug", "text")
    autocomplete_fields = ("quotes",)
    fields = ("source", "seq", "role", "quotes", "text", "start", "end", "sha256")
    readonly_fields = ("source", "seq", "text", "start", "end", "sha256")
    # The unique (source, seq) index, not a join on the source's slug.
    ordering = ("source__id", "seq")

    def get_queryset(self, request: HttpRequest) -> Any:
        # Each row shows its source's title, never the source's whole text.
        return super().get_queryset(request).defer("source__text", "quotes__text")

    @admin.display(description=_("text"))
    def excerpt(self, obj: Passage) -> str:
        return Truncator(obj.text).chars(60)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        # A passage's role and the source it quotes decide fiction and quotation: of a
        # published source, a change of them is reviewed like any other change of it.
        if records.child_save(child=obj, parent_field="source", by=request.user) is not None:
            self.message_user(
                request,
                _("Your change of %(passage)s went to review as a change of %(source)s; the published text "
                  "stays as it is until another person approves it.") % {"passage": obj, "source": obj.source},
                messages.SUCCESS,
            )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
