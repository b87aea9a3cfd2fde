"""Changes of published records: proposed, reviewed, then applied in one transaction.

A published (approved) record keeps being served as it is while someone
improves it: an edit becomes the record's pending `Revision`, holding only what
differs from the published row, and the row is written only when a reviewer
who contributed nothing to the revision approves it. Successive edits update
the same revision; an edit that brings every field back to the published
value withdraws it, which is how a pending change is reverted away.

Values travel as JSON (`archive.services.revision_values`), so that a revision
is readable in the database and in fixtures; a reviewer sees it as rows of
changed fields (`archive.services.revision_display`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.locking import ConcurrentEdit
from archive.models import Curated, Revision, RevisionKind, RevisionState
from archive.services import decisions, discussion
from archive.services.authorship import delete_as, save_as
from archive.services.published import after_publish

# Shown and converted by their own modules; callers find them here too.
from archive.services.revision_display import DiffRow as DiffRow
from archive.services.revision_display import describe as describe
from archive.services.revision_display import describe_many as describe_many
from archive.services.revision_values import (
    child_model,
    field_values,
    from_json,
    model_label,
    revisable_fields,
    to_json,
)


class RevisionChanged(ValidationError):
    """The pending revision was changed by someone else after this edit began; nothing was saved."""


# -- reading


def pending_revision(record: models.Model) -> Revision | None:
    if record.pk is None:
        return None
    return Revision.objects.open().of(record).first()


def pending_for(model: type[models.Model], pks: Iterable[Any]) -> dict[Any, Revision]:
    """Pending revisions of many records of `model`, by the record's pk, in one query."""
    content_type = ContentType.objects.get_for_model(model)
    return {
        revision.record_id: revision
        for revision in Revision.objects.pending().filter(record_type=content_type, record_id__in=list(pks))
    }


def with_pending(record: Curated, revision: Revision | None = None) -> Curated:
    """`record` with its pending field values laid over it, unsaved, for an edit form.

    The record remembers the revision's version it was shown, so that saving
    it over a revision changed meanwhile is refused (`RevisionChanged`).
    """
    revision = revision if revision is not None else pending_revision(record)
    if revision is None:
        return record
    by_attname = {field.attname: field for field in revisable_fields(type(record))}
    for attname, value in revision.changes.get("fields", {}).items():
        if attname in by_attname:
            setattr(record, attname, from_json(by_attname[attname], value))
    record._revision_shown = revision.version  # type: ignore[attr-defined]  # set here for a later reader
    record._revision_m2m = revision.changes.get("m2m", {})  # type: ignore[attr-defined]  # set here for a later reader
    return record


def contributors(revision: Revision) -> set[int]:
    ids = set(revision.contributors.values_list("pk", flat=True))
    if revision.created_by_id is not None:
        ids.add(revision.created_by_id)
    return ids


# -- proposing


def _open(record: Curated, *, by: Any, kind: str) -> Revision:
    """The record's open revision, locked, or a new one; `by` becomes a contributor.

    A revision returned with changes requested goes back to review with the
    edit that answers the request, as a new patch set does in Gerrit.
    """
    model = type(record)
    content_type = ContentType.objects.get_for_model(model)
    revision = (
        Revision.objects.select_for_update().filter(record_type=content_type, record_id=record.pk).open().first()
    )
    if revision is not None and revision.state == RevisionState.RETURNED:
        revision.state = RevisionState.PENDING
    if revision is None:
        live_version = model._default_manager.filter(pk=record.pk).values_list("version", flat=True).get()
        revision = Revision.objects.create(
            record_type=content_type,
            record_id=record.pk,
            record_label=str(record)[:300],
            kind=kind,
            changes={},
            base_version=live_version,
            created_by=by,
        )
    elif kind != RevisionKind.CHANGE:
        revision.kind = kind
    if by is not None:
        revision.contributors.add(by)
    return revision


def _check_shown(record: Curated, pending: Revision | None) -> None:
    """Refuse an edit made on another state of the pending revision than the one now stored."""
    shown = getattr(record, "_revision_shown", None)
    now = pending.version if pending is not None else 0
    if shown is None or shown == now:
        return
    if pending is None:
        raise RevisionChanged(
            _(
                "The pending change of %(record)s that you opened was decided or withdrawn meanwhile; "
                "nothing was saved. Reload it and make your change again."
            )
            % {"record": record},
            code="revision_changed",
        )
    raise RevisionChanged(
        _(
            "The pending change of %(record)s was changed by someone else after you opened it "
            "(revision version %(shown)s, now %(now)s); nothing was saved. It now proposes: %(diff)s. "
            "Reload it and make your change again."
        )
        % {
            "record": record,
            "shown": shown,
            "now": now,
            "diff": "; ".join(f"{row.label}: “{row.old}” → “{row.new}”" for row in describe(pending))
            or _("no change"),
        },
        code="revision_changed",
    )


