"""What the changelists share: a paginator that never counts a huge table, filters, folded search.

Changelists stay cheap on large tables: the paginator counts at most a few
thousand rows and asks PostgreSQL's planner beyond that, the source filter
lists titles without loading any text, the fiction filter reads the stored
flag, and search folds Traditional/Simplified, aliases and pinyin through
`archive.search`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from archive import counting
from archive.text.numbers import whole_number

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class EstimatedCountPaginator(Paginator):
    """A paginator that never runs a full COUNT(*) over a huge table.

    Up to `threshold` rows the count is exact, read by a capped count
    (`SELECT COUNT(*) FROM (… LIMIT threshold+1)`), which costs at most
    `threshold` index entries whatever the size of the table. Beyond it,
    PostgreSQL gives an estimate: `pg_class.reltuples` for the whole table,
    the planner's row estimate for a filtered list. Other databases keep the
    capped count, so the last pages of a huge unfiltered list are reached by
    narrowing the list, not by paging.
    """

    threshold = 10_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if not isinstance(queryset, QuerySet):
            return super().count
        capped = queryset[: self.threshold + 1].count()
        if capped <= self.threshold:
            return capped
        return max(capped, counting.planner_estimate(queryset) or 0)


class SourceListFilter(admin.SimpleListFilter):
    """Filter by source, listing titles only: Django's own filter loads every
    source whole, full text included (hundreds of megabytes at scale)."""

    title = _("source")
    parameter_name = "source"
    lookup = "source_id"

    def lookups(self, request: HttpRequest, model_admin: Any) -> Sequence[tuple[Any, str]]:
        from archive.models import Source

        return [(str(pk), title) for pk, title in Source.objects.order_by("title", "pk").values_list("pk", "title")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None:
            return queryset
        number = whole_number(value)
        if number is None:
            return queryset.none()  # a hand-typed value that names no source
        return queryset.filter(**{self.lookup: number})


class PassageSourceListFilter(SourceListFilter):
    lookup = "passage__source_id"


class FictionalFilter(admin.SimpleListFilter):
    """Filter on the stored `fictional` flag (kept by `archive.fiction`)."""

    title = _("fictional")
    parameter_name = "fictional"

    def lookups(self, request: HttpRequest, model_admin: Any) -> Sequence[tuple[str, StrOrPromise]]:
        return [("yes", _("fictional")), ("no", _("historical or uncited"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(fictional=True)
        if self.value() == "no":
            return queryset.filter(fictional=False)
        return queryset


class ReviewStateFilter(admin.SimpleListFilter):
    """Filter by review state: the four statuses, and "changes requested" beside them.

    A record returned with changes requested is a draft again whose thread
    holds the reviewer's request (as "My work" reads it); the parameter is the
    one of Django's own status filter, so that links to it keep working.
    """

    title = _("status")
    parameter_name = "status__exact"
    CHANGES_REQUESTED = "changes_requested"

    def lookups(self, request: HttpRequest, model_admin: Any) -> Sequence[tuple[str, StrOrPromise]]:
        from archive.models import Status

        return [*Status.choices, (self.CHANGES_REQUESTED, _("changes requested"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        from django.contrib.contenttypes.models import ContentType
        from django.db.models import Exists, OuterRef

        from archive.models import Comment, CommentKind, Status

        value = self.value()
        if value is None:
            return queryset
        if value == self.CHANGES_REQUESTED:
            requested = Comment.objects.filter(
                subject_type=ContentType.objects.get_for_model(queryset.model),
                subject_id=OuterRef("pk"),
                kind=CommentKind.CHANGES_REQUESTED,
            )
            return queryset.filter(Exists(requested), status=Status.DRAFT)
        if value in Status.values:
            return queryset.filter(status=value)
        return queryset.none()  # a hand-typed value that names no state


class SearchMixin:
    """Search that folds Traditional/Simplified, aliases and pinyin, via `archive.search`.

    Falls back to Django's `search_fields` when the search module cannot
    answer for this model.
    """

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> tuple[QuerySet, bool]:
        if not search_term.strip():
            return queryset, False
        try:
            from archive.search import filter_queryset

            return filter_queryset(queryset, search_term), False
        except (ImportError, TypeError, ValueError):
            return super().get_search_results(request, queryset, search_term)  # type: ignore[misc]  # a mixin: the class it joins has the method
