"""Views of the read-only API.

Thin on purpose: the querysets come from `archive.selectors` (approved only,
prefetched), the shapes from the serializers and `archive.api.formats`; plain
JSON is read from the serializers' stored output (`archive.api.stored`). What
lives here is HTTP: which formats an endpoint offers, how `fiction` chooses
records and nested evidence, conditional GET (ETag, Last-Modified, 304) and
errors that are always JSON, whatever format was asked for.
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.db.models import Count, Max, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action, api_view, renderer_classes
from rest_framework.exceptions import ValidationError
from rest_framework.filters import BaseFilterBackend
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.schemas.inspectors import ViewInspector

from archive import mementos, selectors
from archive.api import (
    caching,
    conditional,
    filters,
    formats,
    linked_data,
    memento,
    parameters,
    serializers,
    stored,
    tei,
)
from archive.api.pagination import ArchivePagination
from archive.api.renderers import (
    AnnotationRenderer,
    CSLRenderer,
    CSVRenderer,
    GeoJSONRenderer,
    JsonLdRenderer,
    LinkedPlacesRenderer,
    TeiRenderer,
)
from archive.api.schema import ArchiveAutoSchema
from archive.models import Citation, Curated, Event, Location, Passage, Person, Source, Unit
from archive.selectors import FictionMode


def fiction_mode(request: Request, default: FictionMode = FictionMode.EXCLUDE) -> FictionMode:
    raw = request.query_params.get("fiction")
    if raw is None or raw == "":
        return default
    try:
        return FictionMode(raw)
    except ValueError:
        raise ValidationError(
            {"fiction": [f"“{raw}” is not one of {', '.join(mode.value for mode in FictionMode)}."]}
        ) from None


def _id(raw: str) -> int:
    """A record id from the path; anything but a positive number names no record."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise Http404("No record has this id.")
    return int(raw)


def _written(body: bytes) -> Response:
    """A response whose JSON is already written: a rendered response is left as it is."""
    response = Response()
    response.content = body
    response["Content-Type"] = JSONRenderer.media_type
    return response


def _timestamp(value: dt.datetime) -> int:
    return int(value.timestamp())


# The mixin is always combined with a viewset; the checker is told so, and
# checks its overrides against the viewset's own.
if TYPE_CHECKING:
    _ViewSetBase = viewsets.GenericViewSet
else:
    _ViewSetBase = object


