"""The API's read model: documents stored as JSON text and read back without building records.

A page of fifty nested events is some seven hundred model instances and tens
of milliseconds of Python through the ORM and the serializers; fifty stored
documents are one indexed query. The serializers remain the one definition of
every shape: a document is built by them the first time it is asked for (or
for a whole archive by `manage.py build_documents`), on PostgreSQL by one
prepared SQL statement held to the serializers' very text (`sql_built`), stored under the
versions of its tag and of `*` (`archive.models.stored_documents`), and read
back while those versions stand. Every write bumps the tags of the documents
that show what it wrote, in the writer's transaction (`archive.freshness`), so
a stale document is never read; once the write commits, the stored documents
it touched are built again (`refresh`), and any left over by its next reader.

Lists still filter, order, count and page the records in SQL: only the
documents of the page are read from the store, so a page of 200 costs the
same queries as a page of 5. A page of a list as it is first shown (no
filter, the default size) is also stored whole, under its list's tag
(`page_variant`), and read back as one document while no write has touched
the list.

URLs in a document are absolute and depend on the request's host and script
prefix, so a document is built with a mark where they go, and the mark is
filled in as it is served. The mark is recognised only where it opens a JSON
string (a quote that no backslash escapes): a record's text that holds the
mark's characters is inside a string, where the renderer has escaped its
quotes and backslashes, so it is served as it was written.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.serializers import BaseSerializer
from rest_framework.utils.urls import remove_query_param, replace_query_param

from archive import selectors
from archive.api import serializers, sql_built
from archive.models import DocumentVersion, StoredDocument, document_versions
from archive.models.document_versions import EVERYTHING, UNUSED_ROWS_KEPT_FOR
from archive.selectors import FictionMode
from config import routers

logger = logging.getLogger(__name__)

# NUL never reaches the archive's text (every curated text field refuses it, `archive.models.text`), and the
# mark counts only at the opening of a string: no record's text can be taken for it.
ORIGIN = "\x00origin"
_RENDERER = JSONRenderer()
# Documents refreshed after one write at most; a larger write leaves the rest to their readers.
REFRESH_LIMIT = 200
# Tags looked up after one write at most (one query's parameters on every engine).
REFRESH_SCAN_LIMIT = 5000
# The mark as the rendered opening of a string. A quote after a backslash is part of a string's text, not
# its opening: `_served` leaves such a match as it is. (The pattern starts with its literal text, which the
# regular expression engine finds by a fast scan; a lookbehind in front of it made it try every byte.)
_MARK = re.compile(rb'"' + re.escape(_RENDERER.render(ORIGIN)[1:-1]))
_BACKSLASH = ord("\\")


class _BuildingRequest:
    """Stands for the request while a document is built: the serializers ask it only for its origin."""

    _archive_origin = ORIGIN


def _record_facts(record: Any) -> tuple[dt.datetime | None, bool]:
    return record.updated_at, bool(getattr(record, "fictional", False))


@dataclass(frozen=True)
class DocumentKind:
    """One kind of stored document: its tag's prefix, how its records are selected and shown."""

    name: str
    serializer: type[BaseSerializer]
    select: Callable[[FictionMode], QuerySet]
    # What a detail answers besides the document: its Last-Modified and whether it is fiction by default.
    facts: Callable[[Any], tuple[dt.datetime | None, bool]] = _record_facts
    # The record's field in its tag, and the document's field that holds it.
    key_field: str = "slug"
    document_key: str = "slug"
    # Whether the nested data follows the reader's fiction mode (one variant per mode) or not.
    varies: bool = True

    def variant(self, mode: FictionMode) -> str:
        return mode.nested.value if self.varies else "-"

    def tag(self, key: object) -> str:
        return f"{self.name}:{key}"


