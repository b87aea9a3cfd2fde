"""Field values of a revision: what may be proposed, and its JSON form both ways.

A revision stores values as JSON (`Revision.changes`), so that it is readable in
the database and in fixtures; these functions are the one conversion between a
model's field values and that form, shared by proposing, applying and showing.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

from django.db import models

# Review state and bookkeeping: never part of a proposed change.
BOOKKEEPING = frozenset(
    {
        "status",
        "created_by",
        "modified_by",
        "reviewed_by",
        "reviewed_at",
        "review_note",
        "created_at",
        "updated_at",
        "version",
        "fictional",
    }
)


def revisable_fields(model: type[models.Model]) -> list[models.Field]:
    return [
        field
        for field in model._meta.concrete_fields
        if not field.primary_key and field.name not in BOOKKEEPING
    ]


def to_json(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).isoformat()  # one instant, one form, whatever zone it was read in
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    return value


def from_json(field: models.Field, value: Any) -> Any:
    return None if value is None else field.to_python(value)


def field_values(instance: models.Model) -> dict[str, Any]:
    """The JSON form of every revisable field of `instance`, by attname."""
    return {field.attname: to_json(getattr(instance, field.attname)) for field in revisable_fields(type(instance))}


def _m2m_fields(model: type[models.Model]) -> list[models.ManyToManyField]:
    return [field for field in model._meta.many_to_many if isinstance(field, models.ManyToManyField)]


def model_label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def child_model(label: str) -> type[models.Model]:
    from django.apps import apps

    return apps.get_model(label)