def _store(revision: Revision) -> Revision | None:
    """Save the revision, or withdraw it when it no longer changes anything."""
    changes = {key: value for key, value in revision.changes.items() if value}
    revision.changes = changes
    if not changes:
        revision.state = RevisionState.WITHDRAWN
    revision.version = (revision.version or 0) + 1 if revision.pk else 1
    revision.save()
    return revision if revision.state == RevisionState.PENDING else None


@transaction.atomic
def propose_change(
    *,
    record: Curated,
    by: Any,
    m2m: Mapping[str, Iterable[Any]] | None = None,
    kind: str = RevisionKind.CHANGE,
) -> Revision | None:
    """Propose the fields (and many-to-many links) of the unsaved `record` as a change of its published row.

    A record shown with its pending revision (`with_pending`) states the whole
    proposed change: what equals the published value is no longer proposed. A
    record loaded plainly (a script, a spreadsheet row) adds what it changed to
    what is already pending. Returns the pending revision, or None when
    nothing differs any more (the revision is withdrawn).
    """
    model = type(record)
    live = model._default_manager.select_for_update().get(pk=record.pk)
    if getattr(record, "_revision_shown", None) is not None and record.version != live.version:
        # Opened on an earlier published version: the change it showed was decided since.
        raise ConcurrentEdit(record, loaded_version=record.version, using=live._state.db or "default")
    content_type = ContentType.objects.get_for_model(model)
    _check_shown(
        record,
        Revision.objects.select_for_update().filter(record_type=content_type, record_id=record.pk).open().first(),
    )
    revision = _open(record, by=by, kind=kind)
    whole = getattr(record, "_revision_shown", None) is not None
    proposed = field_values(record)
    published = field_values(live)
    edited = {name: value for name, value in proposed.items() if value != published[name]}
    if whole:
        fields = edited
    else:
        fields = {**revision.changes.get("fields", {}), **edited}
        fields = {name: value for name, value in fields.items() if value != published.get(name)}
    revision.changes["fields"] = fields
    if m2m is not None:
        pending_m2m = {} if whole else dict(revision.changes.get("m2m", {}))
        for name, values in m2m.items():
            wanted = sorted({to_json(getattr(value, "pk", value)) for value in values})
            current = sorted(to_json(pk) for pk in getattr(live, name).values_list("pk", flat=True))
            if wanted == current:
                pending_m2m.pop(name, None)
            else:
                pending_m2m[name] = wanted
        revision.changes["m2m"] = pending_m2m
    revision.record_label = str(record)[:300]
    return _store(revision)


@transaction.atomic
def propose_child(
    *, parent: Curated, child: models.Model, by: Any, delete: bool = False
) -> Revision | None:
    """Propose a change of one name, alias or passage of the published `parent`.

    `child` unsaved with its new values (a new one has no pk), or `delete`.
    """
    label = model_label(type(child))
    revision = _open(parent, by=by, kind=RevisionKind.CHANGE)
    children = dict(revision.changes.get("children", {}))
    rows = dict(children.get(label, {}))
    if child.pk is None:
        rows[f"new-{uuid.uuid4().hex[:12]}"] = field_values(child)
    elif delete:
        rows[str(child.pk)] = None
    else:
        live = type(child)._default_manager.get(pk=child.pk)
        published = field_values(live)
        changed = {name: value for name, value in field_values(child).items() if value != published[name]}
        if changed:
            rows[str(child.pk)] = changed
        else:
            rows.pop(str(child.pk), None)
    if rows:
        children[label] = rows
    else:
        children.pop(label, None)
    revision.changes["children"] = children
    return _store(revision)


@transaction.atomic
def propose_delete(*, record: Curated, by: Any) -> Revision:
    revision = _open(record, by=by, kind=RevisionKind.DELETE)
    revision.changes["delete"] = True
    stored = _store(revision)
    assert stored is not None, "a deletion always changes something"
    return stored


@transaction.atomic
def propose_merge(*, survivor: Curated, duplicate: Curated, by: Any) -> Revision:
    revision = _open(survivor, by=by, kind=RevisionKind.MERGE)
    revision.changes["merge"] = {"duplicate": duplicate.pk, "duplicate_label": str(duplicate)[:300]}
    stored = _store(revision)
    assert stored is not None, "a merge always changes something"
    return stored


