"""Structured request logs: one JSON object per line, with no secrets in it.

In production the logs are read by machines (a log shipper, a search over
them), so each request becomes one JSON line with its method, path, status,
duration, the number of SQL queries it ran (per database alias, which shows
the read replicas at work) and the client's address. Every record logged while
a request runs, including Django's own ``django.request`` error records, carries
the request's id, which is also sent back in the ``X-Request-ID`` header, so
an error a user reports can be found in the logs.

What is never logged: cookies, the ``Authorization`` header, request bodies
(where passwords travel), and the query string. Credentials inside URLs
(``postgres://user:secret@host``) are masked in every message and traceback.

The client's address comes from ``archive.client_address.client_ip``, the
one function that login lockouts and the API's throttle read too, so the
logs name the address that was locked out or throttled.

(Named ``request_log`` rather than ``logging`` so that it never shadows the
standard library's module.)
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
import traceback
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse

from archive.client_address import client_ip

request_logger = logging.getLogger("archive.request")

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_URL_CREDENTIALS_RE = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^:/@\s]*):(?P<password>[^@/\s]+)@")
_SECRET_PAIR_RE = re.compile(r"(?i)\b(password|passwd|secret|token|api_key|sessionid|csrftoken)=([^&\s'\"]+)")

# Attributes every LogRecord has; anything else was passed in ``extra``.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

_current: ContextVar[dict[str, str] | None] = ContextVar("archive_request_log", default=None)


def scrub(text: str) -> str:
    """Mask passwords in URLs and ``password=…``-style pairs."""
    text = _URL_CREDENTIALS_RE.sub(r"\g<scheme>\g<user>:***@", text)
    return _SECRET_PAIR_RE.sub(r"\1=***", text)


def _request_id(request: HttpRequest) -> str:
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    return incoming if _REQUEST_ID_RE.match(incoming) else uuid.uuid4().hex


class _QueryCounter:
    def __init__(self, alias: str, counts: dict[str, int]) -> None:
        self.alias = alias
        self.counts = counts

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        self.counts[self.alias] = self.counts.get(self.alias, 0) + 1
        return execute(sql, params, many, context)


class RequestLogMiddleware:
    """Log one line per request and tag every record of the request with its id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = _request_id(request)
        request.request_id = request_id  # type: ignore[attr-defined]  # a mark on the request, read later in it
        token = _current.set({"request_id": request_id, "method": request.method or "", "path": request.path})
        counts: dict[str, int] = {}
        started = time.perf_counter()
        try:
            with contextlib.ExitStack() as stack:
                for alias in settings.DATABASES:
                    stack.enter_context(connections[alias].execute_wrapper(_QueryCounter(alias, counts)))
                response = self.get_response(request)
            duration_ms = round((time.perf_counter() - started) * 1000, 1)
            response[REQUEST_ID_HEADER] = request_id
            status = response.status_code
            request_logger.log(
                logging.ERROR if status >= 500 else logging.INFO,
                "%s %s %s",
                request.method,
                request.path,
                status,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": status,
                    "duration_ms": duration_ms,
                    "queries": sum(counts.values()),
                    "queries_by_db": counts,
                    "remote_addr": client_ip(request),
                    "request_id": request_id,
                },
            )
            return response
        finally:
            _current.reset(token)


def _exception_fields(record: logging.LogRecord) -> dict[str, Any]:
    if not record.exc_info or record.exc_info[0] is None:
        return {}
    kind, value, tb = record.exc_info
    return {
        "exception": {
            "type": f"{kind.__module__}.{kind.__qualname__}",
            "message": scrub(str(value)),
            "traceback": scrub("".join(traceback.format_exception(kind, value, tb))),
        }
    }


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_json_safe(item) for item in value]
    return scrub(repr(value))


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request context, extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        context = _current.get()
        if context:
            entry.update(context)
        for key, value in vars(record).items():
            if key in _RECORD_ATTRIBUTES or key.startswith("_"):
                continue
            if key == "request":
                # django.request passes the HttpRequest itself: keep what identifies
                # the request, never its headers, cookies or body.
                entry.setdefault("method", getattr(value, "method", None))
                entry.setdefault("path", getattr(value, "path", None))
                request_id = getattr(value, "request_id", None)
                if request_id:
                    entry.setdefault("request_id", request_id)
                continue
            if key == "status_code":
                entry.setdefault("status", value)
                continue
            entry[key] = _json_safe(value)
        entry.update(_exception_fields(record))
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """Readable lines for development, with the same scrubbing and the request id."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        context = _current.get()
        line = super().format(record)
        if context:
            line = f"{line} [request_id={context['request_id']}]"
        return scrub(line)
