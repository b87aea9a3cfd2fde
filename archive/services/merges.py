"""Merge two records of the same person, unit or place into one.

Sources name people and places many ways, so the same 唐生智 or 挹江门 can be
entered twice. `merge(survivor=…, duplicate=…, by=user)` keeps the survivor and
gives it everything that pointed at the duplicate: names or aliases (the
duplicate's own name becomes one), posts, participations, citations, child
units or places, the events that happened there. The duplicate is deleted, its
slug is kept as a `SlugRedirect` to the survivor (so old links answer with a
redirect once the survivor is published).

A merge is a change like any other: when either record is published, `merge`
only proposes it as the survivor's pending revision, both records stay served
as they are, and `merge_now` runs when a reviewer who had no hand in it
approves (`archive.services.revisions`). Two unpublished records merge at
once and the survivor goes to review.

The records that move keep their own review state: a citation approved as
evidence stays approved, now pointing at the survivor. Every moved row gets a
history entry with the reason ("merged …"), written with simple-history's bulk
helpers. All of it happens in one transaction, or none of it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext as _
from simple_history.utils import bulk_update_with_history

from archive import fiction
from archive.models import (
    Citation,
    Curated,
    DocumentVersion,
    Event,
    Location,
    LocationAlias,
    NameKind,
    Participation,
    Person,
    PersonName,
    Post,
    Revision,
    SlugRedirect,
    Status,
    Unit,
    UnitAlias,
)
from archive.services.authorship import delete_as, mark, save_as

MERGEABLE = (Person, Unit, Location)


def can_merge(model: type[Model], user: Any) -> bool:
    opts = model._meta
    return bool(user.has_perm(f"{opts.app_label}.change_{opts.model_name}"))


def _move(model: type[Model], field: str, old: Model, new: Model, *, by: Any, reason: str) -> int:
    """Point `field` of every `model` row from `old` to `new`, with history."""
    rows = list(model._default_manager.filter(**{field: old}))
    if not rows:
        return 0
    changed = [field]
    for row in rows:
        setattr(row, field, new)
        if isinstance(row, Curated):
            row.modified_by = by
            row.updated_at = timezone.now()
            # A form opened on the row before the merge must not save its old target back.
            row.version += 1
    if issubclass(model, Curated):
        changed += ["modified_by", "updated_at", "version"]
    bulk_update_with_history(rows, model, changed, default_user=by, default_change_reason=reason)
    return len(rows)


def _move_names(
    name_model: type[PersonName | UnitAlias | LocationAlias],
    field: str,
    survivor: Any,
    duplicate: Any,
    *,
    by: Any,
    reason: str,
    primary: dict[str, Any],
) -> None:
    """Names of the duplicate become names of the survivor; its own name among them."""
    taken = set(name_model._default_manager.filter(**{field: survivor}).values_list("name", flat=True))
    taken.add(survivor.name)
    moving = []
    for alias in name_model._default_manager.filter(**{field: duplicate}):
        if alias.name in taken:
            delete_as(alias, by=by, reason=reason)
            continue
        setattr(alias, field, survivor)
        if isinstance(alias, PersonName) and alias.kind == NameKind.PRIMARY:
            alias.kind = NameKind.ALIAS
        taken.add(alias.name)
        moving.append(alias)
    if moving:
        fields = [field, "kind"] if hasattr(name_model, "kind") else [field]
        bulk_update_with_history(moving, name_model, fields, default_user=by, default_change_reason=reason)
    if duplicate.name not in taken:
        added = name_model(**{field: survivor, "name": duplicate.name, **primary})
        save_as(added, by=by, reason=reason)


def _move_parent_links(
    model: type[Unit | Location | Event], survivor: Any, duplicate: Any, *, by: Any, reason: str
) -> None:
    """Children of the duplicate become children of the survivor; the survivor inherits a missing parent."""
    children = list(model._default_manager.filter(parent=duplicate).exclude(pk=survivor.pk))
    for child in children:
        child.parent = survivor
        child.modified_by = by
    if children:
        bulk_update_with_history(
            children, model, ["parent", "modified_by"], default_user=by, default_change_reason=reason
        )
    if survivor.parent_id == duplicate.pk:
        survivor.parent_id = duplicate.parent_id if duplicate.parent_id != survivor.pk else None
    elif survivor.parent_id is None and duplicate.parent_id not in (None, survivor.pk):
        survivor.parent_id = duplicate.parent_id


def _move_event_locations(survivor: Location, duplicate: Location, *, by: Any, reason: str) -> None:
    for event in Event.objects.filter(locations=duplicate):
        mark(event, by=by, reason=reason)
        event.locations.add(survivor)
        event.locations.remove(duplicate)


def _redirect(survivor: Any, duplicate: Any, *, by: Any, reason: str) -> None:
    model = survivor._meta.model_name
    # Earlier merges into the duplicate now lead to the survivor: one hop, always.
    earlier = list(SlugRedirect.objects.filter(model=model, new_slug=duplicate.slug))
    for redirect in earlier:
        redirect.new_slug = survivor.slug
    if earlier:
        bulk_update_with_history(earlier, SlugRedirect, ["new_slug"], default_user=by, default_change_reason=reason)
    # A slug that once moved and now comes back as the survivor's own must not loop.
    SlugRedirect.objects.filter(model=model, old_slug=survivor.slug).delete()
    redirect = SlugRedirect(model=model, old_slug=duplicate.slug, new_slug=survivor.slug, note=reason, created_by=by)
    save_as(redirect, by=by, reason=reason)


# What points at a merged record and moves with it, by the field that points, besides names and children.
_RELATED: dict[type[Model], tuple[type[Model], ...]] = {
    Person: (Post, Participation, Citation),
    Unit: (Post, Participation, Citation),
    Location: (Citation,),
}
_NAMES: dict[type[Model], type[PersonName | UnitAlias | LocationAlias]] = {
    Person: PersonName,
    Unit: UnitAlias,
    Location: LocationAlias,
}


def _state(row: Model) -> str:
    status = getattr(row, "status", None)
    return f" [{row.get_status_display()}]" if status is not None and status != Status.APPROVED else ""  # type: ignore[attr-defined]  # a curated row


def what_moves(survivor: Curated, duplicate: Curated) -> list[tuple[str, str, str]]:
    """Everything approving the merge publishes, as rows of (what, before, after) for its reviewer.

    The same tables as `merge_now`: the duplicate's names and aliases (its own
    name among them), the rows that point at it, its children, the events
    that happened there, and the survivor's fields that change.
    """
    model: Any = type(survivor)  # a person, unit or place: what each has is read by the tables below
    field = str(model._meta.model_name)
    rows: list[tuple[str, str, str]] = []
    name_model = _NAMES[model]
    taken = set(name_model._default_manager.filter(**{field: survivor}).values_list("name", flat=True))
    taken.add(survivor.name)  # type: ignore[attr-defined]  # only persons, units and places are merged
    label = str(name_model._meta.verbose_name)
    for alias in name_model._default_manager.filter(**{field: duplicate}).order_by("pk"):
        if alias.name not in taken:
            rows.append((label, f"{alias.name} ({duplicate})", f"{alias.name} ({survivor})"))
            taken.add(alias.name)
    if duplicate.name not in taken:  # type: ignore[attr-defined]  # only persons, units and places are merged
        rows.append((label, "", f"{duplicate.name} ({survivor})"))  # type: ignore[attr-defined]  # as above
    for related in _RELATED[model]:
        verbose = str(related._meta.verbose_name)
        for row in related._default_manager.filter(**{field: duplicate}).order_by("pk"):
            rows.append((verbose, f"{row}{_state(row)} → {duplicate}", f"{row}{_state(row)} → {survivor}"))
    if model is Location:
        for happening in Event.objects.filter(locations=duplicate).order_by("pk"):
            rows.append((str(Event._meta.verbose_name), f"{happening} @ {duplicate}", f"{happening} @ {survivor}"))
    if model in (Unit, Location):
        for child in model._default_manager.filter(parent=duplicate).exclude(pk=survivor.pk).order_by("pk"):
            rows.append((str(model._meta.get_field("parent").verbose_name), f"{child}{_state(child)} → {duplicate}",
                         f"{child}{_state(child)} → {survivor}"))
        parent = model._meta.get_field("parent")
        now, then = survivor.parent_id, survivor.parent_id  # type: ignore[attr-defined]  # units and places have parents
        if now == duplicate.pk:
            then = duplicate.parent_id if duplicate.parent_id != survivor.pk else None  # type: ignore[attr-defined]  # as above
        elif now is None and duplicate.parent_id not in (None, survivor.pk):  # type: ignore[attr-defined]  # as above
            then = duplicate.parent_id  # type: ignore[attr-defined]  # as above
        if then != now:
            names = {r.pk: str(r) for r in model._default_manager.filter(pk__in=[pk for pk in (now, then) if pk])}
            rows.append((f"{survivor}: {parent.verbose_name}", names.get(now, ""), names.get(then, "")))
    if getattr(duplicate, "marked_historical", False) and not getattr(survivor, "marked_historical", False):
        rows.append((f"{survivor}: {model._meta.get_field('marked_historical').verbose_name}", "False", "True"))
    return rows


def _check_duplicate_reviewed(survivor: Curated, duplicate: Curated) -> None:
    """An unreviewed draft's content never reaches the public through a merge into a published record."""
    if duplicate.status == Status.APPROVED:
        return
    moving = what_moves(survivor, duplicate)
    if moving:
        raise ValidationError(
            _(
                "%(duplicate)s is not reviewed (%(status)s) and its merge would publish what no reviewer "
                "approved (%(what)s). Submit it for review and merge it once it is approved."
            )
            % {
                "duplicate": duplicate,
                "status": duplicate.get_status_display(),
                "what": "; ".join(new for _label, _old, new in moving[:5]),
            },
            code="unreviewed_duplicate",
        )