KINDS: dict[str, DocumentKind] = {
    kind.name: kind
    for kind in (
        DocumentKind("person", serializers.PersonSerializer, selectors.persons),
        DocumentKind("unit", serializers.UnitSerializer, selectors.units),
        DocumentKind("location", serializers.LocationSerializer, selectors.locations),
        DocumentKind("event", serializers.EventSerializer, selectors.events),
        DocumentKind("source", serializers.SourceSerializer, lambda mode: selectors.sources(),
                     lambda source: (source.updated_at, source.is_fiction), varies=False),
        # A passage is as fresh as its source, and fiction when its source is.
        DocumentKind("passage", serializers.PassageSerializer, selectors.passages,
                     lambda passage: (passage.source.updated_at, passage.source.is_fiction), "pk", "id"),
        DocumentKind("citation", serializers.CitationSerializer, lambda mode: selectors.citations_with_targets(),
                     lambda citation: (citation.updated_at, False), "pk", "id", varies=False),
    )
}


def enabled() -> bool:
    """Whether the API reads its JSON documents from the store (`API_STORED_DOCUMENTS`, on by default)."""
    return bool(getattr(settings, "API_STORED_DOCUMENTS", True))


def documents(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode, *, missed: bool = False) -> list[str]:
    """The documents of the records named by `keys`, in that order, as JSON text with the origin mark.

    Those not stored, or stored under older versions, are built and stored
    first; a key whose record is not shown in `mode` is left out. `missed`
    says the caller has just read the store and found none of them current:
    they are built without reading it again.
    """
    variant = kind.variant(mode)
    tags = [kind.tag(key) for key in keys]
    found = {} if missed else _read(tags, variant)
    missing = [key for key, tag in zip(keys, tags, strict=True) if tag not in found]
    if missing:
        found.update(_build_once(kind, missing, mode))
    return [found[tag] for tag in tags if tag in found]


def _build_once(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode) -> dict[str, str]:
    """Build the documents of `keys` that no other worker has built meanwhile (single flight).

    Workers that miss the same documents at once wait for the first to store
    them and read what it stored, instead of each building its own: on
    PostgreSQL each waits on an advisory lock per document, on SQLite the
    transaction is begun IMMEDIATE (settings), which lets one writer in at a time.
    A read served from a replica builds for its own answer and stores nothing.
    """
    if routers.serving_from_replica():
        return build(kind, keys, mode)
    variant = kind.variant(mode)
    alias = router.db_for_write(StoredDocument)
    try:
        with sql_built.session(alias):
            waited = _wait_for_other_builders(alias, [f"{kind.tag(key)}|{variant}" for key in keys])
            # Read again only where another builder may have stored them meanwhile.
            found = _read([kind.tag(key) for key in keys], variant) if waited else {}
            rest = [key for key in keys if kind.tag(key) not in found]
            if rest:
                found.update(build(kind, rest, mode, own_transaction=True))
    except DatabaseError:
        # A busy database (SQLite's single writer past its timeout) costs a build, never this answer.
        logger.warning("stored API documents were built without waiting for other builders", exc_info=True)
        return build(kind, keys, mode)
    return found


def _wait_for_other_builders(alias: str, names: list[str]) -> bool:
    """Take the builders' locks of `names`; answer whether another builder may have stored some meanwhile.

    One document (a cold detail) is first tried without waiting: a lock
    taken at once means nobody was building it, and the store need not be
    read again. Several are locked in one order, waiting, and read again.
    """
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return True  # SQLite's IMMEDIATE transaction may have waited for another writer
    wanted = sorted(set(names))
    with connection.cursor() as cursor:
        if len(wanted) == 1:
            cursor.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", wanted)
            if cursor.fetchone()[0]:
                return False
        # Taken in one order by every worker, so two never wait on each other; released at the commit.
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(name, 0)) "
                       "FROM unnest(%s::text[]) AS name ORDER BY name", [wanted])
    return True