# -- deciding


def _may_decide(revision: Revision, user: Any) -> bool:
    opts = revision.record_model._meta
    return bool(user.is_superuser or user.has_perm(f"{opts.app_label}.review_{opts.model_name}"))


def can_decide(revision: Revision, user: Any) -> bool:
    """Four eyes by contribution: nobody reviews a change they had a hand in."""
    opts = revision.record_model._meta
    if not (user.is_superuser or user.has_perm(f"{opts.app_label}.review_{opts.model_name}")):
        return False
    return user.pk not in contributors(revision)


def _check_decider(revision: Revision, user: Any) -> None:
    if revision.state != RevisionState.PENDING:
        raise ValidationError(
            _("This change of %(record)s is %(state)s, not pending.")
            % {"record": revision.record_label, "state": revision.get_state_display()}
        )
    if user.pk in contributors(revision):
        raise PermissionDenied(
            _("You cannot review this change of %(record)s: you contributed to it.")
            % {"record": revision.record_label}
        )
    if not can_decide(revision, user):
        raise PermissionDenied(_("You are not allowed to review %(record)s.") % {"record": revision.record_label})


def _authors(revision: Revision) -> str:
    from django.contrib.auth import get_user_model

    names = get_user_model()._default_manager.filter(pk__in=contributors(revision)).order_by("username")
    return ", ".join(user.get_username() for user in names) or _("unknown")


def _apply_children(parent: Curated, children: dict[str, dict[str, Any]], *, by: Any, reason: str) -> None:
    for label, rows in children.items():
        model = child_model(label)
        by_attname = {field.attname: field for field in revisable_fields(model)}
        for key, values in rows.items():
            if key.startswith("new-"):
                added = model(**{name: from_json(by_attname[name], value) for name, value in values.items()
                                 if name in by_attname})
                added.full_clean()
                save_as(added, by=by, reason=reason)
                continue
            child = model._default_manager.filter(pk=int(key)).first()
            if child is None:
                continue  # removed meanwhile with its parent's approval of another change
            if values is None:
                delete_as(child, by=by, reason=reason)
                continue
            for name, value in values.items():
                if name in by_attname:
                    setattr(child, name, from_json(by_attname[name], value))
            child.full_clean()
            save_as(child, by=by, reason=reason)


@transaction.atomic
def approve_revision(*, revision: Revision, by: Any, shown: str, note: str = "") -> Curated | None:
    """Publish the revision: its changes are applied to the record in this one transaction.

    `shown` is the pin of what the decider read (`archive.services.decisions.revision_pin`),
    required of every caller: the queue posts the one its page showed, code that
    decides on a change it read itself computes it from that change. Returns the
    record as now published (None when the revision deleted it).
    """
    revision = Revision.objects.select_for_update().get(pk=revision.pk)
    _check_decider(revision, by)
    model = revision.record_model
    record = model._default_manager.select_for_update().filter(pk=revision.record_id).order_by().first()
    if record is None:
        raise ValidationError(_("%(record)s no longer exists.") % {"record": revision.record_label})
    decisions.check_revision(revision, record, shown)
    if record.version != revision.base_version:
        raise ValidationError(
            _(
                "%(record)s was published in another version (%(now)s) after this change was proposed on "
                "version %(base)s; reject it and propose it again on the current version."
            )
            % {"record": record, "now": record.version, "base": revision.base_version}
        )
    reason = f"revision {revision.pk} by {_authors(revision)} approved by {by.get_username()}"
    if note:
        reason += f": {note}"
    changes = revision.changes
    published: Curated | None = record
    if changes.get("delete"):
        try:
            delete_as(record, by=by, reason=reason)
        except models.ProtectedError as exc:
            raise ValidationError(
                _("%(record)s cannot be deleted: other records still point at it (%(what)s).")
                % {"record": record, "what": ", ".join(str(obj) for obj in list(exc.protected_objects)[:5])}
            ) from exc
        published = None
    elif changes.get("merge"):
        from archive.services.merges import merge_now

        duplicate = model._default_manager.filter(pk=changes["merge"]["duplicate"]).order_by().first()
        if duplicate is None:
            raise ValidationError(_("The record to merge no longer exists."))
        published = merge_now(record, duplicate, by=by, reason=reason, publish=True)
    else:
        by_attname = {field.attname: field for field in revisable_fields(model)}
        for attname, value in changes.get("fields", {}).items():
            if attname in by_attname:
                setattr(record, attname, from_json(by_attname[attname], value))
        record.full_clean(exclude=["slug"] if "slug" not in changes.get("fields", {}) else None)
        publish_row(record, by=by, note=note, reason=reason)
        for name, pks in changes.get("m2m", {}).items():
            getattr(record, name).set(pks)
        _apply_children(record, changes.get("children", {}), by=by, reason=reason)
    _close(revision, RevisionState.APPROVED, by=by, note=note)
    after_publish(published)
    return published


