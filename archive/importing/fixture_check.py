"""Check the shipped collection before any of it is loaded, by the models' own rules.

`loaddata` stops at the first bad row with a database error that names
neither the record nor the field, after having written everything before it.
This check loads the whole collection inside a savepoint that is always
rolled back: each record, in file order, is deserialized with natural keys,
validated by its model's `full_clean()` (field validators such as EDTF
dates, `clean()` such as a citation's quote in its passage) and saved, so
that later records resolve it; a source gets its passages as the load gives
them. The models' unique fields and constraints are the database's, checked by
that save: only a record the database refuses is put to the model's
`validate_unique()` and `validate_constraints()`, which name the rule in the
model's words (asking every record would cost a query per rule and record,
thousands for the shipped files).
Every problem of the collection is collected, each naming the file, the
record (index, model and natural key) and the field. Nothing a check does is
kept.

The rules are the models'; this module adds only what belongs to a
collection of files: every record has its natural key, and no key is used by
two records. What the models' `clean()` derives (an event's bounds, a
citation's offsets) is handed back to the records, so the load writes what
was validated; a value the record states that `clean()` would change is a
problem.
"""

from __future__ import annotations

import datetime
import decimal
import json
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, FieldDoesNotExist, ObjectDoesNotExist, ValidationError
from django.core.serializers import base
from django.db import DatabaseError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import fiction
from archive.db.statistics import refresh_statistics
from archive.freshness import signals as freshness_signals
from archive.models import Source
from archive.text.segment import split_passages

from .bulk import insert_passages
from .fixture_prepare import (
    FIXTURE_GLOB,
    SOURCES_DIR,
    Collection,
    Problem,
    Record,
    fixture_files,
    key_lookups,
    read_collection,
    written_models,
)
from .source_text import passage_roles

__all__ = [
    "FIXTURE_GLOB",
    "SOURCES_DIR",
    "Collection",
    "Problem",
    "Record",
    "check_collection",
    "fixture_files",
    "key_lookups",
    "read_collection",
]

# What `clean()` may change of what a record states: a citation's quote becomes
# the passage's own characters, unless the record pins it with offsets, which
# must then hold it. Other stated values load as stated.
_NORMALISED = {"archive.citation": {"quote"}}
_PINNED = {"archive.citation": {"start", "end"}}

