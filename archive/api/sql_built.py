"""Stored documents built on PostgreSQL by one prepared statement each kind, instead of the ORM and the serializers.

A cold document (one a write made stale) cost its first reader a dozen
statements through the ORM and the serializers' Python: 30-60 ms for a person
or an event of a large archive. The same document is one SQL expression
(`archive.api.documents_sql`): the statement of its kind reads every record
asked for at once, with the origin mark in its links, and is prepared on the
connection with a generic plan, so that PostgreSQL plans its tens of
kilobytes once per connection instead of once per read. The JSON it answers
is written again as the API's renderer writes it (`rendered`), so that the
stored text is the very text the serializers' build stores
(`tests/api/test_sql_built.py` holds every kind, in both fiction modes, to
that).

On SQLite, with prepared statements off (a pooler that cannot keep them), or
with `API_SQL_DOCUMENTS` off, `documents` answers None and the serializers build.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from django.conf import settings
from django.db import connections, transaction
from rest_framework.renderers import JSONRenderer

from archive.api.documents_sql import pages, parts, records, texts
from archive.db.session import local_settings
from archive.models import DocumentVersion
from archive.models.document_versions import EVERYTHING
from archive.selectors import FictionMode

_RENDERER = JSONRenderer()
# The documents write dates in the archive's time zone, as the serializers do; each statement's
# plan is made once per connection, without its parameters (they are keys: every plan is the same).
_SETTINGS = {"TimeZone": settings.TIME_ZONE, "plan_cache_mode": "force_generic_plan"}


@dataclass(frozen=True)
class _Kind:
    """How one kind of record is read: its tables, its key, what is shown, and its document."""

    tables: str
    key: str  # the column the keys name: a slug, or an id
    key_type: str  # the SQL type of an array of keys
    shown: str  # the condition of a record the API shows (its selector's)
    updated: str  # the column of its Last-Modified
    fictional: str  # the column of its fiction flag, as the API answers it
    document: Callable[[str], str]  # its document, given `include`


def _record(table: str, alias: str, document: Callable[[str], str]) -> _Kind:
    return _Kind(f"archive_{table} {alias}", f"{alias}.slug", "text[]", f"{alias}.status = 'approved'",
                 f"{alias}.updated_at", f"{alias}.fictional", document)


_KINDS: dict[str, _Kind] = {
    "person": _record("person", "p", records.person),
    "unit": _record("unit", "u", records.unit),
    "location": _record("location", "l", records.location),
    "event": _record("event", "e", records.event),
    "source": _Kind("archive_source src", "src.slug", "text[]", "src.status = 'approved'", "src.updated_at",
                    "src.is_fiction", lambda include: texts.source()),
    # A passage is as fresh as its source, and fiction when its source is.
    "passage": _Kind(texts.PASSAGE_TABLES, "ps.id", "bigint[]", "src.status = 'approved'", "src.updated_at",
                     "src.is_fiction", texts.passage),
    # A citation is shown when it is approved, on an approved source, and its record is shown.
    "citation": _Kind(texts.CITATION_TABLES, "c.id", "bigint[]",
                      f"c.status = 'approved' AND cs.status = 'approved' AND {parts.target_visible('c')}",
                      "c.updated_at", "false", lambda include: texts.citation()),
}


@cache
def _statement(kind: str, include: bool | None) -> str:
    """The statement of `kind` with fiction's evidence shown or not, or (None) as each record's own nature says.

    Built once per process.
    """
    spec = _KINDS[kind]
    with parts.marked_links():
        document = spec.document(spec.fictional if include is None else "true" if include else "false")
    # The versions the document is stored under, read by the same statement (one snapshot) as what it shows.
    tag = f"'{kind}:' || {spec.key}::text"
    versions = f"{_version(tag)}, {_version(repr(EVERYTHING))}"
    return (f"SELECT {spec.key}::text, ({document})::text, floor(extract(epoch FROM {spec.updated}))::bigint, "
            f"{spec.fictional}, {versions} "
            f"FROM {spec.tables} WHERE {spec.key} = ANY(%s::{spec.key_type}) AND {spec.shown}")


def _version(tag: str) -> str:
    """The current version of the tag the SQL expression `tag` names; 0 for a tag never bumped."""
    return f"coalesce((SELECT v.version FROM {DocumentVersion._meta.db_table} v WHERE v.tag = {tag}), 0)"


def _run(using: str, statement: str, params: Any) -> list[tuple[Any, ...]]:
    """Run a document's statement, prepared at once, with the statements' settings; its rows.

    Prepared at once: its plan is the work worth keeping (Django's cursor
    would prepare it on its fifth run). Logged as Django logs its queries.
    """
    connection = connections[using]
    with _settings_in_force(using), connection.cursor() as cursor:
        started = time.monotonic()
        with connection.wrap_database_errors:
            cursor.cursor.execute(statement, params, prepare=True)
            rows = cursor.cursor.fetchall()
        if connection.queries_logged:
            connection.queries_log.append({"sql": statement, "time": f"{time.monotonic() - started:.3f}"})
    return rows


@dataclass(frozen=True)
class Built:
    """One record's document as the API stores it, with what its answer needs besides."""

    key: str
    body: str
    last_modified: int | None
    fictional: bool
    # The versions of its tag and of `*` when it was built (`archive.models.document_versions`).
    tag_version: int
    everything_version: int


