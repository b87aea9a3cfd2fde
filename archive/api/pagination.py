"""Page-number pagination as the contract names it: `page`, `page_size` ≤ 200.

DRF silently clamps a page size above the maximum and falls back to the
default for a malformed one; the contract wants a 400 that names the
parameter instead, so a client never mistakes a short page for the end.
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 200


def _positive_int(request: Any, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: [f"“{raw}” is not a whole number."]}) from None
    if value < 1:
        raise ValidationError({name: [f"{name} must be at least 1."]})
    return value


class ArchivePagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    # The number of results when the view has counted them already (with their Last-Modified, in one statement).
    known_count: int | None = None

    def django_paginator_class(self, object_list: Any, per_page: int) -> Paginator:  # type: ignore[override]  # a factory, as DRF calls it
        paginator = Paginator(object_list, per_page)
        if self.known_count is not None:
            paginator.count = self.known_count
        return paginator

    def get_page_size(self, request: Any) -> int:
        size = _positive_int(request, self.page_size_query_param)
        if size is None:
            return self.page_size
        if size > self.max_page_size:
            raise ValidationError(
                {self.page_size_query_param: [f"page_size is at most {self.max_page_size}; {size} was asked for."]}
            )
        return size

    def canonical(self, request: Any) -> list[tuple[str, str]]:
        """`page` and `page_size`, checked, as numbers; the first page and the default size are left out."""
        pairs: list[tuple[str, str]] = []
        raw_page = request.query_params.get(self.page_query_param)
        if raw_page in self.last_page_strings:
            pairs.append((self.page_query_param, "last"))
        else:
            page = _positive_int(request, self.page_query_param)
            if page not in (None, 1):
                pairs.append((self.page_query_param, str(page)))
        size = self.get_page_size(request)
        if size != self.page_size:
            pairs.append((self.page_size_query_param, str(size)))
        return pairs

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> list[Any] | None:
        if request.query_params.get(self.page_query_param) not in self.last_page_strings:
            _positive_int(request, self.page_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
                parameter["schema"]["default"] = self.page_size
                parameter["description"] = f"Number of results per page, 1 to {self.max_page_size}."
        return parameters
