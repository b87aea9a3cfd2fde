"""`/api/v1/search/`: the search interface of `archive.search` as a paginated, read-only endpoint.

A thin layer: it validates the parameters (a bad or unknown one, or one
holding a NUL character, is a 400 naming it), pages through
`archive.search.find` with the archive's pagination, and turns each hit's API
path into an absolute URL for the request. It answers in JSON only.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from archive import mementos, search
from archive.api import parameters
from archive.api.pagination import ArchivePagination


class SearchUnavailable(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "Search is not available on this database."
    default_code = "search_unavailable"


class HitSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=search.TYPES, read_only=True)
    id = serializers.IntegerField(read_only=True)
    slug = serializers.CharField(read_only=True, allow_null=True, help_text="None for passages.")
    title = serializers.CharField(read_only=True, help_text="Name or title; for a passage “<source title> §<seq>”.")
    url = serializers.SerializerMethodField(help_text="The record's API URL.")
    matched = serializers.ChoiceField(choices=["name", "alias", "pinyin", "title", "text"], read_only=True)
    snippet = serializers.CharField(read_only=True, help_text="HTML-escaped, the match inside <mark>…</mark>.")
    start = serializers.IntegerField(read_only=True, allow_null=True, help_text="Passages: offset of the match.")
    end = serializers.IntegerField(read_only=True, allow_null=True)
    score = serializers.IntegerField(
        read_only=True, help_text="Lower is better: 0 exact name, 1 name contains, 2 alias, 3 pinyin, 4 passage."
    )
    fictional = serializers.BooleanField(read_only=True)

    def get_url(self, hit: search.Hit) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(hit.path) if request is not None else hit.path


def _types(request: Request) -> list[str] | None:
    values = [part.strip() for value in request.query_params.getlist("type") for part in value.split(",")]
    return [value for value in values if value] or None


class SearchPagination(ArchivePagination):
    """The archive's pages plus `count_exact`: a very common term's passages are estimated, not counted."""

    count_exact = True

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> list[Any] | None:
        page = super().paginate_queryset(queryset, request, view)
        self.count_exact = bool(getattr(queryset, "count_exact", True))
        return page

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data = {**response.data, "count_exact": self.count_exact}
        return response

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["count_exact"] = {
            "type": "boolean",
            "description": (
                f"False when more than {search.EXACT_COUNT_UP_TO:,} passages match and `count` is the "
                "database's estimate; pages past the true end are then empty."
            ),
        }
        paginated["required"] = [*paginated.get("required", []), "count_exact"]
        return paginated


class SearchView(GenericAPIView):
    """Search names, aliases and passage text, folded (Traditional/Simplified, case, pinyin)."""

    serializer_class = HitSerializer
    pagination_class = SearchPagination
    filter_backends: list[Any] = []
    # JSON only: DRF's browsable page wants a queryset, and a search result is none.
    renderer_classes = [JSONRenderer]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        parameters.refuse_nul(request)
        parameters.refuse_unknown(request, {"q", "fiction", "type", *mementos.LIST_PARAMETERS,
                                            *parameters.PAGINATION})

    @extend_schema(
        summary="Search the archive",
        description=(
            "Typed hits (person, unit, location, event, source, passage) ranked: an exact name, a name "
            "containing the query, an alias, a pinyin match, then passage mentions. Only approved records "
            "and passages of approved sources. The query is folded: Traditional and Simplified forms, "
            "full-width forms and case compare equal, and names match by toneless pinyin."
        ),
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, required=True,
                             description=f"The query, 1–{search.MAX_QUERY_LENGTH} characters."),
            OpenApiParameter("fiction", OpenApiTypes.STR, enum=list(search.FICTION_CHOICES), default="exclude",
                             description="Hits on fictional records and fiction sources: exclude, include or only."),
            OpenApiParameter("type", OpenApiTypes.STR, many=True, explode=False,
                             description=f"Restrict to these types (comma-separated): {', '.join(search.TYPES)}."),
            OpenApiParameter("as_of", OpenApiTypes.STR,
                             description="Search the archive as published at this moment (a date, the end of that "
                             "day UTC, or an ISO 8601 moment): names, aliases and passage text then, read from the "
                             "history. The answer carries `Memento-Datetime` and `Link` (RFC 7089). Not with "
                             "`release`."),
            OpenApiParameter("release", OpenApiTypes.INT,
                             description="Search the archive as release N holds it; an unknown release is a 404."),
        ],
        responses={200: HitSerializer(many=True)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        as_of = mementos.asked(request.query_params)
        try:
            query, fiction = request.query_params.get("q", ""), request.query_params.get("fiction", "exclude")
            results: search.SearchResults | search.AsOfResults = (
                search.find_as_of(query, request.query_params, fiction=fiction, types=_types(request)) if as_of
                else search.find(query, fiction=fiction, types=_types(request))
            )
            # The paginator pages any sequence; the stubs ask for a queryset.
            page: list[Any] | None = self.paginate_queryset(results)  # type: ignore[arg-type]  # the paginator pages any sequence
        except search.QueryError as error:
            raise ValidationError({error.param: [error.message]}) from error
        except search.SearchBackendError as error:
            raise SearchUnavailable(str(error)) from error
        serializer = self.get_serializer(page, many=True)
        response = self.get_paginated_response(serializer.data)
        if isinstance(results, search.AsOfResults):
            return _as_memento(response, results.read, request)
        return response


def _as_memento(response: Response, read: mementos.Listing, request: Request) -> Response:
    """A search of the past says when it reads, links the current search and keeps its own address (RFC 7089)."""
    kept = [(name, value) for name, values in request.query_params.lists() for value in values
            if name not in mementos.LIST_PARAMETERS]
    current = request.build_absolute_uri(f"{request.path}?{urlencode(kept)}")
    held = (f"release={read.release.number}" if read.release is not None
            else f"as_of={mementos.moment_text(read.read_at)}")
    permanent = f"{current}&{held}"
    response.data = {**response.data, "memento": {
        "read_as_of": read.read_at.isoformat(), "current": current, "permalink": permanent,
        **({"release": read.release.number} if read.release is not None else {})}}
    return mementos.mark(response, original=current, memento=permanent, moment=read.read_at)
