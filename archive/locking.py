"""Optimistic locking of curated records: no edit silently overwrites another.

Two curators who open the same record and both save must not lose the first
one's change to the second one's stale form. Every curated row carries a
``version``; an ordinary save updates the row only where the version is still
the one the editor loaded, in the same statement that increments it
(``UPDATE … SET version = version + 1 … WHERE id = %s AND version = %s``), so
the check and the write cannot be separated by another transaction on either
engine. A save that finds the row but not its version raises `ConcurrentEdit`,
which says what changed meanwhile (field: value then → value now) and who
changed it, read from the record's history at the editor's version.

The check lives in the model (`Curated._do_update`), not in the admin, so that
spreadsheet imports, shell scripts and the admin all obey it. Raw saves
(``loaddata``) write a fixture's version as it stands: a fixture states the
whole record, it is not an edit of a version someone loaded.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext as _

__all__ = ["IGNORED_FIELDS", "Change", "ConcurrentEdit", "changes_since", "current_version"]

# Bookkeeping that changes with every save (who changed it is said apart).
IGNORED_FIELDS = frozenset({"version", "updated_at", "created_at", "modified_by"})


class Change(NamedTuple):
    """One field that changed meanwhile: its label, the value then and the value now."""

    label: str
    then: Any
    now: Any

    def __str__(self) -> str:
        return f"{self.label}: “{_shown(self.then)}” → “{_shown(self.now)}”"


def _shown(value: Any, limit: int = 80) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _comparable_fields(model: type[models.Model]) -> list[models.Field]:
    return [
        field for field in model._meta.concrete_fields if not field.primary_key and field.name not in IGNORED_FIELDS
    ]


def _snapshot(model: type[models.Model], pk: Any, version: int, using: str) -> dict[str, Any] | None:
    """The record's fields as they stood at ``version``, from its history, if kept."""
    history = getattr(model, "history", None)
    if history is None:
        return None
    history_model = history.model
    tracked = {field.attname for field in history_model._meta.concrete_fields}
    row = (
        history_model._default_manager.using(using)
        .filter(**{model._meta.pk.attname: pk, "version": version})
        .order_by("-history_date", "-pk")
        .first()
    )
    if row is None:
        return None
    return {attname: getattr(row, attname) for attname in tracked}


def _display(field: models.Field, value: Any, using: str) -> Any:
    if field.is_relation and value is not None:
        related = field.related_model._default_manager.using(using).filter(pk=value).first()  # type: ignore[union-attr]  # a loaded relation names its model, never "self"
        return related if related is not None else value
    if field.choices:
        return dict(field.flatchoices).get(value, value)
    return value


def changes_since(
    model: type[models.Model],
    pk: Any,
    version: int,
    current: models.Model,
    *,
    using: str,
    fallback: models.Model | None = None,
) -> list[Change]:
    """What differs between the record at ``version`` and ``current``.

    The record at ``version`` is read from its history; where the history
    has no row of that version, ``fallback`` (the stale copy being saved)
    stands in for it.
    """
    then = _snapshot(model, pk, version, using)
    if then is None and fallback is not None:
        then = {field.attname: getattr(fallback, field.attname) for field in model._meta.concrete_fields}
    if then is None:
        return []
    changes = []
    for field in _comparable_fields(model):
        if field.attname not in then:
            continue
        old, new = then[field.attname], getattr(current, field.attname)
        if old != new:
            changes.append(Change(str(field.verbose_name), _display(field, old, using), _display(field, new, using)))
    return changes


def current_version(model: type[models.Model], pk: Any, *, using: str) -> int | None:
    return model._default_manager.using(using).filter(pk=pk).values_list("version", flat=True).first()


class ConcurrentEdit(ValidationError):
    """The record was changed by someone else since it was loaded; nothing was saved."""

    def __init__(
        self, record: models.Model, *, loaded_version: int, using: str, fallback: models.Model | None = None
    ) -> None:
        model = type(record)
        current = model._default_manager.using(using).select_related(None).get(pk=record.pk)
        self.record = record
        self.loaded_version = loaded_version
        self.current = current
        self.current_version: int = current.version  # type: ignore[attr-defined]  # a curated row
        self.changed_by = getattr(current, "modified_by", None)
        self.changes = changes_since(model, record.pk, loaded_version, current, using=using, fallback=fallback)
        who = str(self.changed_by) if self.changed_by is not None else _("someone else")
        lines = "; ".join(str(change) for change in self.changes) or _("no field you can see")
        message = _(
            "%(record)s was changed by %(who)s after you opened it (version %(loaded)s, now %(current)s); "
            "nothing was saved. Changed meanwhile: %(lines)s. Reload it and make your change again."
        ) % {
            "record": current,
            "who": who,
            "loaded": loaded_version,
            "current": self.current_version,
            "lines": lines,
        }
        super().__init__(message, code="concurrent_edit")
