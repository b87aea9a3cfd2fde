"""HTTP of the reconciliation service: GET and form POST alike, JSON out, errors in one shape.

OpenRefine posts its batches as a form (`queries=…`, `extend=…`) without a
CSRF token, and the service changes nothing, so the views are exempt from
CSRF. Every answer allows any origin (CORS, which the specification
requires), a preflight included; the API's CORS settings, which refuse POST,
are left as they are. Every refusal is a JSON object
`{"status": …, "param": …, "error": …}` with a 4xx status; nothing answers 500.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from archive.api.serializers import reverse as api_reverse
from archive.models import Echelon, Side
from archive.models.registry import FictionMode
from archive.search import SearchBackendError
from archive.search import candidates as names
from archive.throttle import RECONCILE, retry_after, too_many

from . import draft, extend, scoring, suggest
from .batch import ReconcileError, parse_json, read_batch, read_query
from .evidence import READERS
from .manifest import manifest
from .types import PROPERTIES, TYPES, parse_entity_id

View = Callable[..., HttpResponse]


def _json(document: Any, status: int = 200) -> JsonResponse:
    return JsonResponse(document, status=status, json_dumps_params={"ensure_ascii": False})


def _error(param: str, message: str, status: int = 400) -> JsonResponse:
    return _json({"status": status, "param": param, "error": message}, status=status)


def answers(view: View) -> View:
    """GET, HEAD and POST; a refusal of the service becomes its JSON error."""

    @csrf_exempt
    @require_http_methods(["GET", "HEAD", "POST", "OPTIONS"])
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "OPTIONS":
            response: HttpResponse = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, HEAD, POST, OPTIONS"
            response["Access-Control-Allow-Headers"] = request.headers.get(
                "Access-Control-Request-Headers", "Content-Type")
            response["Access-Control-Max-Age"] = "86400"
        else:
            response = _answer(view, request, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        return response

    return wrapped


def _answer(view: View, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    seconds = retry_after(request, RECONCILE)
    if seconds is not None:
        message = _("Too many requests from this client: try again in %(seconds)d s.") % {"seconds": seconds}
        return too_many(seconds, _error("rate", message, 429))
    params = request.POST if request.method == "POST" else request.GET
    for name, values in params.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            return _error(name.replace("\x00", "\\0"), _("A parameter cannot contain a NUL character."))
    try:
        return view(request, params, *args, **kwargs)
    except ReconcileError as error:
        return _error(error.param, error.message, error.status)
    except SearchBackendError as error:
        return _error("database", str(error), 503)


def _int(params: Any, name: str, default: int) -> int:
    raw = params.get(name)
    if raw in (None, ""):
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise ReconcileError(name, _("%(name)s must be a whole number.") % {"name": name})
    return int(raw)


def _type(params: Any) -> str | None:
    type_id = params.get("type") or None
    if type_id is not None and type_id not in TYPES:
        raise ReconcileError("type", _("Unknown type %(unknown)s; the types are %(types)s.")
                             % {"unknown": type_id, "types": ", ".join(TYPES)})
    return type_id


@answers
def service(request: HttpRequest, params: Any) -> HttpResponse:
    """The manifest; with `queries` a result batch, with `query` one result, with `extend` the extension."""
    if "queries" in params:
        return _json(scoring.answer(read_batch(params["queries"])))
    if "query" in params:
        raw = params["query"]
        query = parse_json(raw, "query") if raw.lstrip().startswith("{") else raw
        return _json(scoring.answer([read_query("query", query)])["query"])
    if "extend" in params:
        return _json(extend.extend(params["extend"], request))
    return _json(manifest(request))


@answers
def suggest_entity(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(suggest.entities(params.get("prefix"), _type(params), params.get("fiction"),
                                  _int(params, "cursor", 0)))


@answers
def suggest_type(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(suggest.types(params.get("prefix")))


@answers
def suggest_property(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(suggest.properties(params.get("prefix"), _type(params)))


@answers
def propose_properties(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(extend.propose(_type(params), _int(params, "limit", 0) or None))


@answers
def types(request: HttpRequest, params: Any) -> HttpResponse:
    return _json({"result": [
        {"id": t.id, "name": str(t.name),
         "properties": [{"id": p.id, "name": str(p.name), "description": str(p.description)}
                        for p in PROPERTIES[t.id]]}
        for t in TYPES.values()
    ]})


def _record(ident: str) -> tuple[str, Any] | None:
    """The approved record an id names (fictional ones too: an id is asked for by name), or None."""
    parsed = parse_entity_id(ident)
    if parsed is None:
        return None
    type_id, slug = parsed
    for record in names.records_by_pk(type_id).values():
        if record.slug == slug:
            return type_id, record
    return None


def _not_found(ident: str) -> JsonResponse:
    return _error("id", _("No record has the id %(id)s.") % {"id": ident}, 404)


@answers
def view(request: HttpRequest, params: Any, ident: str) -> HttpResponse:
    """The record's page in the API."""
    found = _record(ident)
    if found is None:
        return _not_found(ident)
    type_id, record = found
    return HttpResponseRedirect(api_reverse(f"api:{type_id}-detail", kwargs={"slug": record.slug}, request=request))


def _preview_context(request: HttpRequest, type_id: str, record: Any) -> dict[str, Any]:
    # Side and echelon are plain fields of the record: no fiction mode changes them.
    known = READERS[type_id]({record.pk}, FictionMode.INCLUDE)[record.pk]
    labels = {"side": dict(Side.choices), "echelon": dict(Echelon.choices)}
    fields = {name: labels[name].get(value, value) for name, value in known.fields.items() if name in labels}
    return {
        "type_name": TYPES[type_id].name, "record": record, "fields": fields,
        "url": api_reverse(f"api:{type_id}-detail", kwargs={"slug": record.slug}, request=request),
    }


@answers
def draft_manifest(request: HttpRequest, params: Any) -> HttpResponse:
    """The manifest of version 1.0-draft."""
    return _json(draft.manifest_draft(request))


def _body(request: HttpRequest) -> Any:
    if request.method != "POST":
        raise ReconcileError("method", _("Send the batch as a POST with a JSON body."), 405)
    return parse_json(request.body or b"null", "body")


@answers
def draft_match(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(draft.match(_body(request)))


@answers
def draft_extend(request: HttpRequest, params: Any) -> HttpResponse:
    return _json(draft.extend_draft(_body(request), request))


@answers
def draft_preview(request: HttpRequest, params: Any) -> HttpResponse:
    ident = params.get("id") or ""
    found = _record(ident)
    if found is None:
        return _not_found(ident)
    return render(request, "reconcile/preview.html", _preview_context(request, *found))


@answers
def preview(request: HttpRequest, params: Any, ident: str) -> HttpResponse:
    """A small HTML card of the record, for a client's iframe."""
    found = _record(ident)
    if found is None:
        return _not_found(ident)
    return render(request, "reconcile/preview.html", _preview_context(request, *found))


@answers
def flyout(request: HttpRequest, params: Any) -> HttpResponse:
    ident = params.get("id") or ""
    found = _record(ident)
    if found is None:
        return _not_found(ident)
    html = render(request, "reconcile/preview.html", _preview_context(request, *found)).content.decode()
    return _json({"id": ident, "html": html})
