"""Review of new records: submit, approve, reject or request changes, with four eyes by contribution.

A record that was never published is reviewed as a whole: its author submits
it, and someone who contributed nothing to it (no edit, no submission, no
revert — read from its history) approves or rejects it. Changes of published
records are reviewed as revisions (`archive.services.revisions`) under the
same rule. A person, unit, place, event, post or participation is published
only on evidence: approving one with no approved citation is refused unless
the reviewer says why in a note, which the history keeps.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.locking import ConcurrentEdit
from archive.models import TARGET_FIELDS, Citation, Curated, Status
from archive.services import decisions, discussion
from archive.services.authorship import mark
from archive.services.published import after_publish

# History reasons of review decisions: a reviewer's decision is no contribution.
_DECISIONS = ("approved", "rejected", "changes requested")
# Primary keys per statement: well inside every engine's limit of parameters.
CHUNK = 900


def contributors(record: Curated) -> set[int]:
    """Everyone who had a hand in the record since it was last published: author, editors, submitter."""
    ids = {pk for pk in (record.created_by_id, record.modified_by_id) if pk is not None}
    history = getattr(record, "history", None)
    if history is None:
        return ids
    entries = history.order_by("-history_date", "-history_id").values_list(
        "history_user_id", "history_change_reason", "status"
    )
    for user_id, reason, status in entries:
        if status == Status.APPROVED and reason and str(reason).startswith("approved"):
            break  # what came before was reviewed already
        if user_id is not None and not (reason and str(reason).startswith(_DECISIONS)):
            ids.add(user_id)
    return ids


def contributors_of_many(
    model: type[Curated], records: Iterable[Curated], among: Any = None
) -> dict[Any, set[int]]:
    """`contributors` of many records of `model`, read from one history query.

    `among`, a query of the records' primary keys, replaces the list of them
    in the history query (one subquery instead of hundreds of parameters).
    """
    ids = {
        record.pk: {pk for pk in (record.created_by_id, record.modified_by_id) if pk is not None} for record in records
    }
    history = getattr(model, "history", None)
    if history is None or not ids:
        return ids
    pks = list(ids)
    for start in range(0, len(pks), CHUNK):
        chosen = {"id__in": among} if among is not None else {"id__in": pks[start : start + CHUNK]}
        entries = (
            history.model.objects.filter(**chosen)
            .order_by("id", "-history_date", "-history_id")
            .values_list("id", "history_user_id", "history_change_reason", "status")
        )
        reviewed: set[Any] = set()
        for pk, user_id, reason, status in entries:
            if pk in reviewed:
                continue
            if status == Status.APPROVED and reason and str(reason).startswith("approved"):
                reviewed.add(pk)  # what came before was reviewed already
                continue
            if user_id is not None and pk in ids and not (reason and str(reason).startswith(_DECISIONS)):
                ids[pk].add(user_id)
        if among is not None:
            break  # the one query covered them all
    return ids


def can_review(record: Curated, user: Any) -> bool:
    """Four eyes: a reviewer never decides on a record they contributed to."""
    opts = record._meta
    if not user.has_perm(f"{opts.app_label}.review_{opts.model_name}") and not user.is_superuser:
        return False
    return user.pk not in contributors(record)


def _check_reviewer(record: Curated, user: Any) -> None:
    if user.pk in contributors(record):
        raise PermissionDenied(_("You cannot review %(record)s: you contributed to it.") % {"record": record})
    if not can_review(record, user):
        raise PermissionDenied(_("You are not allowed to review %(record)s.") % {"record": record})


def needs_evidence(record: Curated) -> bool:
    """Whether `record` is of a kind that is published only on an approved citation."""
    return record._meta.model_name in TARGET_FIELDS


def has_evidence(record: Curated) -> bool:
    field = record._meta.model_name
    return bool(field) and Citation.objects.filter(**{field: record.pk}, status=Status.APPROVED).exists()


def _save(record: Curated, *, by: Any, reason: str) -> None:
    mark(record, by=by, reason=reason)
    record.save_transition()


def _pin(record: Curated, shown: str) -> None:
    """Hold a decision to the state its reviewer read (`archive.services.decisions`); one that names none is refused.

    The record's save then claims the pinned version, so that an edit
    committed after this check still makes the decision fail in the database.
    A copy of `record` older than the state pinned is refused too: saving it
    would write its older fields over the state the reviewer read.
    """
    stored = type(record)._default_manager.select_for_update().get(pk=record.pk)
    pinned = decisions.check_record(stored, shown)
    if record.version != pinned:
        raise ConcurrentEdit(record, loaded_version=record.version, using=stored._state.db or "default")


@transaction.atomic
def submit(record: Curated, *, by: Any) -> Curated:
    if record.status not in (Status.DRAFT, Status.REJECTED):
        raise ValidationError(
            _("Only a draft or a rejected record can be submitted; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )
    record.status = Status.IN_REVIEW
    record.modified_by = by
    _save(record, by=by, reason="submitted for review")
    return record


@transaction.atomic
def approve(
    record: Curated, *, by: Any, shown: str, note: str = "", without_evidence: str = ""
) -> Curated:
    """Publish a record in review; `without_evidence` is the reviewer's reason to publish one with no citation.

    `shown` is the pin of the state the decider read (`archive.services.decisions.record_pin`),
    required of every caller: the queue and the admin actions post the one their page showed,
    code that decides on a record it read itself computes it from that record.
    """
    if record.status != Status.IN_REVIEW:
        raise ValidationError(
            _("Only a record in review can be approved; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )
    _check_reviewer(record, by)
    _pin(record, shown)
    reason = f"approved: {note}" if note else "approved"
    if needs_evidence(record) and not has_evidence(record):
        if not without_evidence.strip():
            raise ValidationError(
                _(
                    "%(record)s has no approved citation: approve the evidence first, or say in a note "
                    "why it is published without."
                )
                % {"record": record},
                code="no_evidence",
            )
        reason = f"approved without evidence: {without_evidence.strip()}"
        note = f"{note}\n{without_evidence.strip()}".strip() if note else without_evidence.strip()
    record.status = Status.APPROVED
    record.reviewed_by = by
    record.reviewed_at = timezone.now()
    record.review_note = note
    _save(record, by=by, reason=reason)
    after_publish(record)
    return record


@transaction.atomic
def reject(record: Curated, *, by: Any, note: str, shown: str) -> Curated:
    """Send a record in review back to its authors; `shown` is the pin of what was read, as for `approve`."""
    if record.status != Status.IN_REVIEW:
        raise ValidationError(
            _("Only a record in review can be rejected; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )
    if not note.strip():
        raise ValidationError({"review_note": _("A rejection says why.")})
    return _send_back(record, by=by, note=note, shown=shown, status=Status.REJECTED, reason="rejected")


def _send_back(record: Curated, *, by: Any, note: str, shown: str, status: str, reason: str) -> Curated:
    """Decide a record in review against its authors (rejected, or a draft again), pinned to what was read."""
    _check_reviewer(record, by)
    _pin(record, shown)
    record.status = status
    record.reviewed_by = by
    record.reviewed_at = timezone.now()
    record.review_note = note
    _save(record, by=by, reason=f"{reason}: {note}")
    return record


@transaction.atomic
def request_changes(record: Curated, *, by: Any, note: str, shown: str) -> Curated:
    """Return a record in review to its authors as a draft, with the reviewer's request in its thread.

    The third decision beside approval and rejection (Gerrit's -1, GitHub's
    "request changes"): nothing is refused for good, the authors fix the draft
    and submit it again. Pinned to what was read (`shown`), as `approve` is.
    """
    if record.status != Status.IN_REVIEW:
        raise ValidationError(
            _("Only a record in review can be returned with changes requested; %(record)s is %(status)s.")
            % {"record": record, "status": record.get_status_display()}
        )
    if not note.strip():
        raise ValidationError({"review_note": _("Say what should change.")})
    _send_back(record, by=by, note=note, shown=shown, status=Status.DRAFT, reason="changes requested")
    discussion.record_request(subject=record, by=by, text=note)
    return record