def _tables(connection: BaseDatabaseWrapper) -> tuple[str, str]:
    """The stored documents joined with the versions of their tag and of `*` (one `%s` names `*`)."""
    documents = connection.ops.quote_name(StoredDocument._meta.db_table)
    versions = connection.ops.quote_name(DocumentVersion._meta.db_table)
    joined = f"{documents} d LEFT JOIN {versions} v ON v.tag = d.tag LEFT JOIN {versions} e ON e.tag = %s"
    return documents, joined


# A document is current while neither its tag nor `*` has moved since it was built (`archive.freshness`).
_IS_CURRENT = "d.tag_version = COALESCE(v.version, 0) AND d.everything_version = COALESCE(e.version, 0)"


def _current(columns: str, where: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Rows of the stored documents matching `where` that are still valid, in one statement.

    Written in SQL rather than composed by the ORM: composing the query cost
    more than running it, on every request of the API.
    """
    connection = connections[router.db_for_read(StoredDocument)]
    _, joined = _tables(connection)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {joined} WHERE {where} AND {_IS_CURRENT}", [EVERYTHING, *params])
        return list(cursor.fetchall())


def _read(tags: list[str], variant: str) -> dict[str, str]:
    """The stored documents among `tags` that are still valid."""
    if not tags:
        return {}
    where = f"d.variant = %s AND d.tag IN ({', '.join(['%s'] * len(tags))})"
    return {tag: body for tag, body in _current("d.tag, d.body", where, [variant, *tags])}


@dataclass(frozen=True)
class Detail:
    """One record's current document in one variant, with what its answer needs besides the body."""

    body: str
    last_modified: int | None
    fictional: bool
    # Built for this answer (it was not current), not read as stored.
    built: bool = False


def details(kind: DocumentKind, key: object) -> dict[str, Detail]:
    """The current documents of one record by variant, read without reading the record itself.

    A document is current only while no write has touched its record since
    it was built (`archive.freshness`), so the record is still shown, and the
    facts stored beside the document still hold.
    """
    rows = _current("d.variant, d.body, d.last_modified, d.fictional", "d.tag = %s", [kind.tag(key)])
    # A record whose slug is `list` shares its tag with the stored pages of its kind's list.
    return {variant: Detail(body, last_modified, bool(fictional))
            for variant, body, last_modified, fictional in rows if not variant.startswith(PAGE_PREFIX)}


def current_detail(kind: DocumentKind, key: object,
                   choose: Callable[[FictionMode], FictionMode]) -> Detail | None:
    """The current document of one record in the reading `choose` picks, or None while there is none.

    `choose` is given the record's default reading: without `fiction`, a
    record's evidence follows its own nature (fiction includes fiction).
    """
    found = details(kind, key)
    if not found:
        return None
    default = FictionMode.INCLUDE if next(iter(found.values())).fictional else FictionMode.EXCLUDE
    return found.get(kind.variant(choose(default)))


def built_detail(kind: DocumentKind, key: object) -> Detail | None:
    """One record's document in its default reading, built at once in SQL and stored, or None.

    For a plain read of a detail whose stored document is not current
    (`stored_answers`): on PostgreSQL one statement reads the record and
    builds its document in the reading its nature gives it, so that neither
    the record is read first nor the view is reached. None where SQL does
    not build documents, and for a key whose record is not shown (the view
    answers it, or redirects a merged slug). Builders of the same document
    wait for each other (`_build_once`); they lock it under its own name, its
    reading being known only once it is built.
    """
    alias = router.db_for_read(kind.serializer.Meta.model)  # type: ignore[attr-defined]  # a model's serializer
    if not sql_built.available(alias) or not sql_built.builds(kind.name):
        return None
    if routers.serving_from_replica():
        built = sql_built.documents(kind.name, [key], None, alias)
        return None if not built else _detail(built[0])
    alias = router.db_for_write(StoredDocument)
    try:
        with sql_built.session(alias):
            if _wait_for_other_builders(alias, [f"{kind.tag(key)}|default"]):
                found = current_detail(kind, key, lambda default: default)
                if found is not None:
                    return found
            built = sql_built.documents(kind.name, [key], None, alias)
            if not built:
                return None
            document = built[0]
            default = FictionMode.INCLUDE if document.fictional else FictionMode.EXCLUDE
            _store([StoredDocument(tag=kind.tag(document.key), variant=kind.variant(default),
                                   tag_version=document.tag_version, everything_version=document.everything_version,
                                   body=document.body, last_modified=document.last_modified,
                                   fictional=document.fictional)], savepoint=False)
    except DatabaseError:
        # A busy database costs this answer the view's way (which builds without waiting), never the answer.
        logger.warning("a stored API document was not built by the stored answers", exc_info=True)
        return None
    return _detail(document)


# The largest offset a page's statement is asked for (a bigint's).
_LAST_OFFSET = 2**63 - 1


def built_page(kind: DocumentKind, variant: str, request: Any, page_size: int) -> Detail | None:
    """A page of `kind`'s list as first shown (`page_variant`), built at once in SQL and stored whole, or None.

    For a plain read of a list's page that is not current (`stored_answers`):
    on PostgreSQL one statement counts the list and builds the page's
    documents, so that neither its records' keys nor their documents are
    read first and the view is not reached. Its members' documents are not
    stored one by one: the page is, whole. None where SQL does not build
    pages, and for a page past the end of its list (the view answers 404).
    Builders of the same page wait for each other, as builders of a document do.
    """
    alias = router.db_for_read(kind.serializer.Meta.model)  # type: ignore[attr-defined]  # a model's serializer
    if not sql_built.available(alias) or not sql_built.builds_pages(kind.name):
        return None
    number = int(variant.removeprefix(PAGE_PREFIX).split(":")[0])
    if (number - 1) * page_size > _LAST_OFFSET:
        return None  # past any list, and past PostgreSQL's OFFSET: the view answers 404
    links = _page_links(request, number)
    if routers.serving_from_replica():
        built = sql_built.page(kind.name, number, page_size, links, alias)
        return None if built is None or (built.empty and number > 1) else _page(built)
    alias = router.db_for_write(StoredDocument)
    tag = kind.tag("list")
    try:
        with sql_built.session(alias):
            if _wait_for_other_builders(alias, [f"{tag}|{variant}"]):
                found = current_page(kind, variant)
                if found is not None:
                    return found
            built = sql_built.page(kind.name, number, page_size, links, alias)
            if built is None or (built.empty and number > 1):
                return None
            _store([StoredDocument(tag=tag, variant=variant, tag_version=built.tag_version,
                                   everything_version=built.everything_version, body=built.body,
                                   last_modified=built.last_modified, fictional=False)], savepoint=False)
    except DatabaseError:
        logger.warning("a stored API page was not built by the stored answers", exc_info=True)
        return None
    return _page(built)


def _page_links(request: Any, number: int) -> tuple[str | None, str | None]:
    """The next and previous links of page `number` as DRF's paginator writes them, origin marked.

    The next link is given whatever the count; the page's statement keeps it only if there is a next page.
    """
    url = request.build_absolute_uri()
    following = replace_query_param(url, "page", number + 1)
    previous = None if number == 1 else (remove_query_param(url, "page") if number == 2
                                         else replace_query_param(url, "page", number - 1))
    origin = serializers.request_origin(request)
    return _marked_url(following, origin), None if previous is None else _marked_url(previous, origin)


def _marked_url(url: str, origin: str) -> str:
    """A URL of this request with the origin mark in place of its origin, so that it can be stored."""
    return ORIGIN + url[len(origin):] if url.startswith(origin) else url


def _page(built: sql_built.BuiltPage) -> Detail:
    return Detail(built.body, built.last_modified, False, built=True)


def _detail(document: sql_built.Built) -> Detail:
    return Detail(document.body, document.last_modified, document.fictional, built=True)


# What the stored answers found not current in this request (`stored_answers`), so that its view builds it
# without reading the store a second time.
_MISSED = "archive_stored_missed"


def note_missed(request: Any, kind: str, key: object) -> None:
    """Remember that `request` found no current document of `kind` and `key` (a record's key or a page's variant)."""
    setattr(request, _MISSED, (kind, key))


def missed(request: Any, kind: str, key: object) -> bool:
    """Whether this request has already found no current document of `kind` and `key`."""
    return getattr(request, _MISSED, None) == (kind, key)


# Stored pages of a list live under its list's tag (`archive.freshness`: `kind:list`), one variant per spelling.
PAGE_PREFIX = "page:"
_PAGE_PARAMETERS = {"page": "p", "page_size": "s"}
_VARIANT_LENGTH = StoredDocument._meta.get_field("variant").max_length or 0


def page_variant(query: str, page_size: int) -> str | None:
    """The variant under which the page a list answers for exactly `query` is stored, or None when it is not.

    Only a list as it is first shown and paged is stored: no filter, no
    `fiction`, at most `page` and `page_size` (at its default, `page_size`),
    each once and written as a plain number. The page's `next` and `previous`
    links repeat its query as it was spelled, so the spelling is part of the
    key: `page=2&page_size=50` and `page_size=50&page=2` are two variants.
    This grammar is also the bound on what clients can make the archive
    store: each page of a list at most five times (the five spellings), and
    only pages that exist (a page past the end is a 404, never stored).
    """
    number, spelled = 1, ""
    for part in query.split("&") if query else ():
        name, equals, value = part.partition("=")
        letter = _PAGE_PARAMETERS.get(name)
        plain_number = value.isascii() and value.isdigit() and not value.startswith("0")
        if letter is None or not equals or letter in spelled or not plain_number:
            return None
        if letter == "s" and value != str(page_size):
            return None
        if letter == "p":
            number = int(value)
        spelled += letter
    variant = f"{PAGE_PREFIX}{number}:{spelled}"
    return variant if len(variant) <= _VARIANT_LENGTH else None


@dataclass(frozen=True)
class PageToKeep:
    """A list page to store once it is built, with the versions read before its records were."""

    tag: str
    variant: str
    versions: dict[str, int]


def page_to_keep(kind: DocumentKind, variant: str) -> PageToKeep:
    """Read the versions a page will be stored under; call it before reading the page's records."""
    tag = kind.tag("list")
    return PageToKeep(tag, variant, DocumentVersion.objects.versions([tag, EVERYTHING]))


def keep_page(page: PageToKeep, body: str, last_modified: int | None) -> None:
    """Store a built page (`marked_page`) under the versions read before it was built."""
    _store([StoredDocument(tag=page.tag, variant=page.variant, tag_version=page.versions[page.tag],
                           everything_version=page.versions[EVERYTHING], body=body,
                           last_modified=last_modified, fictional=False)])


def current_page(kind: DocumentKind, variant: str) -> Detail | None:
    """The stored page of `kind`'s list in `variant`, while no write has touched the list since it was built."""
    return stored_page(kind, variant).current


@dataclass(frozen=True)
class StoredPage:
    """What the store holds of one page of a list."""

    current: Detail | None  # the page, while no write has touched the list since it was built
    # Whether every document of its records is stale as well: a write has touched everything (`*`) since the
    # page was stored, or none is stored. Then the page is best built whole; else most are current.
    all_stale: bool


def stored_page(kind: DocumentKind, variant: str) -> StoredPage:
    """The stored page of `kind`'s list in `variant`, current or not, in one statement."""
    connection = connections[router.db_for_read(StoredDocument)]
    _, joined = _tables(connection)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT d.body, d.last_modified, {_IS_CURRENT}, "
                       f"d.everything_version = COALESCE(e.version, 0) FROM {joined} "
                       "WHERE d.tag = %s AND d.variant = %s", [EVERYTHING, kind.tag("list"), variant])
        row = cursor.fetchone()
    if row is None:
        return StoredPage(None, all_stale=True)
    body, last_modified, current, everything_current = row
    return StoredPage(Detail(body, last_modified, False) if current else None, all_stale=not everything_current)


