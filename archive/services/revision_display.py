"""A revision shown to a reviewer: one row per changed field, the published value beside the proposed one.

Values are shown by name (a related record by its title, a choice by its
label), never as ids; names, aliases and passages under the record are shown as
fields of theirs. `describe_many` shows a whole queue in a fixed number of
queries.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.models import Curated, Revision
from archive.services.merges import what_moves
from archive.services.revision_values import BOOKKEEPING, child_model, from_json, revisable_fields


class DiffRow:
    """One changed field: its label, the published value and the proposed one, as shown."""

    def __init__(self, label: str, old: str, new: str) -> None:
        self.label, self.old, self.new = label, old, new


def _shown(field: models.Field | None, value: Any) -> str:
    """A value that names no other record, shown as a reviewer reads it."""
    if value is None or value == "":
        return ""
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, dt.datetime) and timezone.is_aware(value):
        # In the archive's time (Nanjing), as every other page shows a moment.
        return timezone.localtime(value).isoformat(sep=" ")
    return str(value)


def _in_field_order(values: dict[str, Any], fields: dict[str, models.Field]) -> list[tuple[str, Any]]:
    """Changed values in the model's field order (PostgreSQL's jsonb keeps no order of its own)."""
    order = {attname: index for index, attname in enumerate(fields)}
    return sorted(values.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def describe(revision: Revision) -> list[DiffRow]:
    """The revision as rows of (field, published value, proposed value), everything shown by name."""
    return describe_many([revision])[revision.pk]


def describe_many(revisions: Iterable[Revision]) -> dict[int, list[DiffRow]]:
    """The rows of many revisions at once, by revision pk, for the review queue.

    The records, their children and every record named in
    a value are read with one query per model, not one per revision or row.
    Each revision's `record_type` should be joined (`select_related`).
    """
    from collections import defaultdict

    revisions = list(revisions)
    found: dict[type[models.Model], dict[Any, models.Model]] = defaultdict(dict)

    def fetch(model: type[models.Model], pks: set[Any], *prefetch: str) -> None:
        pks = {pk for pk in pks if pk not in found[model]}
        if not pks:
            return
        shallow = [f for f in model._meta.concrete_fields if f.many_to_one and f.name not in BOOKKEEPING]
        joins = [f.name for f in shallow] + [  # what str() of a row may read: a link and its own required links
            f"{f.name}__{sub.name}"
            for f in shallow
            for sub in f.related_model._meta.concrete_fields  # type: ignore[union-attr]  # a loaded relation names its model, never "self"
            if sub.many_to_one and not sub.null and sub.name not in BOOKKEEPING
        ]
        rows = model._default_manager.filter(pk__in=pks).select_related(*joins).prefetch_related(*prefetch)
        found[model].update((row.pk, row) for row in rows)

    def shown(field: models.Field | None, value: Any) -> str:
        if field is not None and field.is_relation and field.related_model is not None and value not in (None, ""):
            related = found[field.related_model].get(value)  # type: ignore[index]  # a loaded relation names its model, never "self"
            return str(related) if related is not None else str(value)
        return _shown(field, value)

    def value_of(field: models.Field | None, value: Any) -> Any:
        return from_json(field, value) if field is not None else value

    # The records and their children, with the many-to-many links they change.
    for model in {revision.record_model for revision in revisions}:
        mine = [revision for revision in revisions if revision.record_model is model]
        m2m = sorted({name for revision in mine for name in revision.changes.get("m2m", {})})
        fetch(model, {revision.record_id for revision in mine}, *m2m)
    for revision in revisions:
        for label, child_rows in revision.changes.get("children", {}).items():
            fetch(child_model(label), {int(key) for key in child_rows if not key.startswith("new-")})

    # Every record a value names, published or proposed.
    wanted: dict[type[models.Model], set[Any]] = defaultdict(set)

    def want(field: models.Field | None, *values: Any) -> None:
        if field is not None and field.is_relation and field.related_model is not None:
            wanted[field.related_model].update(v for v in values if v not in (None, ""))  # type: ignore[index]  # a loaded relation names its model, never "self"

    for revision in revisions:
        model = revision.record_model
        record = found[model].get(revision.record_id)
        fields = {field.attname: field for field in revisable_fields(model)}
        for attname, value in revision.changes.get("fields", {}).items():
            field = fields.get(attname)
            want(field, getattr(record, attname, None), value_of(field, value))
        for name, pks in revision.changes.get("m2m", {}).items():
            wanted[model._meta.get_field(name).related_model].update(pks)  # type: ignore[index]  # a loaded relation names its model, never "self"
        for label, children in revision.changes.get("children", {}).items():
            kind = child_model(label)
            child_fields = {field.attname: field for field in revisable_fields(kind)}
            for key, values in children.items():
                live = None if key.startswith("new-") else found[kind].get(int(key))
                for attname, value in (values or {}).items():
                    field = child_fields.get(attname)
                    want(field, getattr(live, attname, None), value_of(field, value))
    for related_model, pks in wanted.items():
        fetch(related_model, pks)

    described: dict[int, list[DiffRow]] = {}
    for revision in revisions:
        model = revision.record_model
        record = found[model].get(revision.record_id)
        changes = revision.changes
        rows: list[DiffRow] = []
        if changes.get("delete"):
            rows.append(DiffRow(_("deletion"), str(record or revision.record_label), ""))
        if changes.get("merge"):
            rows.append(
                DiffRow(_("merge"), changes["merge"].get("duplicate_label", ""), str(record or revision.record_label))
            )
            duplicate = model._default_manager.filter(pk=changes["merge"].get("duplicate")).first()
            if isinstance(record, Curated) and isinstance(duplicate, Curated):
                rows.extend(DiffRow(*row) for row in what_moves(record, duplicate))
        fields = {field.attname: field for field in revisable_fields(model)}
        for attname, value in _in_field_order(changes.get("fields", {}), fields):
            field = fields.get(attname)
            label = str(field.verbose_name) if field is not None else attname
            old = getattr(record, attname, None) if record is not None else None
            rows.append(DiffRow(label, shown(field, old), shown(field, value_of(field, value))))
        for name, pks in changes.get("m2m", {}).items():
            m2m_field = model._meta.get_field(name)
            related = found[m2m_field.related_model]  # type: ignore[index]  # a loaded relation names its model, never "self"
            old_names = sorted(str(obj) for obj in getattr(record, name).all()) if record is not None else []
            new_names = sorted(str(related[pk]) for pk in pks if pk in related)
            rows.append(
                DiffRow(str(getattr(m2m_field, "verbose_name", name)), ", ".join(old_names), ", ".join(new_names))
            )
        for label, children in changes.get("children", {}).items():
            kind = child_model(label)
            verbose = str(kind._meta.verbose_name)
            child_fields = {field.attname: field for field in revisable_fields(kind)}
            for key, values in children.items():
                live = None if key.startswith("new-") else found[kind].get(int(key))
                if values is None:
                    rows.append(DiffRow(verbose, str(live) if live is not None else key, ""))
                    continue
                for attname, value in _in_field_order(values, child_fields):
                    field = child_fields.get(attname)
                    if field is not None and field.is_relation and live is None:
                        continue  # the parent link of a new name: the record itself
                    label_text = f"{verbose}: {field.verbose_name if field is not None else attname}"
                    old = getattr(live, attname, None) if live is not None else None
                    row = DiffRow(label_text, shown(field, old), shown(field, value_of(field, value)))
                    if row.old or row.new:  # a new name's empty note says nothing
                        rows.append(row)
        described[revision.pk] = rows
    return described
