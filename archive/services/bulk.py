"""Submit, approve and reject many records as one service call, in one transaction.

The one-record services (`archive.services.review`) read and write each
record several times over: its contributors from the history, its pin, its
evidence, a save that claims its version, a history row, the fiction flags
and the freshness tags of what nests it. For a batch of hundreds that is a
minute. Here every rule of those services holds, read and written per model
instead of per record:

* the records are read once, locked, with their evidence (the pins);
* four eyes from one history query per model (`review.contributors_of_many`);
* every check runs before any write, so a record approved together with its
  evidence finds that evidence approved, and a refused item (changed since it
  was shown, not in review, contributed to by the reviewer, published with no
  evidence) is named and left as it is while the others are decided;
* each record's version is claimed in the UPDATE that decides it
  (``WHERE version = pinned``): a write that slipped in after the checks
  undoes the whole call;
* one history row per record, with the decider and the reason, written by
  simple-history's `bulk_history_create`; a model whose history also
  snapshots many-to-many links (events, statements) is saved record by record,
  as the one-record path does;
* the fiction flags of what approved citations stand for are recomputed once
  per model, and the cached documents' tags bumped once per call.

Pending revisions are decided one by one in the same transaction (each
applies its own change), with the tags and fiction flags gathered to its end.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, router, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import fiction
from archive.freshness import signals as freshness
from archive.models import TARGET_FIELDS, Citation, Curated, Revision, Source, Status
from archive.models.registry import CURATED_MODELS, cited_model
from archive.services import decisions, revisions
from archive.services import review as single
from archive.services.authorship import mark
from archive.services.published import after_publish

CHUNK = single.CHUNK

# A record named by its model and primary key.
Key = tuple[type[Curated], int]


@dataclass
class Outcome:
    """What a bulk call decided, and what it refused with the reason (by record label)."""

    done: list[Any] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


class BatchChanged(ValidationError):
    """A record changed between the checks and the write: nothing of the call was written."""


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def _by_model(keys: Iterable[Key]) -> dict[type[Curated], list[int]]:
    grouped: dict[type[Curated], list[int]] = defaultdict(list)
    for model, pk in keys:
        grouped[model].append(pk)
    order = {model: n for n, model in enumerate(CURATED_MODELS)}
    return dict(sorted(grouped.items(), key=lambda item: order.get(item[0], len(order))))


def _evidence_prefetch() -> models.Prefetch:
    return models.Prefetch("citations", queryset=Citation.objects.only("pk", "version", "status", *TARGET_FIELDS))


def _locked(model: type[Curated], pks: Sequence[int], *, with_evidence: bool) -> list[Curated]:
    found: list[Curated] = []
    for chunk in _chunks(sorted(set(pks))):
        rows = model._default_manager.select_for_update().filter(pk__in=chunk).order_by("pk")
        if with_evidence and model not in (Citation, Source):
            rows = rows.prefetch_related(_evidence_prefetch())
        found.extend(rows)
    return found


def _refuse(outcome: Outcome, record: Any, reason: str) -> None:
    outcome.refused.append((str(record), reason))


# The one-record services' own words for a record in the wrong state.
_WRONG_STATE = {
    "submit": lambda: _("Only a draft or a rejected record can be submitted; %(record)s is %(status)s."),
    "approve": lambda: _("Only a record in review can be approved; %(record)s is %(status)s."),
    "reject": lambda: _("Only a record in review can be rejected; %(record)s is %(status)s."),
}


def _status_refusal(record: Curated, verb: str) -> str:
    return _WRONG_STATE[verb]() % {"record": record, "status": record.get_status_display()}


def _reviewable(
    model: type[Curated], records: list[Curated], by: Any, outcome: Outcome, verb: str
) -> list[Curated]:
    """The records `by` may decide on: in review, of a kind they review, none of theirs."""
    opts = model._meta
    if not (by.is_superuser or by.has_perm(f"{opts.app_label}.review_{opts.model_name}")):
        refusal = _("You are not allowed to review %(things)s.") % {"things": opts.verbose_name_plural}
        for record in records:
            _refuse(outcome, record, refusal)
        return []
    contributors = single.contributors_of_many(model, records)
    kept = []
    for record in records:
        if record.status != Status.IN_REVIEW:
            _refuse(outcome, record, _status_refusal(record, verb))
        elif by.pk in contributors[record.pk]:
            _refuse(outcome, record, _("You cannot review %(record)s: you contributed to it.") % {"record": record})
        else:
            kept.append(record)
    return kept


def _pinned(record: Curated, shown: str, outcome: Outcome) -> bool:
    """Whether `record` is as its reviewer read it (its evidence was prefetched with it)."""
    try:
        decisions.check_record(record, shown)
    except ValidationError as exc:
        _refuse(outcome, record, " ".join(exc.messages))
        return False
    return True


def _write(
    model: type[Curated], records: list[Curated], *, by: Any, reason: str, values: dict[str, Any], now: Any
) -> None:
    """Move `records` to `values`, each from the version it was checked at, with one history row each."""
    if not records:
        return
    history_model = model.history.model  # type: ignore[attr-defined]  # simple-history adds it
    if history_model._history_m2m_fields:
        # Its history also snapshots links: the one-record save writes those rows.
        for record in records:
            for name, value in values.items():
                setattr(record, name, value)
            mark(record, by=by, reason=reason)
            record.save_transition()
        return
    by_version: dict[int, list[int]] = defaultdict(list)
    for record in records:
        by_version[record.version].append(record.pk)
    for version, pks in by_version.items():
        for chunk in _chunks(pks):
            written = (
                model._default_manager.filter(pk__in=chunk, version=version)
                .exclude(status=Status.APPROVED)
                .update(**values, version=models.F("version") + 1, updated_at=now)
            )
            if written != len(chunk):
                raise BatchChanged(
                    _("%(things)s changed while they were being decided; nothing was decided. Try again.")
                    % {"things": model._meta.verbose_name_plural},
                    code="stale",
                )
    fresh = []
    for chunk in _chunks([record.pk for record in records]):
        fresh.extend(model._default_manager.filter(pk__in=chunk))
    model.history.bulk_history_create(  # type: ignore[attr-defined]  # simple-history adds it
        fresh, update=True, default_user=by, default_change_reason=reason, default_date=now
    )
    for record in records:  # the caller's copies follow the stored rows
        for name, value in values.items():
            setattr(record, name, value)
        record.version += 1


def _using() -> str:
    return router.db_for_write(Citation)


@transaction.atomic
def submit_many(*, records: Iterable[Key], by: Any) -> Outcome:
    """Send drafts and rejected records to review, each with its history row; the others are named, not sent."""
    outcome = Outcome()
    now = timezone.now()
    for model, pks in _by_model(records).items():
        found = _locked(model, pks, with_evidence=False)
        ready = []
        for record in found:
            if record.status in (Status.DRAFT, Status.REJECTED):
                ready.append(record)
            else:
                _refuse(outcome, record, _status_refusal(record, "submit"))
        _write(
            model, ready, by=by, reason="submitted for review",
            values={"status": Status.IN_REVIEW, "modified_by": by}, now=now,
        )
        outcome.done.extend(ready)
    return outcome


def _approved_evidence(
    checked: dict[type[Curated], list[Curated]],
) -> dict[str, set[int]]:
    """By target field, the records that will have approved evidence: stored, or approved in this call."""
    found: dict[str, set[int]] = defaultdict(set)
    for citation in checked.get(Citation, []):
        target = citation.target_field  # type: ignore[attr-defined]  # a citation
        if target is not None:
            found[target].add(getattr(citation, f"{target}_id"))
    for model, records in checked.items():
        name = model._meta.model_name
        if name not in TARGET_FIELDS:
            continue
        pks = [record.pk for record in records]
        for chunk in _chunks(pks):
            found[name] |= set(
                Citation.objects.filter(**{f"{name}__in": chunk}, status=Status.APPROVED).values_list(name, flat=True)
            )
    return found


@transaction.atomic
def approve_many(*, shown: Mapping[Key, str], by: Any, note: str = "") -> Outcome:
    """Publish the records in review as their reviewer read them: `shown` maps each to its pin.

    A record changed since (`archive.services.decisions`), one the reviewer may
    not decide on, and one of a kind published only on evidence that has none
    approved (here or in this call) are refused by name; the others are
    approved together.
    """
    outcome = Outcome()
    now = timezone.now()
    checked: dict[type[Curated], list[Curated]] = {}
    for model, pks in _by_model(shown).items():
        found = _reviewable(model, _locked(model, pks, with_evidence=True), by, outcome, "approve")
        checked[model] = [record for record in found if _pinned(record, shown[(model, record.pk)], outcome)]
    evidenced = _approved_evidence(checked)
    reason = f"approved: {note}" if note else "approved"
    with freshness.bulk(_using()), fiction.deferred(_using()):
        for model, records in checked.items():
            name = model._meta.model_name
            ready = []
            for record in records:
                if single.needs_evidence(record) and record.pk not in evidenced[name or ""]:
                    _refuse(
                        outcome,
                        record,
                        _("%(record)s has no approved citation: approve it alone, with a note saying why it is "
                          "published without.") % {"record": record},
                    )
                else:
                    ready.append(record)
            _write(
                model, ready, by=by, reason=reason,
                values={"status": Status.APPROVED, "reviewed_by": by, "reviewed_at": now, "review_note": note},
                now=now,
            )
            outcome.done.extend(ready)
        if outcome.done:
            _after_approval(outcome.done)
    return outcome


def _after_approval(records: list[Any]) -> None:
    """What the one-record saves' signals and `after_publish` do: fiction flags, derived columns, tags."""
    targets: dict[str, set[int]] = defaultdict(set)
    for record in records:
        if isinstance(record, Citation) and record.target_field is not None:
            targets[record.target_field].add(getattr(record, f"{record.target_field}_id"))
        after_publish(record)
    for name, pks in targets.items():
        fiction.refresh(cited_model(name), pks, _using())
    freshness.everything_changed(_using())