def prune(tags: Sequence[str] | None = None) -> int:
    """Delete the stored documents that can no longer be read, among `tags` or all; answer how many.

    A document whose tag or `*` has moved on is never served again: its
    record was changed (and its readers store a new one under the same key),
    deleted or renamed. Only those rows are removed, so readers lose nothing.
    Called after each committed write for the tags it touched (`on_documents_changed`),
    so that the store holds no more than what can be read.
    """
    alias = router.db_for_write(StoredDocument)
    connection = connections[alias]
    documents, joined = _tables(connection)
    among, params = "", [EVERYTHING]
    if tags is not None:
        if not tags:
            return 0
        among, params = f" AND d.tag IN ({', '.join(['%s'] * len(tags))})", [EVERYTHING, *tags]
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {documents} WHERE id IN (SELECT d.id FROM {joined} WHERE NOT ({_IS_CURRENT}){among})",
            params,
        )
        return int(cursor.rowcount)


def forget_unused_versions(*, kept_for: dt.timedelta = UNUSED_ROWS_KEPT_FOR) -> int:
    """Delete the version rows of tags that no stored document carries and nothing bumped for `kept_for`.

    Such a tag reads as 0 again, as one never bumped: its next document is built and stored
    under 0, its next write makes the row again. `*` is never forgotten. Answers how many went;
    at most FORGOTTEN_PER_STATEMENT at a time, so that the clean-up after a write stays bounded.
    """
    alias = router.db_for_write(DocumentVersion)
    connection = connections[alias]
    quote = connection.ops.quote_name
    table, documents = quote(DocumentVersion._meta.db_table), quote(StoredDocument._meta.db_table)
    before = connection.ops.adapt_datetimefield_value(timezone.now() - kept_for)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE tag IN (SELECT v.tag FROM {table} v WHERE v.tag <> %s "
            f"AND v.bumped_at < %s AND NOT EXISTS (SELECT 1 FROM {documents} d WHERE d.tag = v.tag) LIMIT %s)",
            [EVERYTHING, before, document_versions.FORGOTTEN_PER_STATEMENT],
        )
        return int(cursor.rowcount)