class ArchiveViewMixin(_ViewSetBase):
    """HTTP behaviour shared by every endpoint of the API."""

    schema: ViewInspector | None = ArchiveAutoSchema()
    # Formats besides JSON, by action; a format's builder makes one record's document.
    list_renderers: ClassVar[list[type[BaseRenderer]]] = []
    detail_renderers: ClassVar[list[type[BaseRenderer]]] = []
    last_modified: int | None = None
    cache_key: str | None = None
    checked_filterset: Any = None
    filter_backends: Sequence[type[BaseFilterBackend]] = [filters.CheckedFilterBackend]
    csv_columns: ClassVar[tuple[str, ...]] = ()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        parameters.refuse_nul(request)
        if any("\x00" in str(value) for value in kwargs.values()):
            raise Http404("No record has this name.")
        request.accepted_media_type = caching.canonical_media_type(request)
        # Checked, throttled and negotiated: a stored answer may now be given instead of running the view.
        params = self.canonical_params(request)
        # An answer as of today is read as of now and says so: it is never kept for a later reader.
        self.cache_key = (None if mementos.reads_the_present(request.query_params)
                          else caching.key_for(request, params=params, tags=self.document_tags()))
        stored = caching.fetch(self.cache_key)
        if stored is not None:
            raise caching.CachedResponse(stored)

    @property
    def paginator(self) -> ArchivePagination:
        """Every view of the API pages with `ArchivePagination` (see settings)."""
        paginator = super().paginator
        assert isinstance(paginator, ArchivePagination)
        return paginator

    def document_tags(self) -> builtins.list[str]:
        """The tags of the documents this request shows (`archive.freshness`).

        Its cached answer is served until one of them changes.
        """
        kind = self.basename
        if self.action == "passages":
            return [f"source:{self.kwargs.get('slug', '')}:passages", f"source:{self.kwargs.get('slug', '')}"]
        if self.is_list():
            return [f"{kind}:list"]
        lookup = str(self.kwargs.get(self.lookup_url_kwarg or self.lookup_field, ""))
        if lookup.isascii() and lookup.isdigit():
            lookup = str(int(lookup))  # /passages/007/ is passage 7, and is stale when passage 7 is
        return [f"{kind}:{lookup}"]

    def is_list(self) -> bool:
        return self.action in ("list", "passages")

    def canonical_params(self, request: Request) -> list[tuple[str, str]]:
        """Every query parameter checked (a 400 names a bad or unknown one), as its parsed value."""
        pairs: list[tuple[str, str]] = []
        allowed = {"fiction"}
        if self.is_list():
            self.checked_filterset = filters.check_filters(request=request, view=self)
            if self.checked_filterset is not None:
                allowed |= set(self.checked_filterset.filters)
                for name, value in self.checked_filterset.form.cleaned_data.items():
                    canonical = parameters.canonical_value(value)
                    if canonical is not None and name != "fiction":
                        pairs.append((name, canonical))
            allowed |= parameters.PAGINATION
            pairs += self.paginator.canonical(request)
        names = self.memento_names()
        allowed |= set(names)
        pairs += [(name, request.query_params[name]) for name in names if name in request.query_params]
        parameters.refuse_unknown(request, allowed)
        fiction = request.query_params.get("fiction")
        if fiction:
            pairs.append(("fiction", fiction_mode(request).value))
        return pairs

    def memento_names(self) -> tuple[str, ...]:
        """The parameters of a read as of a date, a release or a version that this action answers."""
        if self.action in ("list", "passages"):
            return memento.LIST_PARAMETERS
        return memento.PARAMETERS if self.action == "retrieve" else ()

    def handle_exception(self, exc: Exception) -> Any:
        if isinstance(exc, caching.CachedResponse):
            return exc.response
        return super().handle_exception(exc)

    def get_renderers(self) -> list[BaseRenderer]:
        if self.action == "passages":
            return [JSONRenderer()]
        extra = self.list_renderers if self.action == "list" else self.detail_renderers
        return [JSONRenderer(), *(renderer() for renderer in extra)]

    def output_format(self) -> str:
        renderer = getattr(self.request, "accepted_renderer", None)
        return renderer.format if renderer is not None else "json"

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and response.status_code >= 400:
            # An error is JSON whatever format was asked for: a CSV of an error helps no one.
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = super().dispatch(request, *args, **kwargs)
        assert isinstance(response, HttpResponse)  # DRF's Response, or one stored by `caching`
        if request.method not in ("GET", "HEAD") or response.status_code != 200:
            return response
        if hasattr(response, "archive_last_modified"):  # from the cache, headers and all
            last_modified = response.archive_last_modified
        else:
            patch_vary_headers(response, ["Accept"])
            if hasattr(response, "render"):
                response.render()
            last_modified = self.last_modified
            conditional.mark(response, last_modified)
            caching.store(self.cache_key, response, last_modified)
        return conditional.answer(request, response, last_modified)

    def note_last_modified(self, queryset: QuerySet | None = None, *values: dt.datetime | None) -> None:
        """Last-Modified: the latest of `values` and of the records of `queryset`, also counted for the pager."""
        moments = [*values]
        if queryset is not None:
            totals = queryset.order_by().aggregate(latest=Max("updated_at"), count=Count("pk"))
            moments.append(totals["latest"])
            self.paginator.known_count = totals["count"]
        stamps = [_timestamp(moment) for moment in moments if moment is not None]
        self.last_modified = max(stamps) if stamps else None

    def reads_stored(self) -> bool:
        """Whether this answer is plain compact JSON, assembled from the stored documents (`archive.api.stored`)."""
        # The schema's generator asks for querysets with a request that negotiated nothing.
        negotiated = getattr(self.request, "accepted_media_type", None)
        return stored.enabled() and negotiated == JSONRenderer.media_type

    @classmethod
    def stored_list_kind(cls) -> str | None:
        """The kind whose list this view answers, when its pages may be stored whole (`stored.page_variant`)."""
        return None

    def whole_page(self) -> tuple[Response | None, stored.PageToKeep | None]:
        """The current stored page this list request names, or else how to keep the page it builds (or neither).

        Call it before the records are read. As a detail's view answers from
        its current document, a list's view answers from its current page a
        request the stored answers passed on (HEAD, a browser's Accept).
        """
        kind = type(self).stored_list_kind()
        if kind is None or self.action != "list" or not self.reads_stored():
            return None, None
        variant = stored.page_variant(self.request.META.get("QUERY_STRING", ""), self.paginator.page_size)
        if variant is None:
            return None, None
        # The stored answers have read it already when it was not current: not read twice in one request.
        current = None if stored.missed(self.request, kind, variant) else stored.current_page(stored.KINDS[kind],
                                                                                              variant)
        if current is not None:
            self.last_modified = current.last_modified
            return _written(stored.single(current.body, self.request)), None
        return None, stored.page_to_keep(stored.KINDS[kind], variant)

    def stored_page(self, queryset: QuerySet, kind: str, mode: FictionMode,
                    keep: stored.PageToKeep | None = None) -> Response:
        """A page of `queryset` (filtered, ordered) as the stored documents of its records; kept whole if `keep`."""
        document_kind = stored.KINDS[kind]
        keys = self.paginate_queryset(queryset.prefetch_related(None).values_list(document_kind.key_field, flat=True))
        assert keys is not None  # every list pages
        documents = stored.documents(document_kind, keys, mode)
        envelope = self.get_paginated_response([]).data
        body = stored.marked_page(envelope, documents, self.request)
        if keep is not None:
            stored.keep_page(keep, body, self.last_modified)
        return _written(stored.single(body, self.request))

    def stored_detail(self, kind: str, key: object) -> Response | None:
        """A detail answered from its current stored document alone, or None while it has none.

        One statement and no record read: the stored facts give its reading
        without `fiction` and its Last-Modified.
        """
        if stored.missed(self.request, kind, key):
            return None  # the stored answers found none current in this request, in the same reading
        detail = stored.current_detail(stored.KINDS[kind], key, lambda default: fiction_mode(self.request, default))
        if detail is None:
            stored.note_missed(self.request, kind, key)
            return None
        self.last_modified = detail.last_modified
        return _written(stored.single(detail.body, self.request))

    def stored_single(self, kind: str, key: object, mode: FictionMode) -> Response:
        # Found not current in this request (`stored_detail`): built without reading the store again.
        found = stored.documents(stored.KINDS[kind], [key], mode, missed=stored.missed(self.request, kind, key))
        if not found:
            raise Http404("No record has this name.")
        return _written(stored.single(found[0], self.request))

    def page_links(self) -> dict[str, str]:
        """Next and previous pages of a format without an envelope, as an RFC 8288 Link header."""
        paginator = self.paginator
        links = [f'<{url}>; rel="{rel}"' for rel, url in
                 (("next", paginator.get_next_link()), ("prev", paginator.get_previous_link())) if url]
        total = paginator.page.paginator.count if paginator.page is not None else 0
        headers = {"X-Total-Count": str(total)}
        if links:
            headers["Link"] = ", ".join(links)
        return headers


