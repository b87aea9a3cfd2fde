"""Load the shipped collection: check it all, then load it all or nothing.

`load_collection` is what `make run` calls on every start, so it must be
harmless to repeat: records are matched by natural key and updated in place,
and history is written only for records that were created or changed. The
whole load is one transaction; any error Django raises while loading is
reported as a CommandError naming the fixture file.

A load has an author, so that four eyes apply to it as to any edit. Into an
empty archive the collection is published as it stands: that is its release,
recorded in each record's history (by the account given, if any). Into an
archive that has data, a new record enters as a draft in review and a change
of a published record as its pending revision, both in the name of the
account given (`by`, the command's ``--as``), which then may not approve
them; a load that would write anything without one is refused and changes
nothing. A load that finds everything as stored needs no author.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core import serializers
from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist, ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, models, transaction
from django.utils.translation import gettext as _

from archive import fiction
from archive import search as search_index
from archive.db.statistics import refresh_statistics
from archive.freshness import signals as freshness_signals
from archive.models import (
    Curated,
    LocationAlias,
    Passage,
    PersonName,
    Revision,
    Source,
    Status,
    UnitAlias,
    natural_keys,
)
from archive.models.registry import CURATED_MODELS
from archive.services import revisions
from archive.text.segment import Segment, split_passages, verify_tiling

from .bulk import insert_passages, record_history
from .fixture_check import check_collection
from .fixture_prepare import (
    Collection,
    Record,
    StaleRecords,
    key_lookups,
    prepare_collection,
    prepare_records,
    read_collection,
    written_models,
)
from .source_text import passage_roles

__all__ = ["LoadReport", "load_collection"]

_LOAD_ERRORS = (
    serializers.base.DeserializationError,
    DatabaseError,  # IntegrityError from CHECK constraints and triggers, DataError ...
    FieldDoesNotExist,
    ObjectDoesNotExist,
    ValidationError,
    ValueError,
    TypeError,
    LookupError,
)


@dataclass
class LoadReport:
    files: list[Path] = field(default_factory=list)
    records: int = 0
    created: int = 0
    changed: int = 0
    passages_made: int = 0
    # Changes of published records, left pending review instead of loaded.
    proposed: int = 0
    # Loaded into an empty archive: published as the collection's release.
    release: bool = False


class CollectionError(CommandError):
    """The collection cannot be loaded; the database is as it was."""


def _no_author(what: str) -> CollectionError:
    return CollectionError(
        _(
            "The archive already has data, and this load would write %(what)s: a load into it is an edit, "
            "reviewed like any other, so it needs an author. Nothing was loaded; run it again with --as USER "
            "(an active account), in whose name the new records enter review and the changes become revisions."
        )
        % {"what": what}
    )


def _is_empty(using: str) -> bool:
    return not any(model._default_manager.using(using).exists() for model in CURATED_MODELS)


def _enter_review(rows: list[dict[str, Any]], by: Any) -> int:
    """New curated records of a load into an archive with data: drafts of `by`, submitted for review."""
    entered = 0
    for row in rows:
        model = apps.get_model(row["model"])
        if "pk" in row or not issubclass(model, Curated):
            continue
        fields = row.setdefault("fields", {})
        fields.update(status=Status.IN_REVIEW, created_by=by.pk, modified_by=by.pk, reviewed_by=None,
                      reviewed_at=None, review_note="")
        entered += 1
    return entered


def _historical(model: type[models.Model]) -> bool:
    return hasattr(model, "history")


def _loaded_objects(records: Sequence[Record], using: str) -> dict[type[models.Model], list[models.Model]]:
    """The rows the records became, fetched in one query per model."""
    found: dict[type[models.Model], list[models.Model]] = {}
    groups: dict[str, list[Record]] = {}
    for record in records:
        groups.setdefault(record.label, []).append(record)
    for label, group in groups.items():
        model = apps.get_model(label)
        lookups = key_lookups(model)
        if lookups is None or not _historical(model):
            continue
        keys = {r.key for r in group if r.key is not None}
        rows = model._default_manager.db_manager(using).filter(**{f"{lookups[0]}__in": {k[0] for k in keys}})
        values = rows.values_list("pk", *lookups)
        pks = [v[0] for v in values if tuple(v[1:]) in keys]
        found[model] = list(model._default_manager.db_manager(using).filter(pk__in=pks))
    return found


def _record_load_history(objs: dict[type[models.Model], list[models.Model]], reason: str, using: str,
                         existed: set[tuple[type[models.Model], Any]], by: Any = None) -> tuple[int, int]:
    """History for the rows a load created or changed; an unchanged row gets none.

    Returns the history records written for new rows and the number of rows
    that ``existed`` before this file and were changed by it.
    """
    created = changed = 0
    for model, rows in objs.items():
        history_model = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
        tracked = history_model.tracked_fields
        latest: dict[Any, models.Model] = {}
        for row in history_model._default_manager.using(using).filter(id__in=[o.pk for o in rows]).order_by(
            "id", "-history_date", "-history_id"
        ):
            latest.setdefault(row.id, row)
        new = [o for o in rows if o.pk not in latest]
        different = [
            o
            for o in rows
            if o.pk in latest and any(getattr(latest[o.pk], f.attname) != getattr(o, f.attname) for f in tracked)
        ]
        created += record_history(model, new, history_type="+", reason=reason, using=using, user=by)
        record_history(model, different, history_type="~", reason=reason, using=using, user=by)
        changed += sum(1 for o in different if (model, o.pk) in existed)
    return created, changed


def _make_passages(source_slugs: Sequence[str], shown: str, using: str) -> int:
    """Passages for sources that have a text and none yet; check the others still tile their text."""
    made = 0
    for source in Source.objects.using(using).filter(slug__in=source_slugs):
        if not source.text:
            continue
        existing = list(source.passages.order_by("seq").values_list("seq", "start", "end", "text"))
        if existing:
            try:
                verify_tiling(source.text, [Segment(*row) for row in existing])
            except ValueError as exc:
                raise CollectionError(
                    _("%(file)s: the passages of source %(slug)s in the database were made from another text "
                      "(%(error)s); the collection would strand them, so nothing was loaded. Bring in a new text "
                      "with import_source --replace, which re-anchors the citations.")
                    % {"file": shown, "slug": source.slug, "error": exc}
                ) from exc
            continue
        segments = split_passages(source.text)
        insert_passages(source, segments, passage_roles(segments), reason=f"loaded from {Path(shown).name}")
        made += len(segments)
    return made


# Rows that belong to a record: of a published record, a change of one is a change of it.
_CHILD_PARENT: dict[type[models.Model], str] = {
    PersonName: "person",
    UnitAlias: "unit",
    LocationAlias: "location",
    Passage: "source",
}


def _published(model: type[models.Model], pk: Any, using: str) -> bool:
    return model._default_manager.using(using).filter(pk=pk, status=Status.APPROVED).exists()


class _Undo(Exception):
    """Rolls back a trial proposal."""


def _propose(record: Curated, propose: Callable[..., Revision | None], *, by: Any, using: str) -> int:
    """Propose a change of the published `record` as `by`; without an author, only if it is pending already.

    A load with no author that states what the record's pending revision
    already holds writes nothing (1 is returned for a proposal made, else 0).
    """
    if by is not None:
        propose(by=by)
        return 1
    before = revisions.pending_revision(record)
    same = False
    try:
        with transaction.atomic(using=using):
            after = propose(by=None)
            same = before is not None and after is not None and (after.pk, after.changes) == (before.pk, before.changes)
            raise _Undo
    except _Undo:
        pass
    if not same:
        raise _no_author(_("a change of the published %(record)s") % {"record": record})
    return 0


def _divert_published(rows: list[dict[str, Any]], using: str, by: Any = None) -> tuple[list[int], int]:
    """Keep the rows that change a published record out of the load, and propose them for review.

    A fixture that states a published record differently is an edit like any
    other: its values become the record's pending revision and the published
    version stays served. A row equal to what is published loads as before.
    """
    kept: list[int] = []
    proposed = 0
    for index, row in enumerate(rows):
        model = apps.get_model(row["model"])
        parent_field = _CHILD_PARENT.get(model)
        if not (issubclass(model, Curated) and "pk" in row) and parent_field is None:
            kept.append(index)
            continue
        try:
            loaded = next(serializers.deserialize("python", [row], using=using))
        except serializers.base.DeserializationError:
            kept.append(index)  # it names a record of this load that is not stored yet: a new one
            continue
        stated = {model._meta.get_field(name).attname for name in row.get("fields", {})
                  if not isinstance(model._meta.get_field(name), models.ManyToManyField)}
        if issubclass(model, Curated) and "pk" in row and _published(model, row["pk"], using):
            live = model._default_manager.using(using).get(pk=row["pk"])
            # Only what the row states is compared; derived fields follow at approval.
            candidate = model._default_manager.using(using).get(pk=row["pk"])
            for attname in stated & set(revisions.field_values(live)):
                setattr(candidate, attname, getattr(loaded.object, attname))
            links = {name: sorted(pks) for name, pks in (loaded.m2m_data or {}).items()}
            current_links = {name: sorted(getattr(live, name).values_list("pk", flat=True)) for name in links}
            if revisions.field_values(candidate) == revisions.field_values(live) and links == current_links:
                continue  # as published already
            candidate.full_clean()  # a proposal holds what the model holds, constraints included
            change = partial(revisions.propose_change, record=candidate, m2m=links or None)
            proposed += _propose(live, change, by=by, using=using)
            continue
        if parent_field is not None:
            parent_id = getattr(loaded.object, f"{parent_field}_id")
            parent_model = model._meta.get_field(parent_field).related_model
            if parent_id is not None and _published(parent_model, parent_id, using):
                if "pk" in row:
                    live = model._default_manager.using(using).get(pk=row["pk"])
                    if revisions.field_values(loaded.object) == revisions.field_values(live):
                        continue
                else:
                    loaded.object.pk = None
                parent = parent_model._default_manager.using(using).get(pk=parent_id)
                change = partial(revisions.propose_child, parent=parent, child=loaded.object)
                proposed += _propose(parent, change, by=by, using=using)
                continue
        kept.append(index)
    return kept, proposed


def load_collection(directory: str | Path, *, using: str = "default", by: Any = None) -> LoadReport:
    """Check and load every fixture file of ``directory`` in one transaction, as `by` (see the module's note)."""
    directory = Path(directory)
    collection: Collection = read_collection(directory)
    report = LoadReport(files=list(collection.files))
    if not collection.files:
        return report
    report.release = _is_empty(using)
    prepare_collection(collection, using=using)
    with natural_keys.remembered():  # the check's rows are rolled back: its keys are forgotten with them
        problems = check_collection(collection, using=using)
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise CollectionError(
            _("The collection in %(dir)s has %(count)s problem(s); nothing was loaded:\n%(lines)s")
            % {"dir": directory, "count": len(problems), "lines": lines}
        )
    with (
        tempfile.TemporaryDirectory(prefix="collection-") as tmp,
        transaction.atomic(using=using),
        fiction.deferred(using),
        freshness_signals.bulk(using),
        natural_keys.remembered(),
    ):
        for path in collection.files:
            records = collection.records.get(path, [])
            shown = str(path)
            if not records:
                continue
            prepared = Path(tmp) / path.name
            try:
                rows = prepare_records(records, using=using)
            except StaleRecords as exc:
                lines = "\n".join(f"  - {p}" for p in exc.problems)
                raise CollectionError(
                    _("The collection in %(dir)s has %(count)s problem(s); nothing was loaded:\n%(lines)s")
                    % {"dir": directory, "count": len(exc.problems), "lines": lines}
                ) from exc
            try:
                kept, proposed = (list(range(len(rows))), 0) if report.release else _divert_published(rows, using, by)
            except ValidationError as exc:
                raise CollectionError(f"{shown}: {'; '.join(exc.messages)}") from exc
            report.proposed += proposed
            rows = [rows[index] for index in kept]
            records = [records[index] for index in kept]
            if not rows:
                continue
            # A record that found no row to update in place is new.
            new = sum(1 for row, record in zip(rows, records, strict=True) if "pk" not in row and record.pk is None)
            existed = {(apps.get_model(row["model"]), row["pk"]) for row in rows if "pk" in row}
            if not report.release and new:
                if by is None:
                    raise _no_author(_("%(count)s new record(s) from %(file)s") % {"count": new, "file": shown})
                _enter_review(rows, by)
            prepared.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
            try:
                call_command("loaddata", str(prepared), database=using, verbosity=0)
            except CommandError as exc:
                raise CollectionError(f"{shown}: {str(exc).replace(str(prepared), shown)}") from exc
            except _LOAD_ERRORS as exc:
                message = str(exc).replace(str(prepared), shown)
                if shown not in message:
                    message = f"{shown}: {message}"
                raise CollectionError(message) from exc
            report.passages_made += _make_passages(
                [r.fields["slug"] for r in records if r.label == "archive.source" and r.fields.get("slug")],
                shown,
                using,
            )
            refresh_statistics(using=using, written=written_models(records))  # the next file's lookups see its rows
            reason = (
                f"published as the collection's release, loaded from {path.name}"
                if report.release
                else f"loaded from {path.name}"
            )
            _created, changed = _record_load_history(_loaded_objects(records, using), reason, using, existed, by)
            if changed and by is None and not report.release:
                raise _no_author(_("%(count)s change(s) of unpublished records") % {"count": changed})
            report.records += len(records)
            report.created += new
            report.changed += changed
        # Passages made or changed by the load enter the search index in the same transaction.
        search_index.rebuild(using=using, update_only=True)
    return report