def _timestamp(moment: dt.datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp())


def build(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode, *,
          own_transaction: bool = False) -> dict[str, str]:
    """Build the documents of `keys` and store them; answer them by tag.

    On PostgreSQL one prepared statement builds them (`sql_built`), elsewhere
    the serializers. `own_transaction` says the caller's transaction does
    nothing else (`_build_once`): a failed store may roll it back whole.
    """
    variant = kind.variant(mode)
    model = kind.serializer.Meta.model  # type: ignore[attr-defined]  # every kind's serializer is a model's
    built = sql_built.documents(kind.name, keys, mode, router.db_for_read(model))
    if built is not None:
        rows = [StoredDocument(tag=kind.tag(document.key), variant=variant, tag_version=document.tag_version,
                               everything_version=document.everything_version, body=document.body,
                               last_modified=document.last_modified, fictional=document.fictional)
                for document in built]
    else:
        rows = _serialized(kind, keys, mode, variant)
    _store(sorted(rows, key=lambda row: row.tag), savepoint=not own_transaction)
    return {row.tag: row.body for row in rows}


def _serialized(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode, variant: str) -> list[StoredDocument]:
    """The documents of `keys` built by the serializers, as rows to store."""
    # Read before the data: a document is never stored under versions newer than what it shows.
    versions = DocumentVersion.objects.versions([*(kind.tag(key) for key in keys), EVERYTHING])
    records = kind.select(mode.nested).filter(**{f"{kind.key_field}__in": list(keys)})
    data = kind.serializer(records, many=True, context={"request": _BuildingRequest()}).data
    rows = []
    # The serializer has read the records; iterating them again reads nothing.
    for record, document in zip(records, data, strict=True):
        tag = kind.tag(document[kind.document_key])
        moment, fictional = kind.facts(record)
        rows.append(StoredDocument(tag=tag, variant=variant, tag_version=versions.get(tag, 0),
                                   everything_version=versions[EVERYTHING], body=_RENDERER.render(document).decode(),
                                   last_modified=_timestamp(moment), fictional=fictional))
    return rows


