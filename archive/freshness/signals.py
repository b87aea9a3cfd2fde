"""Bump the tags a write touches, in the writer's transaction.

Before a row is changed, the tags of the documents that showed it as it was
are noted (a record may leave a person or an event, or change its slug);
after, those of the documents that show it now. Both are bumped, so a cached
answer built before the write is never served after it commits. Writes that
bypass the signals (COPY, `bulk_update`, merges) bump `*` themselves.

Only published rows are shown (`tags.is_public`): a write to a row that was
unpublished before and is unpublished after (a draft, a record in review, a
draft source's passages) changes no document, so it bumps nothing and costs
the curator no reads of what nests it. A curated row's save that claimed an
unpublished row (`Curated.claimed_unpublished`) is not read again either.

A citation's save touches its own documents, its passage's and its record's;
what nests the record only when the save changed the record's fiction flag,
the one thing of it a citation changes that other documents show.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from django.db import connections, models, transaction
from django.db.models.signals import m2m_changed, post_save, pre_delete, pre_save
from django.dispatch import Signal

from archive import fiction
from archive.freshness import tags
from archive.models import Citation, Curated, DocumentVersion, Event, Statement
from archive.models.document_versions import EVERYTHING

_BEFORE = "_freshness_before"
_FLAGS = "_freshness_record_flags"
_PENDING = "_freshness_committed_tags"

# Sent once the writes that touched `tags` are committed (on `using`), for whoever keeps documents current.
documents_changed = Signal()

# Inside `bulk()`: the receivers only note that something was written.
_bulk = threading.local()


@contextlib.contextmanager
def bulk(using: str = "default") -> Iterator[None]:
    """A load of many rows: `*` is bumped once at its end instead of tags worked out row by row.

    Working out what each row of a whole collection touches reads every record
    that nests it, thousands of times over, to end in `*` anyway.
    """
    if getattr(_bulk, "active", False):
        yield
        return
    _bulk.active, _bulk.written = True, False
    try:
        yield
        if _bulk.written:
            _bump({EVERYTHING}, using)
    finally:
        _bulk.active = False


def everything_changed(using: str = "default") -> None:
    """Bump `*` once, for a write of many rows made without signals (`QuerySet.update`, bulk history).

    Inside `bulk()` it is noted, and bumped with the rest at the block's end.
    """
    if not _noted_in_bulk():
        _bump({EVERYTHING}, using)


def _noted_in_bulk() -> bool:
    if getattr(_bulk, "active", False):
        _bulk.written = True
        return True
    return False


def _bump(found: set[str], using: str) -> None:
    DocumentVersion.objects.bump(found, using=using)
    if not found:
        return
    # Collected on the connection and announced after the commit; a rolled-back transaction's tags
    # stay in the set and are announced with the next commit, which costs a needless check, no error.
    pending: set[str] = connections[using].__dict__.setdefault(_PENDING, set())
    pending |= found
    # Robust: what a receiver fails to do after the commit is logged; it never fails the committed write.
    transaction.on_commit(lambda: _announce(using), using=using, robust=True)


def _announce(using: str) -> None:
    pending: set[str] = connections[using].__dict__.get(_PENDING, set())
    if pending:
        tags = frozenset(pending)
        pending.clear()
        documents_changed.send(sender=DocumentVersion, tags=tags, using=using)


def _as_stored(sender: type[models.Model], instance: models.Model, using: str) -> models.Model | None:
    """The row as stored before this save, if a document showed it; else None."""
    if instance.pk is None:
        return None
    if isinstance(instance, Curated) and instance.claimed_unpublished():
        return None  # the save claimed the row unpublished and holds it locked: no document showed it
    # By its key alone: a model's default order (a citation's joins its passage and source) costs a join per save.
    stored = sender._default_manager.using(using).filter(pk=instance.pk).order_by().first()
    return stored if stored is not None and tags.is_public(stored) else None


def _before_save(sender: type[models.Model], instance: models.Model, raw: bool = False, using: str = "default",
                 **kwargs: Any) -> None:
    if raw or _noted_in_bulk():
        return  # fixtures load rows as they are; `loaddata` callers bump `*`
    stored = _as_stored(sender, instance, using)
    if isinstance(instance, Citation):
        # Worked out after the save, once it is known whether the save changed the fiction flag of the
        # record it is evidence for (`_citation_saved`); a citation's save changes nothing its tags read.
        setattr(instance, _BEFORE, stored)
        shown = [row for row in (stored, instance) if isinstance(row, Citation) and tags.is_public(row)]
        setattr(instance, _FLAGS, tags.record_flags(shown))
        return
    # A record's tags are worked out after the save, with its new state (`tags.saved`); the others' now,
    # while everything they read still shows the row as it was.
    setattr(instance, _BEFORE, stored if isinstance(stored, tags.RECORD_MODELS)
            else (tags.touched(stored) if stored is not None else set()))


def _after_save(sender: type[models.Model], instance: models.Model, raw: bool = False, using: str = "default",
                **kwargs: Any) -> None:
    if _noted_in_bulk():
        return
    if raw:
        DocumentVersion.objects.bump_everything(using=using)
        return
    before: set[str] | models.Model | None = getattr(instance, _BEFORE, set())
    shown = instance if tags.is_public(instance) else None
    if isinstance(instance, Citation):
        stored = before if isinstance(before, Citation) else None
        _bump(_citation_saved(stored, instance if shown is not None else None, getattr(instance, _FLAGS, {})),
              using)
    elif isinstance(before, set):
        _bump(before | (tags.touched(shown) if shown is not None else set()), using)
    else:
        _bump(tags.saved(before, shown), using)


def _citation_saved(stored: Citation | None, shown: Citation | None,
                    flags_before: dict[tuple[str, int], bool | None]) -> set[str]:
    """The tags a citation's save touches: what nests its record only where the record's fiction flag changed.

    Whether other documents show a record at all follows its flag, which the citation's save may change
    (`archive.fiction`, whose receiver has run by now); what else they show of it is by reference, which a
    citation leaves as it was. Inside `fiction.deferred()` the flag is written later: every nesting is touched.
    """
    flags = flags_before if fiction.refreshed_at_once() else None
    found: set[str] = set()
    for row in (stored, shown):
        if row is not None:
            found |= tags.citation(row, flags)
    return found


def _before_delete(sender: type[models.Model], instance: models.Model, using: str = "default", **kwargs: Any) -> None:
    # Sent for every row of a cascade before any is deleted, while every link still stands.
    if not _noted_in_bulk() and tags.is_public(instance):
        _bump(tags.touched(instance), using)


def _links_changed(sender: type[models.Model], instance: models.Model, action: str, model: type[models.Model],
                   pk_set: set[Any] | None, using: str = "default", **kwargs: Any) -> None:
    if not action.startswith("post_") or _noted_in_bulk():
        return
    # A link is shown only between published rows: an unpublished end makes it invisible.
    if not tags.is_public(instance):
        return
    found = tags.touched(instance)
    for other in model._default_manager.using(using).filter(pk__in=pk_set or ()):
        if tags.is_public(other):
            found |= tags.touched(other)
    _bump(found, using)


def connect() -> None:
    """Watch every model whose rows the API shows (called once the apps are ready)."""
    for model in tags.WATCHED:
        uid = f"archive.freshness.{model._meta.label_lower}"
        pre_save.connect(_before_save, sender=model, dispatch_uid=f"{uid}.pre_save")
        post_save.connect(_after_save, sender=model, dispatch_uid=f"{uid}.post_save")
        pre_delete.connect(_before_delete, sender=model, dispatch_uid=f"{uid}.pre_delete")
    for through in (Event.locations.through, Statement.citations.through):
        uid = f"archive.freshness.{through._meta.label_lower}"
        m2m_changed.connect(_links_changed, sender=through, dispatch_uid=uid)
