"""Who made a change and why, written into the history in one place.

simple-history reads the author and the reason of a history row from two
attributes of the instance being saved (`_history_user`, `_change_reason`);
every service saves and deletes through these two functions, so that no path
forgets either.
"""

from __future__ import annotations

from typing import Any

from django.db import models


def mark(instance: models.Model, *, by: Any, reason: str) -> None:
    """Name the author and the reason of the next history row of `instance`."""
    instance._history_user = by  # type: ignore[attr-defined]  # read by simple-history
    instance._change_reason = reason  # type: ignore[attr-defined]  # read by simple-history; a text column


def save_as(instance: models.Model, *, by: Any, reason: str, **save_kwargs: Any) -> None:
    mark(instance, by=by, reason=reason)
    instance.save(**save_kwargs)


def delete_as(instance: models.Model, *, by: Any, reason: str) -> None:
    mark(instance, by=by, reason=reason)
    instance.delete()