_STORED_COLUMNS = ("tag", "variant", "tag_version", "everything_version", "body", "last_modified", "fictional")


def _parameter_limit(connection: BaseDatabaseWrapper) -> int:
    """Parameters one statement may carry: SQLite says its own (Django assumes 999), PostgreSQL takes 65,535."""
    if connection.vendor == "sqlite":
        return int(connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))
    return 65535


def _store(rows: list[StoredDocument], *, savepoint: bool = True) -> None:
    """Insert or replace `rows`: one statement for a page of 200 on either engine.

    Written in SQL because `bulk_create` splits its rows at Django's fixed
    limit for SQLite, and a page of 200 documents would cost more statements
    than a page of 5. `ON CONFLICT … DO UPDATE` is the same on both engines;
    its guard keeps a stored document built under newer versions (a slow
    builder that read before a write never overwrites one built after it).
    A request that reads from a replica stores nothing: it writes nowhere.
    Without `savepoint`, a failure rolls back the caller's transaction.
    """
    if routers.serving_from_replica():
        return
    alias = router.db_for_write(StoredDocument)
    connection = connections[alias]
    table = connection.ops.quote_name(StoredDocument._meta.db_table)
    columns = ", ".join(_STORED_COLUMNS)
    updates = ", ".join(f"{column} = excluded.{column}" for column in _STORED_COLUMNS[2:])
    newer_or_same = (f"{table}.tag_version <= excluded.tag_version "
                     f"AND {table}.everything_version <= excluded.everything_version")
    try:
        with transaction.atomic(using=alias, savepoint=savepoint), connection.cursor() as cursor:
            per_statement = max(1, _parameter_limit(connection) // len(_STORED_COLUMNS))
            for start in range(0, len(rows), per_statement):
                chunk = rows[start:start + per_statement]
                values = ", ".join([f"({', '.join(['%s'] * len(_STORED_COLUMNS))})"] * len(chunk))
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) VALUES {values} "
                    f"ON CONFLICT (tag, variant) DO UPDATE SET {updates} WHERE {newer_or_same}",
                    [getattr(row, column) for row in chunk for column in _STORED_COLUMNS],
                )
    except DatabaseError:
        # A busy database (SQLite's single writer) costs the next reader a rebuild, never this answer.
        logger.warning("stored API documents were not saved", exc_info=True)


