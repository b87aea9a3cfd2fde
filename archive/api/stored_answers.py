"""Plain reads of one record or of a list's page, answered from a stored document before the rest of the stack.

A detail of the API read in plain JSON, with no parameter, is one current
stored document (`archive.api.stored`): one indexed statement, and the
answer is the document's bytes with the request's origin written in. So is
a page of a list as it is first shown and paged (no filter, the default
size: `stored.page_variant`), once its view has built and stored it. Going
on through the rest of the middleware, URL resolution, DRF's request, its
negotiation and the view cost about as much again as the statement, and
small documents are what clients read most. So this middleware, placed in
the stack as WhiteNoise is for static files, answers those requests itself.

What still runs for such an answer, as for any request: the middleware
before this one (request log, replica choice, security headers, CORS, the
language), the API's throttle, and the validators and conditional GET of
`archive.api.conditional`. Its headers are the view's (`Allow`, `Vary`, the
validators); `X-Archive-Cache: stored` says which way it came.

On PostgreSQL a document that is not current (a write has touched its
record since it was built) is built here too, in one SQL statement, stored
and answered (`stored.built_detail`, `X-Archive-Cache: built`); so is a
page that is not current when every document on it is stale as well
(`stored.built_page`).

Everything else goes on to the view, which answers it as before: another
format, any query parameter of a detail (and any but the page's of a list),
a method but GET, a path that names no record or no stored kind, a document
that is not current on SQLite, a page whose list alone has moved (the view
reads its records' documents, most of them current), and a client the
throttle refuses (the view then answers 429 in its usual words; a refused
request spends nothing, so the second check refuses too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.urls import NoReverseMatch, Resolver404, ResolverMatch, URLResolver, get_resolver, get_urlconf, reverse
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from archive.api import caching, conditional, stored

# The Accept headers that DRF answers with plain JSON, the first renderer of every detail.
_PLAIN = frozenset({"", "*/*", JSONRenderer.media_type})
STORED = "stored"
BUILT = "built"  # not current, so built and stored by this middleware (`stored.built_detail`, `built_page`)
# Paths remembered by `_resolved` are at most this long, so that its 1,024 entries stay small.
_REMEMBERED_PATH_LENGTH = 512


@functools.lru_cache(maxsize=1024)
def _resolved(resolver: URLResolver, path: str) -> ResolverMatch:
    """`resolver.resolve(path)`, remembered: a path resolves the same way while its URL configuration stands.

    Keyed by the resolver itself, which Django makes again when the
    configuration changes (`clear_url_caches`). Resolving a path through
    every route costs about as much as a stored answer's statement.
    """
    return resolver.resolve(path)


def _view(request: HttpRequest) -> tuple[APIView, str, dict[str, Any]] | None:
    """The viewset instance that would answer a detail or a list (bound as DRF binds it), its action and kwargs."""
    resolver, path = get_resolver(get_urlconf()), request.path_info
    try:
        match = _resolved(resolver, path) if len(path) <= _REMEMBERED_PATH_LENGTH else resolver.resolve(path)
    except Resolver404:
        return None
    # What DRF's `as_view` marks on the view function it makes for a viewset.
    view_class: type[APIView] | None = getattr(match.func, "cls", None)
    actions: dict[str, str] = getattr(match.func, "actions", None) or {}
    action = actions.get("get")
    stored_kinds = view_class is not None and hasattr(view_class, "stored_lookup")
    if view_class is None or action not in ("retrieve", "list") or not stored_kinds:
        return None
    view = view_class(**getattr(match.func, "initkwargs", {}))
    # Bound as DRF's `as_view` binds them (HEAD as GET where the viewset names none), for `Allow`.
    for method, name in {"head": action, **actions}.items():
        setattr(view, method, getattr(view, name))
    return view, action, match.kwargs


def _allowed(view: APIView, request: HttpRequest) -> bool:
    """The API's throttles, counted as for any request of the API (DRF's request, no authentication)."""
    api_request = Request(request)
    return all(throttle.allow_request(api_request, view) for throttle in view.get_throttles())


class StoredAnswerMiddleware:
    """Answer a plain JSON detail from its current stored document; pass anything else on."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.prefix: str | None = None

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        answer = self.stored_answer(request) if self.plain(request) else None
        return answer if answer is not None else self.get_response(request)

    def plain(self, request: HttpRequest) -> bool:
        """A GET of the API in plain JSON (its parameters are checked by the kind of answer)."""
        if self.prefix is None:
            try:
                self.prefix = reverse("api:api-root")
            except NoReverseMatch:  # a URL configuration without the API
                self.prefix = ""
        return (
            request.method == "GET"
            and bool(self.prefix)
            and request.path.startswith(self.prefix)  # both with the script's prefix, where it has one
            and request.META.get("HTTP_ACCEPT", "").strip() in _PLAIN
            and stored.enabled()
        )

    def stored_answer(self, request: HttpRequest) -> HttpResponseBase | None:
        found = _view(request)
        if found is None:
            return None
        view, action, kwargs = found
        detail = self.stored_page(view, request) if action == "list" else self.stored_detail(view, request, kwargs)
        if detail is None or not _allowed(view, request):
            return None
        response = HttpResponse(stored.single(detail.body, request), content_type=JSONRenderer.media_type)
        for name, value in view.default_response_headers.items():
            response[name] = value
        response[caching.HIT_HEADER] = BUILT if detail.built else STORED
        conditional.mark(response, detail.last_modified)
        return conditional.answer(request, response, detail.last_modified)

    def stored_detail(self, view: APIView, request: HttpRequest, kwargs: dict[str, Any]) -> stored.Detail | None:
        """The current document of the record a detail's path names, read as it is without `fiction`."""
        if request.META.get("QUERY_STRING") or any("\x00" in str(value) for value in kwargs.values()):
            return None  # a parameter is the view's to read; a NUL the view's to refuse in its words
        try:
            kind, key = type(view).stored_lookup(kwargs)  # type: ignore[attr-defined]  # checked in `_view`
        except Http404:
            return None
        found = stored.current_detail(stored.KINDS[kind], key, lambda default: default)
        if found is None:
            # Not current: built here where SQL builds it (PostgreSQL), else by the view.
            found = stored.built_detail(stored.KINDS[kind], key)
        if found is None:
            stored.note_missed(request, kind, key)
        return found

    def stored_page(self, view: APIView, request: HttpRequest) -> stored.Detail | None:
        """The current stored page a list's query names (`stored.page_variant`: no filter, the default size)."""
        kind = type(view).stored_list_kind()  # type: ignore[attr-defined]  # every viewset with stored kinds
        page_size = view.paginator.page_size  # type: ignore[attr-defined]  # every list of the API pages
        variant = stored.page_variant(request.META.get("QUERY_STRING", ""), page_size)
        if kind is None or variant is None:
            return None
        page = stored.stored_page(stored.KINDS[kind], variant)
        found = page.current
        if found is None and page.all_stale:
            # Built here whole where SQL builds it (PostgreSQL); when only the list moved, the view reads
            # its records' documents, most of them current, and builds the others.
            found = stored.built_page(stored.KINDS[kind], variant, request, page_size)
        if found is None:
            stored.note_missed(request, kind, variant)
        return found
