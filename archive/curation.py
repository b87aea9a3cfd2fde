"""Review transitions: submit, approve, reject.

Every path that changes a record's review state (admin actions, the review
queue, spreadsheet imports, shell scripts) calls these functions; the model
refuses a reviewed status reached any other way. Each transition is saved
with a change reason, so it appears in the record's history.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.models import Curated, Status


def _save(record: Curated, reason: str) -> None:
    record._change_reason = reason  # type: ignore[attr-defined]  # read by simple-history
    record.save_transition()


def can_review(record: Curated, user: Any) -> bool:
    """Four eyes: a reviewer never approves what they created or last changed."""
    if not user.has_perm(f"{record._meta.app_label}.review_{record._meta.model_name}") and not user.is_superuser:
        return False
    return user.pk not in {record.created_by_id, record.modified_by_id}


def _check_reviewer(record: Curated, user: Any) -> None:
    if user.pk in {record.created_by_id, record.modified_by_id}:
        raise PermissionDenied(_("You cannot review %(record)s: you created or last changed it.") % {"record": record})
    if not can_review(record, user):
        raise PermissionDenied(_("You are not allowed to review %(record)s.") % {"record": record})


@transaction.atomic
def submit(record: Curated, *, by: Any) -> Curated:
    if record.status not in (Status.DRAFT, Status.REJECTED):
        raise ValidationError(
            _("Only a draft or a rejected record can be submitted; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )  # type: ignore[attr-defined]
    record.status = Status.IN_REVIEW
    record.modified_by = by
    _save(record, "submitted for review")
    return record


@transaction.atomic
def approve(record: Curated, *, by: Any, note: str = "") -> Curated:
    if record.status != Status.IN_REVIEW:
        raise ValidationError(
            _("Only a record in review can be approved; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )  # type: ignore[attr-defined]
    _check_reviewer(record, by)
    record.status = Status.APPROVED
    record.reviewed_by = by
    record.reviewed_at = timezone.now()
    record.review_note = note
    _save(record, f"approved: {note}" if note else "approved")
    return record


@transaction.atomic
def reject(record: Curated, *, by: Any, note: str) -> Curated:
    if record.status != Status.IN_REVIEW:
        raise ValidationError(
            _("Only a record in review can be rejected; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )  # type: ignore[attr-defined]
    if not note.strip():
        raise ValidationError({"review_note": _("A rejection says why.")})
    _check_reviewer(record, by)
    record.status = Status.REJECTED
    record.reviewed_by = by
    record.reviewed_at = timezone.now()
    record.review_note = note
    _save(record, f"rejected: {note}")
    return record


def approve_all(records: Iterable[Curated], *, by: Any, note: str = "") -> list[Curated]:
    return [approve(record, by=by, note=note) for record in records]