def _close(revision: Revision, state: str, *, by: Any, note: str) -> None:
    """Record the decision on the revision at the version it was decided on, or refuse it.

    The version in the UPDATE's condition is the database's backstop for the
    pin: a revision edited after the decision's check is never closed unseen.
    """
    revision.state = state
    revision.reviewed_by = by
    revision.reviewed_at = timezone.now()
    revision.review_note = note
    closed = Revision.objects.filter(pk=revision.pk, version=revision.version, state=RevisionState.PENDING).update(
        state=state, reviewed_by=by, reviewed_at=revision.reviewed_at, review_note=note, updated_at=timezone.now()
    )
    if not closed:
        raise decisions.StaleDecision(
            _("The change of %(record)s changed while it was being decided; nothing was decided.")
            % {"record": revision.record_label},
            code="stale",
        )


def publish_row(record: Curated, *, by: Any, note: str, reason: str) -> None:
    """Write an approved change onto the published row, one version further."""
    record.reviewed_by = by
    record.reviewed_at = timezone.now()
    record.review_note = note
    record._publishing = True
    try:
        save_as(record, by=by, reason=reason)
    finally:
        record._publishing = False


def _locked_as_shown(revision: Revision, by: Any, shown: str) -> Revision:
    """The revision locked with its record, `by` allowed to decide it, still as the reviewer was shown it."""
    revision = Revision.objects.select_for_update().get(pk=revision.pk)
    _check_decider(revision, by)
    record = revision.record_model._default_manager.select_for_update().filter(pk=revision.record_id).order_by().first()
    if record is None:
        raise ValidationError(_("%(record)s no longer exists.") % {"record": revision.record_label})
    decisions.check_revision(revision, record, shown)
    return revision


@transaction.atomic
def reject_revision(*, revision: Revision, by: Any, note: str, shown: str) -> Revision:
    """Turn the change down; `shown` is the pin of what was read, as for `approve_revision`."""
    if not note.strip():
        raise ValidationError({"review_note": _("A rejection says why.")})
    revision = _locked_as_shown(revision, by, shown)
    _close(revision, RevisionState.REJECTED, by=by, note=note)
    return revision


@transaction.atomic
def request_revision_changes(*, revision: Revision, by: Any, note: str, shown: str) -> Revision:
    """Send the change back to its contributors with the reviewer's request, which opens or joins its thread.

    Pinned as approval and rejection are (`shown`). The change stays the
    record's open revision: the edit that answers the request sends it back to
    review (`_open`), or its contributors send it back as it is (`resubmit_revision`).
    """
    if not note.strip():
        raise ValidationError({"review_note": _("Say what should change.")})
    revision = _locked_as_shown(revision, by, shown)
    _close(revision, RevisionState.RETURNED, by=by, note=note)
    discussion.record_request(subject=revision, by=by, text=note)
    return revision


@transaction.atomic
def resubmit_revision(*, revision: Revision, by: Any) -> Revision:
    """A contributor sends a returned change back to review as it stands (the thread says why)."""
    revision = Revision.objects.select_for_update().get(pk=revision.pk)
    if revision.state != RevisionState.RETURNED:
        raise ValidationError(_("Only a change returned with changes requested is sent back to review."))
    if by.pk not in contributors(revision):
        raise PermissionDenied(_("Only its contributors send a change back to review."))
    revision.state = RevisionState.PENDING
    revision.version += 1  # a reviewer's pin on the returned state no longer holds
    revision.save(update_fields=["state", "version", "updated_at"])
    return revision


@transaction.atomic
def withdraw_revision(*, revision: Revision, by: Any) -> Revision:
    """The revision's contributors (or a reviewer) take it back; the published record stays."""
    revision = Revision.objects.select_for_update().get(pk=revision.pk)
    if revision.state not in (RevisionState.PENDING, RevisionState.RETURNED):
        raise ValidationError(_("Only a pending change can be withdrawn."))
    if by.pk not in contributors(revision) and not _may_decide(revision, by):
        raise PermissionDenied(_("Only its contributors or a reviewer withdraw a change."))
    revision.state = RevisionState.WITHDRAWN
    revision.save()
    return revision
