"""The API's read model: documents stored as JSON text and read back without building records.

A page of fifty nested events is some seven hundred model instances and tens
of milliseconds of Python through the ORM and the serializers; fifty stored
documents are one indexed query. The serializers remain the one definition of
every shape: a document is built by them the first time it is asked for (or
for a whole archive by `manage.py build_documents`), stored under the
versions of its tag and of `*` (`archive.models.stored_documents`), and read
back while those versions stand. Every write bumps the tags of the documents
that show what it wrote, in the writer's transaction (`archive.freshness`), so
a stale document is never read; once the write commits, the stored documents
it touched are built again (`refresh`), and any left over by its next reader.

Lists still filter, order, count and page the records in SQL: only the
documents of the page are read from the store, so a page of 200 costs the
same queries as a page of 5.

URLs in a document are absolute and depend on the request's host, so a
document is built with a mark where the origin goes and the mark is replaced
as it is served.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, router, transaction
from django.db.models import QuerySet
from rest_framework.renderers import JSONRenderer
from rest_framework.serializers import BaseSerializer

from archive import selectors
from archive.api import serializers
from archive.models import DocumentVersion, StoredDocument
from archive.models.document_versions import EVERYTHING
from archive.selectors import FictionMode

logger = logging.getLogger(__name__)

# NUL never reaches the archive's text (form fields and PostgreSQL refuse it), so the mark cannot be data.
ORIGIN = "\x00origin"
_RENDERER = JSONRenderer()
# Documents refreshed after one write at most; a larger write leaves the rest to their readers.
REFRESH_LIMIT = 200
# Tags looked up after one write at most (one query's parameters on every engine).
REFRESH_SCAN_LIMIT = 5000
_ORIGIN_IN_JSON = _RENDERER.render(ORIGIN)[1:-1]


class _BuildingRequest:
    """Stands for the request while a document is built: the serializers ask it only for its origin."""

    _archive_origin = ORIGIN


@dataclass(frozen=True)
class DocumentKind:
    """One kind of stored document: its tag's prefix, how its records are selected and shown."""

    name: str
    serializer: type[BaseSerializer]
    select: Callable[[FictionMode], QuerySet]
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
        DocumentKind("source", serializers.SourceSerializer, lambda mode: selectors.sources(), varies=False),
        DocumentKind("passage", serializers.PassageSerializer, selectors.passages, "pk", "id"),
        DocumentKind("citation", serializers.CitationSerializer, lambda mode: selectors.citations_with_targets(),
                     "pk", "id", varies=False),
    )
}


def enabled() -> bool:
    """Whether the API reads its JSON documents from the store (`API_STORED_DOCUMENTS`, on by default)."""
    return bool(getattr(settings, "API_STORED_DOCUMENTS", True))


def documents(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode) -> list[str]:
    """The documents of the records named by `keys`, in that order, as JSON text with the origin mark.

    Those not stored, or stored under older versions, are built and stored
    first; a key whose record is not shown in `mode` is left out.
    """
    variant = kind.variant(mode)
    tags = [kind.tag(key) for key in keys]
    found = _read(tags, variant)
    missing = [key for key, tag in zip(keys, tags, strict=True) if tag not in found]
    if missing:
        found.update(build(kind, missing, mode))
    return [found[tag] for tag in tags if tag in found]


def _read(tags: list[str], variant: str) -> dict[str, str]:
    """The stored documents among `tags` that are still valid, in one statement.

    Written in SQL rather than composed by the ORM: composing the query cost
    more than running it, on every request of the API.
    """
    if not tags:
        return {}
    alias = router.db_for_read(StoredDocument)
    connection = connections[alias]
    documents = connection.ops.quote_name(StoredDocument._meta.db_table)
    versions = connection.ops.quote_name(DocumentVersion._meta.db_table)
    sql = (
        f"SELECT d.tag, d.body FROM {documents} d "
        f"LEFT JOIN {versions} v ON v.tag = d.tag LEFT JOIN {versions} e ON e.tag = %s "
        f"WHERE d.variant = %s AND d.tag IN ({', '.join(['%s'] * len(tags))}) "
        "AND d.tag_version = COALESCE(v.version, 0) AND d.everything_version = COALESCE(e.version, 0)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [EVERYTHING, variant, *tags])
        return dict(cursor.fetchall())


def build(kind: DocumentKind, keys: Sequence[Any], mode: FictionMode) -> dict[str, str]:
    """Build the documents of `keys` with the serializers and store them; answer them by tag."""
    variant = kind.variant(mode)
    # Read before the data: a document is never stored under versions newer than what it shows.
    versions = DocumentVersion.objects.versions([*(kind.tag(key) for key in keys), EVERYTHING])
    records = kind.select(mode.nested).filter(**{f"{kind.key_field}__in": list(keys)})
    data = kind.serializer(records, many=True, context={"request": _BuildingRequest()}).data
    built = {kind.tag(document[kind.document_key]): _RENDERER.render(document).decode() for document in data}
    _store(
        [
            StoredDocument(tag=tag, variant=variant, tag_version=versions.get(tag, 0),
                           everything_version=versions[EVERYTHING], body=body)
            for tag, body in sorted(built.items())
        ]
    )
    return built


def _store(rows: list[StoredDocument]) -> None:
    try:
        with transaction.atomic():
            StoredDocument.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=["tag", "variant"],
                update_fields=["tag_version", "everything_version", "body"],
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
    rows = StoredDocument.objects.filter(tag__in=wanted).order_by("tag", "variant").values_list("tag", "variant")
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


def on_documents_changed(sender: Any, tags: Iterable[str], using: str, **kwargs: Any) -> None:
    """Receiver of `archive.freshness.signals.documents_changed`: the write is committed; refresh what it touched."""
    if not enabled():
        return
    try:
        refresh(tags)
    except DatabaseError:
        # The write is committed; a document left stale is built by its next reader.
        logger.warning("stored API documents were not refreshed after a write", exc_info=True)


def _served(text: bytes, request: Any) -> bytes:
    return text.replace(_ORIGIN_IN_JSON, _RENDERER.render(serializers.request_origin(request))[1:-1])


def single(document: str, request: Any) -> bytes:
    """One stored document as the response body for `request`."""
    return _served(document.encode(), request)


def page(envelope: dict[str, Any], documents: list[str], request: Any) -> bytes:
    """A page of stored documents inside the paginator's envelope (whose last key is `results`)."""
    head = _RENDERER.render(envelope)
    assert head.endswith(b'"results":[]}'), head[-40:]
    body = head[:-2] + ",".join(documents).encode() + b"]}"
    return _served(body, request)


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