def _check(survivor: Curated, duplicate: Curated, *, by: Any) -> None:
    model = type(survivor)
    if model not in MERGEABLE:
        raise ValidationError(_("Only people, units and places are merged."))
    if type(duplicate) is not model:
        raise ValidationError(_("Only two records of the same kind are merged."))
    if survivor.pk is None or duplicate.pk is None or survivor.pk == duplicate.pk:
        raise ValidationError(_("Merging needs two different saved records."))
    if not can_merge(model, by):
        raise PermissionDenied(
            _("You are not allowed to change %(records)s.") % {"records": model._meta.verbose_name_plural}
        )


@transaction.atomic
def merge(*, survivor: Curated, duplicate: Curated, by: Any) -> Revision | Curated:
    """Merge `duplicate` into `survivor`: proposed for review if either is published, else at once.

    Returns the pending revision, or the merged survivor (now in review).
    """
    _check(survivor, duplicate, by=by)
    from archive.services import revisions
    from archive.services.records import is_published

    if is_published(survivor) or is_published(duplicate):
        if not is_published(survivor):
            raise ValidationError(
                _("Merge into the published record: %(survivor)s is not published, %(duplicate)s is.")
                % {"survivor": survivor, "duplicate": duplicate}
            )
        _check_duplicate_reviewed(survivor, duplicate)
        return revisions.propose_merge(survivor=survivor, duplicate=duplicate, by=by)
    reason = f"merged {type(survivor)._meta.model_name} {duplicate.slug} into {survivor.slug}"
    return merge_now(survivor, duplicate, by=by, reason=reason, publish=False)