def refresh(tags: Iterable[str], *, limit: int = REFRESH_LIMIT) -> int:
    """Build again the stored documents among `tags`, up to `limit`; answer how many were built.

    Called once a write is committed, with the tags it touched, so that the
    readers of what it changed find their documents current instead of
    building them. Only documents already stored are refreshed: a document
    nobody has read is built on its first read. Past `limit` (a write that
    touched thousands), the rest wait for their readers.
    """
    wanted = sorted(set(tags))
    if len(wanted) > REFRESH_SCAN_LIMIT:
        return 0  # a write that wide (a load, a merge) is left to the readers, or to `build_documents`
    # Stored pages are left to their readers: a page is built by its list's view, not by the serializers alone.
    rows = (StoredDocument.objects.filter(tag__in=wanted).exclude(variant__startswith=PAGE_PREFIX)
            .order_by("tag", "variant").values_list("tag", "variant"))
    batches: dict[tuple[str, str], list[str]] = {}
    for tag, variant in rows[:limit]:
        name, _, key = tag.partition(":")
        if name in KINDS:
            batches.setdefault((name, variant), []).append(key)
    count = 0
    for (name, variant), keys in batches.items():
        kind = KINDS[name]
        mode = FictionMode(variant) if kind.varies else FictionMode.INCLUDE
        count += len(build(kind, [int(key) for key in keys] if kind.key_field == "pk" else keys, mode))
    return count