class RecordViewSet(ArchiveViewMixin, viewsets.ReadOnlyModelViewSet):
    """A curated record: list with filters, detail by slug."""

    lookup_field = "slug"
    # Anything up to the next slash reaches the view, so that a malformed slug is a JSON 404.
    lookup_value_regex = "[^/]+"
    model: ClassVar[type[Curated]]
    select: ClassVar[staticmethod[[FictionMode], QuerySet]]
    fiction_field: ClassVar[str] = "fictional"
    # Builders of the formats besides JSON, by format name.
    builders: ClassVar[dict[str, Callable[[Any, Any], dict[str, Any]]]] = {}

    def get_queryset(self) -> QuerySet:
        mode = fiction_mode(self.request)
        if self.action == "list" and self.reads_stored():
            # A page of stored documents reads only its records' keys: the prefetches of `select` would be
            # built for nothing (the same records: each `select` is `base_queryset` with its prefetches).
            return selectors.filter_fiction(self.base_queryset(), mode, self.fiction_field)
        return selectors.filter_fiction(type(self).select(mode), mode, self.fiction_field)

    @extend_schema(parameters=memento.LIST_SCHEMA)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if memento.asked(request):  # read from the history, never from the stored documents
            return memento.memento_list(type(self).model, request)
        whole, keep = self.whole_page()
        if whole is not None:
            return whole
        queryset = self.filter_queryset(self.get_queryset())
        self.note_last_modified(queryset)
        if self.reads_stored():
            return self.stored_page(queryset, self.kind(), fiction_mode(request), keep)
        page = self.paginate_queryset(queryset)
        assert page is not None  # every list pages
        fmt = self.output_format()
        if fmt == "json":
            return self.get_paginated_response(self.get_serializer(page, many=True).data)
        documents = [self.builders[fmt](record, request) for record in page]
        return Response(self.collect(fmt, documents), headers=self.page_links())

    def collect(self, fmt: str, documents: builtins.list[dict[str, Any]]) -> Any:
        return linked_data.graph(documents, self.request) if fmt == "jsonld" else documents

    def kind(self) -> str:
        return type(self).model._meta.model_name or ""

    @classmethod
    def stored_list_kind(cls) -> str | None:
        return cls.model._meta.model_name

    @classmethod
    def stored_lookup(cls, kwargs: dict[str, Any]) -> tuple[str, object]:
        """The kind and key of the stored document a detail's path names."""
        return cls.model._meta.model_name or "", kwargs["slug"]

    def base_queryset(self) -> QuerySet:
        return type(self).model.objects.approved()

    def detail_mode(self, record: Any) -> FictionMode:
        """Without `fiction`, a record's evidence follows its own nature."""
        default = FictionMode.INCLUDE if getattr(record, self.fiction_field) else FictionMode.EXCLUDE
        return fiction_mode(self.request, default)

    def get_object(self) -> Any:
        """The record always answers, fictional or not."""
        record = get_object_or_404(self.base_queryset(), slug=self.kwargs["slug"])
        return get_object_or_404(type(self).select(self.detail_mode(record)), pk=record.pk)

    @extend_schema(parameters=memento.DETAIL_SCHEMA)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if memento.asked(request):  # read from the history, never from the stored documents
            return memento.memento_response(type(self).model, self.kwargs["slug"], request)
        if self.reads_stored():
            answer = self.stored_detail(*self.stored_lookup(self.kwargs))
            if answer is not None:
                return answer
        try:
            if self.reads_stored():
                record = get_object_or_404(
                    self.base_queryset().only("pk", "slug", "updated_at", self.fiction_field), slug=self.kwargs["slug"]
                )
                self.note_last_modified(None, record.updated_at)
                return self.stored_single(self.kind(), record.slug, self.detail_mode(record))
            record = self.get_object()
        except Http404:
            moved = self.merged_into(self.kwargs["slug"])
            if moved is None:
                raise
            return moved
        self.note_last_modified(None, record.updated_at)
        fmt = self.output_format()
        if fmt == "json":
            return Response(self.get_serializer(record).data)
        return Response(self.single(fmt, self.builders[fmt](record, request)))

    def single(self, fmt: str, document: dict[str, Any]) -> Any:
        return linked_data.single(document, self.request) if fmt == "jsonld" else document

    def merged_into(self, slug: str) -> Response | None:
        """A slug of a record merged into another answers with a permanent redirect to the survivor."""
        from archive.models.redirects import SlugRedirect

        survivor = SlugRedirect.objects.resolve(type(self).model._meta.label_lower.split(".")[1], slug)
        if survivor is None or survivor == slug:
            return None
        if not self.base_queryset().filter(slug=survivor).exists():
            return None  # redirects answer only for a published survivor
        path = self.request.path.replace(f"/{slug}/", f"/{survivor}/", 1)
        query = self.request.META.get("QUERY_STRING", "")
        location = self.request.build_absolute_uri(path + (f"?{query}" if query else ""))
        return Response(status=301, headers={"Location": location})


