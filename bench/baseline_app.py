"""The API's baseline: the same JSON built by hand-written SQL (`json_agg`) in a tiny WSGI app.

The API's figures mean little alone; beside the fastest honest way to answer
the same request on the same database they show what the ORM, DRF's nested
serializers and the middleware cost. This app answers every JSON document of
the API in its default reading (no filters, fiction excluded from lists):
the pages of sources, persons, units, places, events and citations
(`?page=P&page_size=N`), a source's passages, and the detail of a record of
each kind and of a passage. Each is one SQL statement (`bench/baseline/`)
that applies the API's rules (approved records all the way down; fiction
excluded, in the records listed and in the citations nested in them; each
stated field shown from its best visible statement, with every account
listed under `statements`) and returns the document as text from PostgreSQL.
It is served by gunicorn with the same settings as the API, one persistent
connection per worker, as the API's `CONN_MAX_AGE` gives it.

Run: `BENCH_DATABASE_URL=postgres://… gunicorn bench.baseline_app:application`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs, urlencode

import psycopg

from bench.baseline import records, texts

PAGES = {**records.PAGES, "sources": texts.PAGES["sources"], "citations": texts.PAGES["citations"]}
DETAILS = {**records.DETAILS, **texts.DETAILS}
_BY_ID = {"passages", "citations"}
_PAGE_SIZE, _MAX_PAGE_SIZE = 50, 200

_LIST = re.compile(r"^/api/v1/([a-z]+)/$")
_DETAIL = re.compile(r"^/api/v1/([a-z]+)/([^/]+)/$")
_PASSAGES = re.compile(r"^/api/v1/sources/([^/]+)/passages/$")
_connection: psycopg.Connection[Any] | None = None


def _cursor() -> psycopg.Cursor[Any]:
    global _connection
    if _connection is None or _connection.closed:
        _connection = psycopg.connect(os.environ["BENCH_DATABASE_URL"], autocommit=True)
        _connection.execute("SET TIME ZONE 'Asia/Shanghai'")
    return _connection.cursor()


def _answer(statement: str, params: dict[str, Any]) -> bytes | None:
    with _cursor() as cursor:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    return row[0].encode() if row else None


def _link(base: str, path: str, query: dict[str, list[str]], page: int | None) -> str:
    """A page's URL as DRF writes it: the request's parameters with `page` replaced (or removed), sorted."""
    params = {key: values for key, values in query.items() if key != "page"}
    if page is not None:
        params["page"] = [str(page)]
    encoded = urlencode(sorted(params.items()), doseq=True)
    return f"{base}{path}" + (f"?{encoded}" if encoded else "")


def _page_params(base: str, path: str, query: dict[str, list[str]]) -> dict[str, Any] | None:
    """`limit`, `offset` and the links of the page asked for; None for a page number that is not one."""
    try:
        size = int(query.get("page_size", [str(_PAGE_SIZE)])[0])
        page = int(query.get("page", ["1"])[0])
    except ValueError:
        return None
    if not (1 <= size <= _MAX_PAGE_SIZE and page >= 1):
        return None
    return {
        "base": base,
        "limit": size,
        "offset": (page - 1) * size,
        "next": _link(base, path, query, page + 1),
        "previous": None if page == 1 else _link(base, path, query, None if page == 2 else page - 1),
    }


def document(base: str, path: str, query_string: str = "") -> bytes | None:
    """The JSON document of `path`, or None where the API answers 404 (or a path it has no statement for)."""
    query = parse_qs(query_string)
    if match := _PASSAGES.match(path):
        params = _page_params(base, path, query)
        return None if params is None else _answer(texts.PAGES["passages of a source"], {**params,
                                                                                          "slug": match.group(1)})
    if (match := _LIST.match(path)) and match.group(1) in PAGES:
        params = _page_params(base, path, query)
        return None if params is None else _answer(PAGES[match.group(1)], params)
    if (match := _DETAIL.match(path)) and match.group(1) in DETAILS:
        kind, key = match.groups()
        if kind in _BY_ID:
            if not (key.isascii() and key.isdigit() and len(key) <= 18):
                return None
            return _answer(DETAILS[kind], {"base": base, "id": int(key)})
        return _answer(DETAILS[kind], {"base": base, "slug": key})
    return None


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    path = environ.get("PATH_INFO", "")
    base = f"http://{environ.get('HTTP_HOST', '127.0.0.1')}"
    body = b'{"status": "ok"}' if path == "/health/" else document(base, path, environ.get("QUERY_STRING", ""))
    if body is None:
        start_response("404 Not Found", [("Content-Type", "application/json")])
        return [b'{"detail": "Not found."}']
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