# Tags whose writes were committed during the current request, refreshed once its response is sent.
_after_response = threading.local()


def on_request_started(**kwargs: Any) -> None:
    _after_response.tags = set()


def on_documents_changed(sender: Any, tags: Iterable[str], using: str, **kwargs: Any) -> None:
    """Receiver of `archive.freshness.signals.documents_changed`: the write is committed; refresh what it touched.

    Inside a request the refresh waits for the response to be sent (`on_request_finished`):
    the curator who wrote does not wait for the documents of the readers to be built.
    """
    if not enabled():
        return
    waiting: set[str] | None = getattr(_after_response, "tags", None)
    if waiting is not None:
        waiting.update(tags)
        return
    _refresh_logged(tags)


def on_request_finished(**kwargs: Any) -> None:
    """Sent by Django once the response has gone to the client: refresh what the request's writes touched."""
    waiting: set[str] | None = getattr(_after_response, "tags", None)
    _after_response.tags = None
    if waiting and enabled():
        _refresh_logged(waiting)


def _refresh_logged(tags: Iterable[str]) -> None:
    wanted = sorted(set(tags))
    try:
        refresh(wanted)
        # What the write made stale and nobody rebuilt goes: its own tags' rows, or every stale row
        # after a write that touched `*` (a load) or more tags than one statement takes.
        prune(None if EVERYTHING in wanted or len(wanted) > REFRESH_SCAN_LIMIT else wanted)
        # And the versions of tags nothing carries any more, so that the table of versions stays bounded.
        forget_unused_versions()
    except DatabaseError:
        # The write is committed; a document left stale is built by its next reader.
        logger.warning("stored API documents were not refreshed after a write", exc_info=True)


def _served(text: bytes, request: Any) -> bytes:
    origin = b'"' + _RENDERER.render(serializers.request_origin(request))[1:-1]

    def fill(match: re.Match[bytes]) -> bytes:
        start = match.start()
        return match[0] if start and text[start - 1] == _BACKSLASH else origin

    return _MARK.sub(fill, text)


def single(document: str, request: Any) -> bytes:
    """One stored document (or a stored page) as the response body for `request`."""
    return _served(document.encode(), request)


def marked_page(envelope: dict[str, Any], documents: list[str], request: Any) -> str:
    """A page of stored documents inside the paginator's envelope (whose last key is `results`), with origin marks.

    The envelope's links are the request's own absolute URLs; their origin is
    marked as the documents' is, so that the page can be stored and served to
    any host.
    """
    origin = serializers.request_origin(request)
    marked = {name: _marked_url(value, origin) if isinstance(value, str) else value
              for name, value in envelope.items()}
    head = _RENDERER.render(marked).decode()
    assert head.endswith('"results":[]}'), head[-40:]
    return head[:-2] + ",".join(documents) + "]}"


def build_every(kinds: Sequence[str], modes: Sequence[FictionMode], *, batch: int = 200,
                progress: Callable[[str, int], None] | None = None) -> int:
    """Build and store the documents of every shown record of `kinds`, in `modes`; answer how many.

    For a whole archive written in bulk (a load, an import), so that its
    readers find the documents already built; `manage.py build_documents`.
    """
    count = 0
    for name in kinds:
        kind = KINDS[name]
        for mode in dict.fromkeys(FictionMode(kind.variant(mode)) if kind.varies else FictionMode.INCLUDE
                                  for mode in modes):
            keys = list(kind.select(mode).prefetch_related(None).order_by(kind.key_field)
                        .values_list(kind.key_field, flat=True))
            for start in range(0, len(keys), batch):
                count += len(build(kind, keys[start:start + batch], mode))
            if progress is not None:
                progress(f"{name} ({kind.variant(mode)})", len(keys))
    return count