class SourceViewSet(RecordViewSet):
    """Sources with their bibliographic data; `?format=csl` gives CSL-JSON, `?format=tei` (one source) TEI P5."""

    model = Source
    select = staticmethod(lambda mode: selectors.sources())
    fiction_field = "is_fiction"
    serializer_class = serializers.SourceSerializer
    filterset_class = filters.SourceFilter
    list_renderers = [CSLRenderer]
    detail_renderers = [CSLRenderer, TeiRenderer]
    builders = {"csl": formats.csl_item}

    @extend_schema(parameters=memento.DETAIL_SCHEMA)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if self.output_format() != "tei":
            return super().retrieve(request, *args, **kwargs)
        source = get_object_or_404(Source.objects.approved(), slug=self.kwargs["slug"])
        self.note_last_modified(None, source.updated_at)
        return Response(tei.document(source, request), content_type=TeiRenderer.media_type + "; charset=utf-8")

    def base_queryset(self) -> QuerySet:
        return selectors.sources()

    def get_queryset(self) -> QuerySet:
        if self.action == "passages":
            return selectors.passages()
        return super().get_queryset()

    @extend_schema(responses=serializers.PassageSerializer(many=True), parameters=memento.LIST_SCHEMA)
    @action(detail=True, methods=["get"], url_path="passages", url_name="passages",
            serializer_class=serializers.PassageSerializer, filterset_class=filters.PassageFilter)
    def passages(self, request: Request, slug: str) -> Response:
        """The passages of a source in order, each with the citations that rest on it."""
        if memento.asked(request):  # read from the history, never from the stored documents
            return memento.source_passages_response(slug, request)
        source = get_object_or_404(selectors.sources(), slug=slug)
        default = FictionMode.INCLUDE if source.is_fiction else FictionMode.EXCLUDE
        mode = fiction_mode(request, default)
        # A page of stored documents reads only the passages' keys: no prefetch of what they show is built.
        rows = selectors.passage_rows() if self.reads_stored() else selectors.passages(mode)
        queryset = selectors.filter_fiction(rows, mode, "source__is_fiction")
        queryset = self.filter_queryset(queryset.filter(source=source))
        self.note_last_modified(None, source.updated_at)
        if self.reads_stored():
            return self.stored_page(queryset, "passage", mode)
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class PassageViewSet(ArchiveViewMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One passage by id, with the citations that rest on it."""

    serializer_class = serializers.PassageSerializer
    lookup_value_regex = "[^/]+"

    def found(self) -> tuple[Passage, FictionMode]:
        """The passage of the path, and the mode of its citations: without `fiction`, its source's nature."""
        passage = get_object_or_404(
            Passage.objects.filter(source__status="approved").select_related("source").only(
                "pk", "source__updated_at", "source__is_fiction"),
            pk=_id(self.kwargs["pk"]),
        )
        default = FictionMode.INCLUDE if passage.source.is_fiction else FictionMode.EXCLUDE
        return passage, fiction_mode(self.request, default)

    def get_object(self) -> Passage:
        passage, mode = self.found()
        return get_object_or_404(selectors.passages(mode), pk=passage.pk)

    @classmethod
    def stored_lookup(cls, kwargs: dict[str, Any]) -> tuple[str, object]:
        """The kind and key of the stored document a detail's path names (Http404 for a key that is no id)."""
        return "passage", _id(kwargs["pk"])

    def memento_names(self) -> tuple[str, ...]:
        return memento.LIST_PARAMETERS  # a passage has no version of its own: it is read with its source

    @extend_schema(parameters=memento.LIST_SCHEMA)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if memento.asked(request):
            return memento.passage_response(_id(self.kwargs["pk"]), request)
        if self.reads_stored():
            answer = self.stored_detail(*self.stored_lookup(self.kwargs))
            if answer is not None:
                return answer
            passage, mode = self.found()
            self.note_last_modified(None, passage.source.updated_at)
            return self.stored_single("passage", passage.pk, mode)
        passage = self.get_object()
        self.note_last_modified(None, passage.source.updated_at)
        return Response(self.get_serializer(passage).data)


class PersonViewSet(RecordViewSet):
    """Persons with their names, posts and participations, each with its citations."""

    model = Person
    select = staticmethod(selectors.persons)
    serializer_class = serializers.PersonSerializer
    filterset_class = filters.PersonFilter
    list_renderers = [CSVRenderer, JsonLdRenderer]
    detail_renderers = [JsonLdRenderer]
    csv_columns = formats.PERSON_COLUMNS
    builders = {"csv": formats.person_row, "jsonld": linked_data.person}


class UnitViewSet(RecordViewSet):
    """Units with their parent, children and posts."""

    model = Unit
    select = staticmethod(selectors.units)
    serializer_class = serializers.UnitSerializer
    filterset_class = filters.UnitFilter
    list_renderers = [CSVRenderer, JsonLdRenderer]
    detail_renderers = [JsonLdRenderer]
    csv_columns = formats.UNIT_COLUMNS
    builders = {"csv": formats.unit_row, "jsonld": linked_data.unit}


class LocationViewSet(RecordViewSet):
    """Places with parent, aliases and coordinates; GeoJSON and Linked Places Format too."""

    model = Location
    select = staticmethod(selectors.locations)
    serializer_class = serializers.LocationSerializer
    filterset_class = filters.LocationFilter
    list_renderers = [GeoJSONRenderer, LinkedPlacesRenderer, CSVRenderer, JsonLdRenderer]
    detail_renderers = [GeoJSONRenderer, LinkedPlacesRenderer, JsonLdRenderer]
    csv_columns = formats.LOCATION_COLUMNS
    builders = {"geojson": formats.geojson_feature, "lpf": formats.lpf_feature, "csv": formats.location_row,
                "jsonld": linked_data.location}

    def collect(self, fmt: str, documents: builtins.list[dict[str, Any]]) -> Any:
        if fmt == "geojson":
            return formats.geojson_collection(documents)
        if fmt == "lpf":
            return formats.lpf_collection(documents)
        return super().collect(fmt, documents)

    def single(self, fmt: str, document: dict[str, Any]) -> Any:
        return {"@context": formats.LPF_CONTEXT, **document} if fmt == "lpf" else super().single(fmt, document)


class EventViewSet(RecordViewSet):
    """Events in chronological order; undated events and invented calendars last."""

    model = Event
    select = staticmethod(selectors.events)
    serializer_class = serializers.EventSerializer
    filterset_class = filters.EventFilter
    list_renderers = [CSVRenderer, JsonLdRenderer]
    detail_renderers = [JsonLdRenderer]
    csv_columns = formats.EVENT_COLUMNS
    builders = {"csv": formats.event_row, "jsonld": linked_data.event}


class CitationViewSet(ArchiveViewMixin, viewsets.ReadOnlyModelViewSet):
    """Citations by id; `?format=annotation` gives W3C Web Annotations, `?format=jsonld` the same in our context."""

    serializer_class = serializers.CitationSerializer
    filterset_class = filters.CitationFilter
    lookup_value_regex = "[^/]+"
    list_renderers = [AnnotationRenderer, JsonLdRenderer]
    detail_renderers = [AnnotationRenderer, JsonLdRenderer]

    def get_queryset(self) -> QuerySet[Citation]:
        mode = fiction_mode(self.request)
        return selectors.filter_fiction(selectors.citations_with_targets(), mode, "passage__source__is_fiction")

    def get_object(self) -> Citation:
        return get_object_or_404(selectors.citations_with_targets(), pk=_id(self.kwargs["pk"]))

    @extend_schema(parameters=memento.LIST_SCHEMA)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if memento.asked(request):  # read from the history, never from the stored documents
            return memento.memento_list(Citation, request, key="id")
        whole, keep = self.whole_page()
        if whole is not None:
            return whole
        queryset = self.filter_queryset(self.get_queryset())
        self.note_last_modified(queryset)
        if self.reads_stored():
            return self.stored_page(queryset, "citation", fiction_mode(request), keep)
        page = self.paginate_queryset(queryset)
        assert page is not None  # every list pages
        if self.output_format() == "json":
            return self.get_paginated_response(self.get_serializer(page, many=True).data)
        if self.output_format() == "jsonld":
            documents = [linked_data.citation(citation, request) for citation in page]
            return Response(linked_data.graph(documents, request), headers=self.page_links())
        paginator = self.paginator
        document = formats.annotation_page(
            [formats.annotation(citation, request, context=False) for citation in page],
            page_url=request.build_absolute_uri(),
            total=paginator.page.paginator.count if paginator.page is not None else 0,
            next_url=paginator.get_next_link(),
            previous_url=paginator.get_previous_link(),
        )
        return Response(document, content_type=AnnotationRenderer.content_type)

    @classmethod
    def stored_list_kind(cls) -> str | None:
        return "citation"

    @classmethod
    def stored_lookup(cls, kwargs: dict[str, Any]) -> tuple[str, object]:
        """The kind and key of the stored document a detail's path names (Http404 for a key that is no id)."""
        return "citation", _id(kwargs["pk"])

    @extend_schema(parameters=memento.DETAIL_SCHEMA)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if memento.asked(request):
            return memento.memento_response(Citation, _id(self.kwargs["pk"]), request, key="id")
        if self.reads_stored():
            answer = self.stored_detail(*self.stored_lookup(self.kwargs))
            if answer is not None:
                return answer
            # Looked up by key alone: its document is built through the visibility rules, so a citation
            # that is not visible has none and answers 404 (testing them here took PostgreSQL 15 ms to plan).
            found = get_object_or_404(Citation.objects.only("pk", "updated_at"), pk=_id(self.kwargs["pk"]))
            self.note_last_modified(None, found.updated_at)
            return self.stored_single("citation", found.pk, FictionMode.INCLUDE)
        citation = self.get_object()
        self.note_last_modified(None, citation.updated_at)
        if self.output_format() == "json":
            return Response(self.get_serializer(citation).data)
        if self.output_format() == "jsonld":
            return Response(linked_data.single(linked_data.citation(citation, request), request))
        return Response(formats.annotation(citation, request), content_type=AnnotationRenderer.content_type)


@extend_schema(responses={(200, "application/ld+json"): OpenApiTypes.OBJECT},
               description="The JSON-LD context named by every `?format=jsonld` document.")
@api_view(["GET"])
@renderer_classes([JsonLdRenderer])
def jsonld_context(request: Request) -> Response:
    return Response(linked_data.context_document(request))
