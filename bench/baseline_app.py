"""The API's baseline: the same JSON built by hand-written SQL (`json_agg`) in a tiny WSGI app.

The API's figures mean little alone; beside the fastest honest way to answer
the same request on the same database they show what the ORM, DRF's nested
serializers and the middleware cost. This app answers every JSON document of
the API in its default reading (no filters, fiction excluded from lists):
the pages of sources, persons, units, places, events and citations
(`?page=P&page_size=N`), a source's passages, and the detail of a record of
each kind and of a passage. Each is one SQL statement (`bench/baseline/`, around
the API's own SQL of each document, `archive/api/documents_sql/`)
that applies the API's rules (approved records all the way down; fiction
excluded, in the records listed and in the citations nested in them; each
stated field shown from its best visible statement, with every account
listed under `statements`) and returns the document as text from PostgreSQL.
It is served by gunicorn with the same settings as the API, with persistent
connections per worker, as the API's `CONN_MAX_AGE` gives it.

Each statement runs prepared with a cached plan, as an application that
keeps its statements prepared would run it: the statements are tens of
kilobytes, and planning one costs far more than running it. A page's
LIMIT and OFFSET are written into its statement (`_sized`). On its first
use in a worker a statement is timed both ways, with PostgreSQL's generic
plan (planned once, kept by the connection) and with a plan made for its
parameters on each run (`_choose`), and from then on runs the faster way
(`plan_choices`, served at `/plans/`). The events page filtered by
`?person=` or `?unit=` is answered too (`records.FILTERED_EVENTS`).

Run: `BENCH_DATABASE_URL=postgres://… gunicorn bench.baseline_app:application`.
"""

from __future__ import annotations

import json
import os
import re
import time
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
# One connection per plan mode: PostgreSQL reads `plan_cache_mode` when a prepared statement runs.
_MODES = ("generic", "custom")
_connections: dict[str, psycopg.Connection[Any]] = {}
# By statement: the mode it runs in, and the time of one run each way when it was chosen (ms).
plan_choices: dict[str, tuple[str, dict[str, float]]] = {}


def _connection(mode: str) -> psycopg.Connection[Any]:
    connection = _connections.get(mode)
    if connection is None or connection.closed:
        connection = psycopg.connect(os.environ["BENCH_DATABASE_URL"], autocommit=True)
        connection.execute("SET TIME ZONE 'Asia/Shanghai'")
        connection.execute(f"SET plan_cache_mode = force_{mode}_plan")
        _connections[mode] = connection
    return connection


def close() -> None:
    """Close this process's connections (and forget the plans chosen, which lived in them)."""
    for connection in _connections.values():
        connection.close()
    _connections.clear()
    plan_choices.clear()


def share(connection: psycopg.Connection[Any] | None) -> None:
    """Answer on `connection` in both plan modes (a test's, which sees its transaction's rows), or stop sharing it."""
    _connections.clear()
    plan_choices.clear()
    if connection is not None:
        _connections.update(dict.fromkeys(_MODES, connection))


def _run(mode: str, statement: str, params: dict[str, Any]) -> bytes | None:
    # A cursor that binds on the server, whatever the connection's own (a test's Django connection prepares
    # only at a statement's fifth run, or never where it binds on the client): prepared at the first run.
    with psycopg.Cursor(_connection(mode)) as cursor:
        cursor.execute(statement, params, prepare=True)
        row = cursor.fetchone()
    return row[0].encode() if row else None


def _timed_run(mode: str, statement: str, params: dict[str, Any]) -> float:
    started = time.perf_counter()
    _run(mode, statement, params)
    return round((time.perf_counter() - started) * 1000, 3)


def _choose(statement: str, params: dict[str, Any]) -> str:
    """The faster plan mode of `statement`, timed on its first use (three runs: a slow statement stays affordable).

    The generic plan is made by a first run, which also brings the data into
    the cache; then one run with a plan made for its parameters (planning
    included, as each of its runs would pay) and one with the generic plan.
    """
    _run("generic", statement, params)
    timings = {"custom": _timed_run("custom", statement, params), "generic": _timed_run("generic", statement, params)}
    chosen = "generic" if timings["generic"] <= timings["custom"] else "custom"
    plan_choices[statement] = (chosen, timings)
    return chosen