def merge_now(survivor: Curated, duplicate: Curated, *, by: Any, reason: str, publish: bool) -> Curated:
    """Carry out the merge; `publish` when it is an approved revision of the published survivor."""
    if not publish:
        _check(survivor, duplicate, by=by)
    model = type(survivor)
    DocumentVersion.objects.bump_everything()  # the moves are bulk updates, which send no signal

    # Lock both rows and work on their stored state.
    locked = {
        row.pk: row for row in model._default_manager.select_for_update().filter(pk__in=[survivor.pk, duplicate.pk])
    }
    survivor, duplicate = locked[survivor.pk], locked[duplicate.pk]
    if publish:
        _check_duplicate_reviewed(survivor, duplicate)

    if model is Person:
        _move_names(PersonName, "person", survivor, duplicate, by=by, reason=reason, primary={"kind": NameKind.ALIAS})
        for related in (Post, Participation, Citation):
            _move(related, "person", duplicate, survivor, by=by, reason=reason)
    elif model is Unit:
        _move_names(UnitAlias, "unit", survivor, duplicate, by=by, reason=reason, primary={})
        for related in (Post, Participation, Citation):
            _move(related, "unit", duplicate, survivor, by=by, reason=reason)
        _move_parent_links(Unit, survivor, duplicate, by=by, reason=reason)
    else:
        _move_names(
            LocationAlias, "location", survivor, duplicate, by=by, reason=reason, primary={"note": reason[:300]}
        )
        _move(Citation, "location", duplicate, survivor, by=by, reason=reason)
        _move_event_locations(survivor, duplicate, by=by, reason=reason)  # type: ignore[arg-type]  # only persons, units and places are merged
        _move_parent_links(Location, survivor, duplicate, by=by, reason=reason)

    if getattr(duplicate, "marked_historical", False):
        survivor.marked_historical = True  # type: ignore[attr-defined]  # only persons, units and places are merged
    _redirect(survivor, duplicate, by=by, reason=reason)

    # Saved before the duplicate goes, since the survivor may have been its child.
    if publish:
        from archive.services.revisions import publish_row

        publish_row(survivor, by=by, note="", reason=reason)
    else:
        survivor.status = Status.IN_REVIEW
        survivor.modified_by = by
        survivor.reviewed_by = None
        survivor.reviewed_at = None
        save_as(survivor, by=by, reason=reason)
    delete_as(duplicate, by=by, reason=reason)
    # The citations moved without signals; the survivor's evidence is now both records'.
    fiction.refresh(model, [survivor.pk])
    return survivor
