"""Bump the tags a write touches, in the writer's transaction.

Before a row is changed, the tags of the documents that showed it as it was
are noted (a record may leave a person or an event, or change its slug);
after, those of the documents that show it now. Both are bumped, so a cached
answer built before the write is never served after it commits. Writes that
bypass the signals (COPY, `bulk_update`, merges) bump `*` themselves.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.signals import m2m_changed, post_save, pre_delete, pre_save

from archive.freshness import tags
from archive.models import DocumentVersion, Event, Statement

_BEFORE = "_freshness_before"


def _as_stored(sender: type[models.Model], instance: models.Model, using: str) -> set[str]:
    if instance.pk is None:
        return set()
    stored = sender._default_manager.using(using).filter(pk=instance.pk).first()
    return tags.touched(stored) if stored is not None else set()


def _before_save(sender: type[models.Model], instance: models.Model, raw: bool = False, using: str = "default",
                 **kwargs: Any) -> None:
    if raw:
        return  # fixtures load rows as they are; `loaddata` callers bump `*`
    setattr(instance, _BEFORE, _as_stored(sender, instance, using))


def _after_save(sender: type[models.Model], instance: models.Model, raw: bool = False, using: str = "default",
                **kwargs: Any) -> None:
    if raw:
        DocumentVersion.objects.bump_everything(using=using)
        return
    before: set[str] = getattr(instance, _BEFORE, set())
    DocumentVersion.objects.bump(before | tags.touched(instance), using=using)


def _before_delete(sender: type[models.Model], instance: models.Model, using: str = "default", **kwargs: Any) -> None:
    # Sent for every row of a cascade before any is deleted, while every link still stands.
    DocumentVersion.objects.bump(tags.touched(instance), using=using)


def _links_changed(sender: type[models.Model], instance: models.Model, action: str, model: type[models.Model],
                   pk_set: set[Any] | None, using: str = "default", **kwargs: Any) -> None:
    if not action.startswith("post_"):
        return
    found = tags.touched(instance)
    for other in model._default_manager.using(using).filter(pk__in=pk_set or ()):
        found |= tags.touched(other)
    DocumentVersion.objects.bump(found, using=using)


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