def _answer(statement: str, params: dict[str, Any]) -> bytes | None:
    if _connections.get("generic") is _connections.get("custom") is not None:
        return _run("generic", statement, params)  # a shared connection: one plan mode, nothing to choose
    choice = plan_choices.get(statement)
    mode = choice[0] if choice is not None else _choose(statement, params)
    return _run(mode, statement, params)


def statement_name(statement: str) -> str:
    """A statement's name as `/plans/` gives it: its page or detail, by the dictionaries of `bench.baseline`."""
    for group, names in (("page", PAGES), ("detail", DETAILS), ("events by", records.FILTERED_EVENTS),
                         ("page", {"passages of a source": texts.PAGES["passages of a source"]})):
        for name, text in names.items():
            head, _, tail = text.partition("%(limit)s")
            if text == statement or (tail and statement.startswith(head) and statement.endswith(tail[-200:])):
                return f"{group} {name}"
    return "other"


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


def _sized(statement: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A page's statement with its LIMIT and OFFSET written in: one prepared statement per page size and offset.

    With them as parameters, PostgreSQL's generic plan cannot know how few
    rows a page takes and sorts every visible record (seconds at a million
    passages), and a plan per run pays the planning each time; written in
    (validated integers), the cached generic plan walks an index to the page.
    """
    limit, offset = int(params["limit"]), int(params["offset"])
    return statement.replace("%(limit)s", str(limit)).replace("%(offset)s", str(offset)), params


def statement_for(base: str, path: str, query_string: str = "") -> tuple[str, dict[str, Any]] | None:
    """The statement that answers `path` and its parameters, or None where the API answers 404 (or no statement)."""
    found = _statement_for(base, path, query_string)
    if found is None or "limit" not in found[1]:
        return found
    return _sized(*found)


def _statement_for(base: str, path: str, query_string: str = "") -> tuple[str, dict[str, Any]] | None:
    query = parse_qs(query_string)
    if match := _PASSAGES.match(path):
        params = _page_params(base, path, query)
        return None if params is None else (texts.PAGES["passages of a source"], {**params, "slug": match.group(1)})
    if (match := _LIST.match(path)) and match.group(1) in PAGES:
        params = _page_params(base, path, query)
        if params is None:
            return None
        filters = [name for name in ("person", "unit") if name in query]
        if match.group(1) == "events" and len(filters) == 1:
            return records.FILTERED_EVENTS[filters[0]], {**params, "slug": query[filters[0]][0]}
        if set(query) - {"page", "page_size"}:
            return None  # a filter it has no statement for
        return PAGES[match.group(1)], params
    if (match := _DETAIL.match(path)) and match.group(1) in DETAILS:
        kind, key = match.groups()
        if kind in _BY_ID:
            if not (key.isascii() and key.isdigit() and len(key) <= 18):
                return None
            return DETAILS[kind], {"base": base, "id": int(key)}
        return DETAILS[kind], {"base": base, "slug": key}
    return None


def document(base: str, path: str, query_string: str = "") -> bytes | None:
    """The JSON document of `path`, or None where the API answers 404 (or a path it has no statement for)."""
    found = statement_for(base, path, query_string)
    return None if found is None else _answer(*found)


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    path = environ.get("PATH_INFO", "")
    base = f"http://{environ.get('HTTP_HOST', '127.0.0.1')}"
    if path == "/plans/":
        body: bytes | None = json.dumps({statement_name(statement): {"mode": mode, "ms": timings}
                                         for statement, (mode, timings) in plan_choices.items()}).encode()
    elif path == "/health/":
        body = b'{"status": "ok"}'
    else:
        body = document(base, path, environ.get("QUERY_STRING", ""))
    if body is None:
        start_response("404 Not Found", [("Content-Type", "application/json")])
        return [b'{"detail": "Not found."}']
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
