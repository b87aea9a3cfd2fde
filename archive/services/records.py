"""Create, change and delete records and their names, aliases and passages.

The one rule of every edit: a draft (or a record in review, or rejected) is
saved in place, checked against the version its editor loaded
(`archive.locking`); a published record is never changed in place, the edit
becomes its pending revision (`archive.services.revisions`) and the published
version stays served until someone else approves it. A name, an alias or a
passage belongs to its record: editing one of a published record is proposed
as a change of that record.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import Curated, Revision, Status
from archive.services import revisions
from archive.services.authorship import delete_as, save_as


def is_published(record: models.Model) -> bool:
    """Whether the stored row of `record` is approved (what is in memory may be an edit)."""
    if record.pk is None or not isinstance(record, Curated):
        return False
    return type(record)._default_manager.filter(pk=record.pk, status=Status.APPROVED).exists()


@transaction.atomic
def record_create(*, record: Curated, by: Any, reason: str = "created") -> Curated:
    """A new record, always a draft of its author."""
    record.created_by = by
    record.modified_by = by
    record.status = Status.DRAFT
    save_as(record, by=by, reason=reason)
    return record


def _save_unpublished(record: Curated, *, by: Any, reason: str) -> None:
    """Save over the version the editor loaded; the model refuses it with what changed meanwhile."""
    if not type(record)._default_manager.filter(pk=record.pk).exists():
        raise ValidationError(_("%(record)s no longer exists; nothing was saved.") % {"record": record})
    record.modified_by = by
    save_as(record, by=by, reason=reason)


@transaction.atomic
def record_update(
    *,
    record: Curated,
    by: Any,
    reason: str = "changed",
    m2m: dict[str, Iterable[Any]] | None = None,
    kind: str = "change",
) -> Revision | None:
    """Store an edit of `record` (unsaved in memory): in place for a draft, as a revision if published.

    Returns the pending revision when the record is published (None when the
    edit withdrew it by restoring every published value), else None.
    """
    if is_published(record):
        return revisions.propose_change(record=record, by=by, m2m=m2m, kind=kind)
    _save_unpublished(record, by=by, reason=reason)
    for name, values in (m2m or {}).items():
        getattr(record, name).set(values)
    return None


@transaction.atomic
def record_delete(*, record: Curated, by: Any, reason: str = "deleted") -> Revision | None:
    """Delete a draft at once; a published record's deletion is proposed for review."""
    if is_published(record):
        return revisions.propose_delete(record=record, by=by)
    delete_as(record, by=by, reason=reason)
    return None


def _touch(parent: Curated, *, by: Any, reason: str) -> None:
    """A change of a name or alias of an unpublished record is a change of that record."""
    fresh = type(parent)._default_manager.get(pk=parent.pk)
    fresh.modified_by = by
    save_as(fresh, by=by, reason=reason, update_fields=["modified_by", "updated_at"])


@transaction.atomic
def child_save(*, child: models.Model, parent_field: str, by: Any, reason: str = "changed") -> Revision | None:
    """Save a name, alias or passage (unsaved, with its new values) of its record."""
    parent = getattr(child, parent_field)
    if child.pk is not None:
        # The record it belonged to when loaded decides, not a parent the edit names.
        stored = type(child)._default_manager.filter(pk=child.pk).values_list(f"{parent_field}_id", flat=True).first()
        if stored is not None and stored != parent.pk:
            previous = type(parent)._default_manager.get(pk=stored)
            if is_published(previous) or is_published(parent):
                raise ValidationError(
                    _("A name of a published record is not moved to another record; add it there instead.")
                )
    if is_published(parent):
        return revisions.propose_child(parent=parent, child=child, by=by)
    save_as(child, by=by, reason=reason)
    if isinstance(parent, Curated):
        _touch(parent, by=by, reason=f"{child._meta.verbose_name} {reason}")
    return None


@transaction.atomic
def child_delete(*, child: models.Model, parent_field: str, by: Any) -> Revision | None:
    parent = getattr(child, parent_field)
    if is_published(parent):
        return revisions.propose_child(parent=parent, child=child, by=by, delete=True)
    delete_as(child, by=by, reason=f"{child._meta.verbose_name} deleted")
    if isinstance(parent, Curated):
        _touch(parent, by=by, reason=f"{child._meta.verbose_name} deleted")
    return None