@transaction.atomic
def reject_many(*, shown: Mapping[Key, str], by: Any, note: str) -> Outcome:
    """Send the records in review back to their authors with one note; `shown` as for `approve_many`."""
    if not note.strip():
        raise ValidationError({"review_note": _("A rejection says why.")})
    outcome = Outcome()
    now = timezone.now()
    for model, pks in _by_model(shown).items():
        found = _reviewable(model, _locked(model, pks, with_evidence=True), by, outcome, "reject")
        ready = [record for record in found if _pinned(record, shown[(model, record.pk)], outcome)]
        _write(
            model, ready, by=by, reason=f"rejected: {note}",
            values={"status": Status.REJECTED, "reviewed_by": by, "reviewed_at": now, "review_note": note},
            now=now,
        )
        outcome.done.extend(ready)
    return outcome


@transaction.atomic
def decide_revisions(*, verb: str, shown: Mapping[int, str], by: Any, note: str = "") -> Outcome:
    """Approve or reject pending revisions (by pk, with their pins) one by one, in one transaction.

    Each is decided in a savepoint, so a refused one is named and the others stand.
    """
    outcome = Outcome()
    pending = {revision.pk: revision for revision in Revision.objects.filter(pk__in=list(shown))}
    with freshness.bulk(_using()), fiction.deferred(_using()):
        for pk, pin in shown.items():
            revision = pending.get(pk)
            if revision is None:
                outcome.refused.append((str(pk), _("No such change: %(key)s.") % {"key": pk}))
                continue
            try:
                with transaction.atomic():
                    if verb == "approve":
                        revisions.approve_revision(revision=revision, by=by, shown=pin, note=note)
                    else:
                        revisions.reject_revision(revision=revision, by=by, shown=pin, note=note)
            except (PermissionDenied, ValidationError) as exc:
                text = " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
                outcome.refused.append((revision.record_label, text))
            else:
                outcome.done.append(revision)
    return outcome