_WHOLE_RECORD = "(record)"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class _Check:
    def __init__(self, collection: Collection, using: str) -> None:
        self.c = collection
        self.using = using
        self.problems: list[Problem] = []
        # Natural keys defined by the files: (label, key) -> the first record with it.
        self.defined: dict[tuple[str, tuple[Any, ...]], Record] = {}
        # Sources saved from the current file, to be given their passages at its end.
        self.sources: list[Source] = []

    def problem(self, record: Record, field_name: str, message: str) -> None:
        self.problems.append(
            Problem(self.c.display(record.file), record.index, record.label, record.key_text, field_name, message)
        )

    # what belongs to a collection of files

    def check_key(self, record: Record) -> set[str]:
        """Every record has its natural key, used once; returns the fields reported."""
        assert record.model is not None
        has_slug = any(f.name == "slug" for f in record.model._meta.get_fields())
        if has_slug and not record.fields.get("slug"):
            self.problem(record, "slug", _("the slug, the record's natural key, is missing"))
            return {"slug"}
        lookups = key_lookups(record.model) or ()
        field_name = "slug" if has_slug else "/".join(lookups)
        if record.key is None:
            if record.pk is None and lookups:
                self.problem(record, field_name, _("the natural key is incomplete"))
                return {lookup.split("__")[0] for lookup in lookups}
            return set()
        first = self.defined.setdefault((record.label, record.key), record)
        if first is not record:
            self.problem(record, field_name, _("the key %(key)s is used twice: also by record %(index)s of %(file)s")
                         % {"key": record.key_text, "index": first.index, "file": self.c.display(first.file)})
            return {field_name}
        return set()

    # deserializing, as loaddata does, one field at a time so that each problem names its field

    def deserialize(self, record: Record, bad: set[str]) -> base.DeserializedObject | None:
        model = record.model
        assert model is not None
        data: dict[str, Any] = {}
        m2m: dict[str, Any] = {}
        if record.pk is not None:
            try:
                data[model._meta.pk.attname] = model._meta.pk.to_python(record.pk)
            except ValidationError as exc:
                self.problem(record, "pk", "; ".join(exc.messages))
                return None
        for name, value in record.fields.items():
            try:
                model_field = model._meta.get_field(name)
                if not model_field.concrete:
                    raise FieldDoesNotExist(name)
            except FieldDoesNotExist:
                self.problem(record, name, _("%(model)s has no field %(field)s") % {"model": record.label,
                                                                                    "field": name})
                bad.add(name)
                continue
            assert isinstance(model_field, models.Field)  # a concrete field, as checked above
            try:
                if isinstance(model_field, models.ManyToManyField):
                    if not isinstance(value, list):
                        raise TypeError(_("a many-to-many field holds a list"))
                    m2m[name] = base.deserialize_m2m_values(model_field, value, self.using, False)
                elif isinstance(model_field, models.ForeignKey):
                    data[model_field.attname] = base.deserialize_fk_value(model_field, value, self.using, False)
                else:
                    data[model_field.name] = model_field.to_python(value)
            except (base.M2MDeserializationError, ObjectDoesNotExist) as exc:
                item = exc.pk if isinstance(exc, base.M2MDeserializationError) else value
                self.problem(record, name, _("the key %(key)s resolves to nothing: no %(model)s with it in the "
                                             "database or earlier in the files")
                             % {"key": _shown(item), "model": model_field.related_model._meta.label_lower})  # type: ignore[union-attr]  # a loaded relation names its model
                bad.add(name)
            except ValidationError as exc:
                self.problem(record, name, "; ".join(exc.messages))
                bad.add(name)
            except (base.DeserializationError, ValueError, TypeError, LookupError) as exc:
                self.problem(record, name, str(exc))
                bad.add(name)
        try:
            obj = base.build_instance(model, data, self.using)
        except (ObjectDoesNotExist, ValueError, TypeError, LookupError) as exc:
            if not bad:
                self.problem(record, "/".join(key_lookups(model) or (_WHOLE_RECORD,)), str(exc))
            return None
        lookups = key_lookups(model)
        if (obj.pk is None and record.key is not None and lookups and len(lookups) == len(record.key)
                and not _found_by_natural_key(model)):
            # Rows whose manager cannot find them by natural key (names, aliases); `build_instance`
            # has already asked the others' managers the same lookup.
            rows = model._default_manager.db_manager(self.using).filter(**dict(zip(lookups, record.key, strict=True)))
            obj.pk = rows.values_list("pk", flat=True).first()
        if obj.pk is not None and model._default_manager.db_manager(self.using).filter(pk=obj.pk).exists():
            # An update of a stored row: its own values are not taken for duplicates.
            obj._state.adding, obj._state.db = False, self.using
        return base.DeserializedObject(obj, m2m)

    # the model's own rules

    def validate(self, record: Record, obj: models.Model, bad: set[str]) -> None:
        concrete = [f for f in obj._meta.concrete_fields if not f.primary_key and not f.generated]
        before = {f.attname: getattr(obj, f.attname) for f in concrete}
        excluded = _fields_named(obj, bad)
        # Left out and empty: validated once `clean()` has had the chance to derive them.
        derived = {f.name for f in concrete if f.name not in record.fields and not f.null
                   and getattr(obj, f.attname) is None} - excluded
        try:
            # Unique fields and constraints are the database's: the save enforces them, and `save` asks
            # the model for its message when it refuses (a query per rule and record, only then).
            obj.full_clean(exclude=(excluded | derived) or None, validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            self.report(record, exc, bad)
        if derived and not bad:
            others = {f.name for f in obj._meta.fields} - derived
            try:
                obj.clean_fields(exclude=others)
            except ValidationError as exc:
                self.report(record, exc, bad)
        for model_field in concrete:
            after = getattr(obj, model_field.attname)
            if after == before[model_field.attname] or model_field.is_relation:
                continue
            name = model_field.name
            pinned = _PINNED.get(record.label, set())
            normalised = _NORMALISED.get(record.label, set())
            if name in record.fields and (name in pinned or (name in normalised and pinned & set(record.fields))):
                self.problem(record, name, _("the record says %(stated)s; the model's rules make it %(derived)s")
                             % {"stated": _shown(before[model_field.attname]), "derived": _shown(after)})
                bad.add(name)
            elif name not in record.fields or name in normalised:
                record.fields[name] = _serializable(model_field, obj)

    def report(self, record: Record, error: ValidationError, bad: set[str]) -> None:
        for name, messages in error.message_dict.items():
            if name in bad:
                continue
            self.problem(record, _WHOLE_RECORD if name == NON_FIELD_ERRORS else name, " ".join(messages))
            bad.add(name)

    def save(self, record: Record, loaded: base.DeserializedObject, bad: set[str]) -> None:
        """Save as loaddata does, so that later records resolve this one; a source gets its passages."""
        obj = loaded.object
        for model_field in obj._meta.concrete_fields:
            # A raw save, like loaddata's, fills no timestamps; the load gives them (`prepare_records`).
            if getattr(model_field, "auto_now", False) and getattr(obj, model_field.attname) is None:
                setattr(obj, model_field.attname, timezone.now())
        # A raw save writes no history, but setting a many-to-many field does (simple-history's signal):
        # a history row for the record and one per link, which the rollback throws away.
        obj.skip_history_when_saving = True  # type: ignore[attr-defined]  # simple-history's documented flag
        try:
            with transaction.atomic(using=self.using):
                loaded.save(using=self.using)
        except (DatabaseError, ValidationError, ValueError, TypeError, ObjectDoesNotExist) as exc:
            if isinstance(exc, DatabaseError) and self.constraint_broken(record, obj, bad):
                return
            if not bad:
                self.problem(record, _WHOLE_RECORD, str(exc))
            return
        if isinstance(obj, Source):
            self.sources.append(obj)

    def constraint_broken(self, record: Record, obj: models.Model, bad: set[str]) -> bool:
        """The model's words for a unique field or constraint the database refused: whether one was reported."""
        excluded = _fields_named(obj, bad)
        try:
            obj.validate_unique(exclude=excluded or None)
            obj.validate_constraints(exclude=excluded or None)
        except ValidationError as exc:
            self.report(record, exc, bad)
            return True
        return False

    def make_passages(self) -> None:
        """Passages of the file's sources that have a text and none yet, as the load makes them after a file."""
        for source in self.sources:
            if source.text and not source.passages.exists():
                segments = split_passages(source.text)
                with transaction.atomic(using=self.using):
                    insert_passages(source, segments, passage_roles(segments), reason="checked")
        self.sources.clear()

    def run(self) -> list[Problem]:
        for path in self.c.files:
            for record in self.c.records.get(path, []):
                if record.model is None:
                    self.problem(record, "model", _("no such model: %(model)s") % {"model": record.label})
                    continue
                bad = self.check_key(record)
                loaded = self.deserialize(record, bad)
                if loaded is None:
                    continue
                self.validate(record, loaded.object, bad)
                self.save(record, loaded, bad)
            self.make_passages()
            # The next file's lookups see this one's rows.
            refresh_statistics(using=self.using, written=written_models(self.c.records.get(path, [])))
        return self.problems


def _found_by_natural_key(model: type[models.Model]) -> bool:
    """Whether `base.build_instance` looks a record of `model` up by its natural key (as loaddata does)."""
    return hasattr(model._default_manager, "get_by_natural_key") and hasattr(model, "natural_key")


def _fields_named(obj: models.Model, names: set[str]) -> set[str]:
    """The model's fields among `names` (reported problems name fields, or the whole record)."""
    return {obj._meta.get_field(name).name for name in names if _has_field(obj, name)}


def _has_field(obj: models.Model, name: str) -> bool:
    try:
        obj._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return True


def _serializable(model_field: models.Field[Any, Any], obj: models.Model) -> Any:
    """The field's value as a fixture holds it."""
    value = getattr(obj, model_field.attname)
    if isinstance(value, datetime.date | datetime.time | decimal.Decimal):
        return model_field.value_to_string(obj)
    return value


def check_collection(collection: Collection, *, using: str = "default") -> list[Problem]:
    """Every problem of the collection, found by loading it in a savepoint that is rolled back.

    Also hands back to the records what the models' `clean()` derives. Call
    `fixture_prepare.prepare_collection` first, so that sources have their texts.
    """
    check = _Check(collection, using)
    with transaction.atomic(using=using):
        try:
            # Rolled back: what the documents would show is worked out by the load itself, once.
            with fiction.deferred(using), freshness_signals.bulk(using):
                problems = check.run()
        finally:
            transaction.set_rollback(True, using=using)
    collection.problems.extend(problems)
    return collection.problems