def available(using: str) -> bool:
    """Whether documents are built in SQL on the database `using`: PostgreSQL with prepared statements,
    unless `API_SQL_DOCUMENTS` is off."""
    connection = connections[using]
    prepared = bool(connection.settings_dict["OPTIONS"].get("server_side_binding"))
    return bool(settings.API_SQL_DOCUMENTS) and connection.vendor == "postgresql" and prepared


class _Sessions(threading.local):
    """The databases whose current transaction has the statements' settings in force (`session`), per thread."""

    def __init__(self) -> None:
        self.aliases: set[str] = set()


_sessions = _Sessions()


@contextmanager
def session(using: str) -> Iterator[None]:
    """A transaction on `using` with the statements' settings in force, for several builds or one.

    Set once at its start; a transaction of its own gives them back by ending,
    so only a block nested in another puts them back by hand (`local_settings`).
    """
    if not available(using):
        with transaction.atomic(using=using):
            yield
        return
    if using in _sessions.aliases:
        with transaction.atomic(using=using):
            yield
        return
    with local_settings(using, _SETTINGS):
        _sessions.aliases.add(using)
        try:
            yield
        finally:
            _sessions.aliases.discard(using)


def _settings_in_force(using: str) -> AbstractContextManager[None]:
    return nullcontext() if using in _sessions.aliases else local_settings(using, _SETTINGS)


def builds(kind: str) -> bool:
    """Whether documents of `kind` (a stored kind's name) have a statement."""
    return kind in _KINDS


def builds_pages(kind: str) -> bool:
    """Whether the pages of `kind`'s list as first shown have a statement."""
    return kind in pages.LISTS


def documents(kind: str, keys: Sequence[Any], mode: FictionMode | None, using: str) -> list[Built] | None:
    """The documents of the records of `kind` named by `keys` that the API shows, or None where SQL cannot build.

    Each is built in the reading `mode`, or with no mode in its record's
    default reading (fiction's evidence shown for a fictional record, as a
    detail without `fiction` shows it). A key whose record is not shown is
    left out, as the serializers' build leaves it out.
    """
    if kind not in _KINDS or not available(using):
        return None
    statement = _statement(kind, None if mode is None else mode.nested is FictionMode.INCLUDE)
    rows = _run(using, statement, [[str(key) for key in keys]])
    return [Built(key, rendered(body), *facts) for key, body, *facts in rows]


@dataclass(frozen=True)
class BuiltPage:
    """A page of a list as the API stores it (`archive.api.stored.marked_page`), with its facts."""

    body: str
    empty: bool  # no record on it
    last_modified: int | None
    # The versions of its list's tag and of `*` when it was built.
    tag_version: int
    everything_version: int


@cache
def _page_statement(kind: str, page_size: int) -> str:
    """The statement of a page of `kind`'s list as first shown; the page's offset is its one number parameter.

    The page size is written in, as the stored pages have one size each: with
    LIMIT a parameter, PostgreSQL's generic plan cannot know how few rows a
    page takes, and sorts every listed record.
    """
    of = pages.LISTS[kind]
    with parts.marked_links():
        statement = pages.first_reading(
            kind, totals=f", max({of.alias}.updated_at) AS latest",
            columns=(f", floor(extract(epoch FROM total.latest))::bigint, {_version(repr(f'{kind}:list'))}, "
                     f"{_version(repr(EVERYTHING))}"),
        )
    return statement.replace("%(limit)s", str(int(page_size)))


def page(kind: str, number: int, page_size: int, links: tuple[str | None, str | None],
         using: str) -> BuiltPage | None:
    """Page `number` of `kind`'s list as first shown, with its `next` and `previous` links (origin marked).

    None where SQL does not build it (see `documents`). The links are the
    paginator's; `next` is kept only if the count says there is a next page.
    """
    if kind not in pages.LISTS or not available(using):
        return None
    statement = _page_statement(kind, page_size)
    following, previous = links
    params = {"offset": (number - 1) * page_size, "next": json.dumps(following), "previous": json.dumps(previous)}
    [(body, last_modified, tag_version, everything_version)] = _run(using, statement, params)
    text = rendered(body)
    return BuiltPage(text, text.endswith('"results":[]}'), last_modified, tag_version, everything_version)


# The exponent of a float as PostgreSQL writes it; a digit before it tells it from a word ("source-0").
# Found with its literal first letter and checked by hand: far faster than a pattern that begins with a class.
_EXPONENT = re.compile(r"e[-+][0-9]")


def _exponent_in(body: str) -> bool:
    return any(match.start() and body[match.start() - 1] in "0123456789" for match in _EXPONENT.finditer(body))


def rendered(body: str) -> str:
    """PostgreSQL's JSON as the API's renderer writes it: the same text as the serializers' build stores.

    Parsed and written again by orjson, four times faster than the standard
    library for a page of fifty documents, with the two lines the renderer
    escapes (U+2028, U+2029) escaped as it does. orjson writes every other
    value as the renderer does but a float in exponent form, which
    PostgreSQL writes with its sign (`1e-05`, `1e+16`): a body with such a
    number anywhere, if only in a text, goes the standard library's way.
    (Integers past 64 bits, which orjson would read as floats, are in no
    document: ids are `bigint`.) `tests/api/test_sql_built.py` holds both
    ways to the renderer.
    """
    if not _exponent_in(body):
        text = orjson.dumps(orjson.loads(body)).decode()
        return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return _RENDERER.render(json.loads(body)).decode()
