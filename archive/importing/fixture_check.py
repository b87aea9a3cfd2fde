"""Check the shipped collection before any of it is loaded.

`loaddata` stops at the first bad row with a database error that names
neither the record nor the field, after having written everything before it.
This module reads every fixture file first and reports every problem at once,
each naming the file, the record (index, model and natural key) and the
field: a quote that is not the passage's text at its offsets (with the
closest match), a natural key that resolves to nothing in the database or
earlier in the files, an EDTF date that does not parse, a slug used twice.
It only reads the database, so a failed check leaves it exactly as it was.

It also prepares each record for loading: fields that follow from others
(see `archive.importing`) are filled in, and the primary key of an existing
row is looked up where the model's manager cannot do so itself.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import dating
from archive.models import TARGET_FIELDS
from archive.text import anchor
from archive.text.segment import sha256_text, split_passages

from .source_text import SourceFileError, decode_source

__all__ = [
    "EDTF_FIELDS",
    "Collection",
    "Problem",
    "Record",
    "check_collection",
    "fixture_files",
    "key_lookups",
    "read_collection",
]

FIXTURE_GLOB = "[0-9][0-9]_*.json"
SOURCES_DIR = "sources"

# The database lookups that make up each model's natural key, in the order of
# its `natural_key()` (a natural foreign key is flattened into it).
_KEY_LOOKUPS: dict[str, tuple[str, ...]] = {
    "archive.passage": ("source__slug", "seq"),
    "archive.personname": ("person__slug", "name"),
    "archive.unitalias": ("unit__slug", "name"),
    "archive.locationalias": ("location__slug", "name"),
    "auth.user": ("username",),
    "auth.group": ("name",),
    "archive.slugredirect": ("model", "old_slug"),
}

EDTF_FIELDS: dict[str, tuple[str, ...]] = {
    "archive.source": ("date",),
    "archive.person": ("birth", "death"),
    "archive.post": ("date_from", "date_to"),
    "archive.event": ("date",),
}


@functools.lru_cache(maxsize=4096)
def _edtf_problem(value: str) -> str | None:
    """Why ``value`` is not a valid EDTF date, or None; cached, as parsing takes tens of milliseconds."""
    try:
        dating.bounds(value)
    except dating.BadDate as exc:
        return str(exc)
    return None


def key_lookups(model: type[models.Model]) -> tuple[str, ...] | None:
    """The lookups of ``model``'s natural key, or None when it has none this module knows."""
    label = model._meta.label_lower
    if label in _KEY_LOOKUPS:
        return _KEY_LOOKUPS[label]
    if hasattr(model, "natural_key") and any(f.name == "slug" for f in model._meta.get_fields()):
        return ("slug",)
    return None


def fixture_files(directory: str | Path) -> list[Path]:
    """The collection's fixture files, ``NN_name.json``, in loading order."""
    return sorted(Path(directory).glob(FIXTURE_GLOB), key=lambda p: p.name)


class StaleRecords(ValueError):
    """Records of a file older than what the database holds."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Problem:
    file: str
    index: int | None
    model: str
    key: str
    field: str
    message: str

    def __str__(self) -> str:
        if self.index is None:
            return f"{self.file}: {self.message}"
        where = _("record %(index)s (%(model)s %(key)s)") % {"index": self.index, "model": self.model, "key": self.key}
        return _("%(file)s: %(where)s, field %(field)s: %(message)s") % {
            "file": self.file,
            "where": where,
            "field": self.field,
            "message": self.message,
        }


@dataclass
class Record:
    """One object of a fixture file; ``fields`` is what will be loaded."""

    file: Path
    index: int
    label: str
    model: type[models.Model] | None
    fields: dict[str, Any]
    pk: Any = None
    key: tuple[Any, ...] | None = None

    @property
    def key_text(self) -> str:
        if self.key is None:
            return "?" if self.pk is None else f"pk={self.pk}"
        return "/".join(str(part) for part in self.key)

    def as_fixture(self) -> dict[str, Any]:
        data: dict[str, Any] = {"model": self.label, "fields": self.fields}
        if self.pk is not None:
            data["pk"] = self.pk
        return data


@dataclass
class Collection:
    directory: Path
    files: list[Path]
    records: dict[Path, list[Record]] = field(default_factory=dict)
    # Texts of the sources in the files (slug -> text), from the record or its file.
    source_texts: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def all_records(self) -> Iterable[Record]:
        for path in self.files:
            yield from self.records.get(path, [])

    def display(self, path: Path) -> str:
        """How a file is named in messages: its path as given."""
        return str(path)


def _flatten(value: Any) -> tuple[Any, ...]:
    if isinstance(value, list | tuple):
        return tuple(part for item in value for part in _flatten(item))
    return (value,)


def _record_key(model: type[models.Model], fields: dict[str, Any]) -> tuple[Any, ...] | None:
    lookups = key_lookups(model)
    if lookups is None:
        return None
    parts: list[Any] = []
    seen: set[str] = set()
    for lookup in lookups:
        name = lookup.split("__")[0]
        if name in seen:
            continue
        seen.add(name)
        if name not in fields:
            return None
        value = fields[name]
        parts.extend(_flatten(value) if isinstance(value, list) else (value,))
    return tuple(parts)


def read_collection(directory: str | Path, files: Sequence[Path] | None = None) -> Collection:
    """Parse the fixture files of ``directory``; unreadable files become problems."""
    directory = Path(directory)
    collection = Collection(directory, list(files) if files is not None else fixture_files(directory))
    for path in collection.files:
        shown = collection.display(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            collection.problems.append(Problem(shown, None, "", "", "", _("not a readable JSON fixture: %(error)s")
                                               % {"error": exc}))
            continue
        if not isinstance(data, list):
            collection.problems.append(Problem(shown, None, "", "", "", _("a fixture is a JSON list of records")))
            continue
        records: list[Record] = []
        for index, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("model"), str):
                collection.problems.append(Problem(shown, index, "?", "?", "model", _("a record names its model")))
                continue
            label = item["model"].lower()
            fields = item.get("fields") or {}
            try:
                model: type[models.Model] | None = apps.get_model(label)
            except (LookupError, ValueError):
                model = None
            record = Record(path, index, label, model, dict(fields), item.get("pk"))
            if model is not None:
                record.key = _record_key(model, record.fields)
            records.append(record)
        collection.records[path] = records
    return collection


# --- checking -------------------------------------------------------------


class _Checker:
    def __init__(self, collection: Collection, using: str) -> None:
        self.c = collection
        self.using = using
        self.problems: list[Problem] = []
        # Natural keys defined by the files: (label, key) -> record.
        self.defined: dict[tuple[str, tuple[Any, ...]], Record] = {}
        self.pks: set[tuple[str, Any]] = set()
        self.file_of: dict[tuple[str, tuple[Any, ...]], Path] = {}
        # Passage texts known from passage records: (source slug, seq) -> text.
        self.passage_texts: dict[tuple[Any, ...], str] = {}
        self._db_cache: dict[tuple[str, tuple[Any, ...]], bool] = {}
        # The file whose source record brings each source's text: slug -> path.
        self.text_file: dict[Any, Path] = {}
        self._split_cache: dict[str, dict[int, str]] = {}

    def problem(self, record: Record, field_name: str, message: str) -> None:
        self.problems.append(
            Problem(self.c.display(record.file), record.index, record.label, record.key_text, field_name, message)
        )

    # natural keys

    def in_db(self, model: type[models.Model], key: tuple[Any, ...]) -> bool:
        cache_key = (model._meta.label_lower, key)
        if cache_key not in self._db_cache:
            lookups = key_lookups(model)
            if lookups is None or len(lookups) != len(key):
                self._db_cache[cache_key] = False
            else:
                manager = model._default_manager.db_manager(self.using)
                self._db_cache[cache_key] = manager.filter(**dict(zip(lookups, key, strict=True))).exists()
        return self._db_cache[cache_key]

    def resolves(self, model: type[models.Model], value: Any, current: Path) -> bool:
        label = model._meta.label_lower
        if not isinstance(value, list):
            if (label, value) in self.pks:
                return True
            return model._default_manager.db_manager(self.using).filter(pk=value).exists()
        key = _flatten(value)
        defined_in = self.file_of.get((label, key))
        if defined_in is not None and self.c.files.index(defined_in) <= self.c.files.index(current):
            return True
        if label == "archive.passage" and len(key) == 2:
            # Passages the importer will make from a source text loaded by an earlier file.
            made_in = self.text_file.get(key[0])
            if made_in is not None and self.c.files.index(made_in) < self.c.files.index(current):
                return self.passage_text(key) is not None
        return self.in_db(model, key)

    def check_references(self, record: Record) -> None:
        assert record.model is not None
        for name, value in record.fields.items():
            try:
                model_field = record.model._meta.get_field(name)
            except FieldDoesNotExist:
                message = _("%(model)s has no field %(field)s") % {"model": record.label, "field": name}
                self.problem(record, name, message)
                continue
            related = model_field.related_model
            if related is None or value is None or not model_field.concrete:
                continue
            values = value if model_field.many_to_many else [value]
            if model_field.many_to_many and not isinstance(value, list):
                self.problem(record, name, _("a many-to-many field holds a list"))
                continue
            for item in values:
                if not self.resolves(related, item, record.file):  # type: ignore[arg-type]  # checked by _related_model before
                    self.problem(
                        record,
                        name,
                        _("the key %(key)s resolves to nothing: no %(model)s with it in the database or earlier in "
                          "the files") % {"key": json.dumps(item, ensure_ascii=False),
                                          "model": related._meta.label_lower},  # type: ignore[union-attr]  # checked by _related_model before
                    )

    # record kinds

    def source_text(self, slug: Any) -> str | None:
        if slug in self.c.source_texts:
            return self.c.source_texts[slug]
        from archive.models import Source

        return Source.objects.using(self.using).filter(slug=slug).values_list("text", flat=True).first() or None

    def passage_text(self, key: tuple[Any, ...]) -> str | None:
        if key in self.passage_texts:
            return self.passage_texts[key]
        if len(key) != 2:
            return None
        slug, seq = key
        if slug in self.c.source_texts:
            if slug not in self._split_cache:
                self._split_cache[slug] = {s.seq: s.text for s in split_passages(self.c.source_texts[slug])}
            return self._split_cache[slug].get(seq)
        from archive.models import Passage

        return (
            Passage.objects.using(self.using).filter(source__slug=slug, seq=seq).values_list("text", flat=True).first()
        )

    def _text_from_file(self, record: Record) -> str | None:
        """The text of a source record that leaves it out, read from ``sources/``; None if there is none."""
        fields = record.fields
        slug = fields.get("slug")
        names = list(dict.fromkeys(n for n in (fields.get("file_name"), f"{slug}.txt" if slug else None) if n))
        paths = [self.c.directory / SOURCES_DIR / n for n in names if (self.c.directory / SOURCES_DIR / n).is_file()]
        if not paths:
            if fields.get("sha256"):
                files = " or ".join(f"{SOURCES_DIR}/{n}" for n in names)
                self.problem(record, "text", _("no text: the record gives a SHA-256 but neither its text nor "
                                               "%(files)s") % {"files": files})
            elif slug and self._db_passages(slug):
                self.problem(record, "text", _("no text, but source %(slug)s has passages in the database; loading "
                                               "it would take their text away") % {"slug": slug})
            return None
        decoded = []
        for path in paths:
            try:
                decoded.append(decode_source(path.read_bytes(), name=f"{SOURCES_DIR}/{path.name}"))
            except SourceFileError as exc:
                self.problem(record, "text", str(exc))
                return None
        wanted = fields.get("sha256")
        chosen = next((d for d in decoded if not wanted or d.sha256 == wanted), None)
        if chosen is None:
            self.problem(record, "sha256", _("%(file)s has SHA-256 %(actual)s, the record says %(expected)s") % {
                "file": decoded[0].file_name, "actual": decoded[0].sha256, "expected": wanted})
            return None
        fields["sha256"] = chosen.sha256
        if not fields.get("file_name"):
            fields["file_name"] = chosen.file_name.removeprefix(f"{SOURCES_DIR}/")
        return chosen.text

    def _db_passages(self, slug: Any) -> bool:
        from archive.models import Passage

        return Passage.objects.using(self.using).filter(source__slug=slug).exists()

    def check_source(self, record: Record) -> None:
        fields = record.fields
        slug = fields.get("slug")
        text = fields.get("text") or ""
        if not text:
            text = self._text_from_file(record) or ""
            if text:
                fields["text"] = text
        elif fields.get("sha256") and fields["sha256"] != sha256_text(text):
            self.problem(record, "sha256", _("the text has SHA-256 %(actual)s, the record says %(expected)s") % {
                "actual": sha256_text(text), "expected": fields["sha256"]})
        elif not fields.get("sha256"):
            fields["sha256"] = sha256_text(text)
        if fields.get("length") and fields["length"] != len(text):
            self.problem(record, "length", _("the text has %(actual)s characters, the record says %(expected)s") % {
                "actual": len(text), "expected": fields["length"]})
        fields["length"] = len(text)
        if slug and text:
            self.c.source_texts[slug] = text
            self.text_file[slug] = record.file

    def check_passage(self, record: Record) -> None:
        fields = record.fields
        text = fields.get("text")
        if not isinstance(text, str) or not text:
            self.problem(record, "text", _("a passage has text"))
            return
        fields.setdefault("sha256", sha256_text(text))
        if fields["sha256"] != sha256_text(text):
            self.problem(record, "sha256", _("does not match the text (%(actual)s)") % {"actual": sha256_text(text)})
        if record.key is not None:
            self.passage_texts[record.key] = text
            source_text = self.source_text(record.key[0])
            start, end = fields.get("start"), fields.get("end")
            if source_text is not None and isinstance(start, int) and isinstance(end, int) \
                    and source_text[start:end] != text:
                self.problem(record, "text", _("is not the slice %(start)s–%(end)s of its source") % {
                    "start": start, "end": end})

    def check_citation(self, record: Record) -> None:
        fields = record.fields
        if not fields.get("slug"):
            self.problem(record, "slug", _("a citation in a fixture has a slug, its natural key"))
        targets = [name for name in TARGET_FIELDS if fields.get(name) is not None]
        if len(targets) != 1:
            self.problem(record, "/".join(TARGET_FIELDS), _("a citation is evidence for exactly one record; it names "
                                                              "%(count)s") % {"count": len(targets)})
        quote = fields.get("quote")
        passage_key = fields.get("passage")
        if not isinstance(quote, str) or not quote:
            self.problem(record, "quote", _("a citation has a quote"))
            return
        if not isinstance(passage_key, list):
            return
        text = self.passage_text(_flatten(passage_key))
        if text is None:
            return  # reported as an unresolved key
        start, end = fields.get("start"), fields.get("end")
        shown = json.dumps(passage_key, ensure_ascii=False)
        if isinstance(start, int) and isinstance(end, int):
            if text[start:end] == quote:
                return
            try:
                found = anchor.locate(text, quote)
            except anchor.QuoteNotFound as exc:
                self.problem(record, "quote", _("“%(quote)s” is not in passage %(passage)s; closest match: "
                                                "“%(closest)s” at %(start)s–%(end)s") % {
                    "quote": quote, "passage": shown, "closest": exc.closest, "start": exc.closest_start,
                    "end": exc.closest_end})
            else:
                self.problem(record, "start", _("passage %(passage)s holds “%(actual)s” at %(start)s–%(end)s; the "
                                                "quote “%(quote)s” is at %(found_start)s–%(found_end)s") % {
                    "passage": shown, "actual": text[start:end], "start": start, "end": end, "quote": quote,
                    "found_start": found.start, "found_end": found.end})
            return
        try:
            found = anchor.locate(text, quote)
        except anchor.QuoteNotFound as exc:
            self.problem(record, "quote", _("“%(quote)s” is not in passage %(passage)s; closest match: "
                                            "“%(closest)s”") % {"quote": quote, "passage": shown,
                                                                 "closest": exc.closest})
            return
        if text.count(found.exact) > 1:
            self.problem(record, "start", _("“%(quote)s” occurs %(count)s times in passage %(passage)s; give its "
                                            "start") % {"quote": quote, "count": text.count(found.exact),
                                                        "passage": shown})
            return
        fields["quote"], fields["start"], fields["end"] = found.exact, found.start, found.end

    def check_edtf(self, record: Record) -> None:
        for name in EDTF_FIELDS.get(record.label, ()):
            value = record.fields.get(name)
            if value:
                problem = _edtf_problem(value) if isinstance(value, str) else _("an EDTF date is a string")
                if problem:
                    self.problem(record, name, problem)

    def fill_event_bounds(self, record: Record) -> None:
        fields = record.fields
        if fields.get("date") and "earliest" not in fields and "latest" not in fields:
            try:
                low, high = dating.bounds(fields["date"])
            except dating.BadDate:
                return
            fields["earliest"] = low.isoformat() if low else None
            fields["latest"] = high.isoformat() if high else None

    # the whole collection

    def run(self) -> list[Problem]:
        for path in self.c.files:
            for record in self.c.records.get(path, []):
                if record.model is None:
                    self.problem(record, "model", _("no such model: %(model)s") % {"model": record.label})
                    continue
                if record.key is not None:
                    self.file_of.setdefault((record.label, record.key), path)
                if record.pk is not None:
                    self.pks.add((record.label, record.pk))
        for path in self.c.files:
            for record in self.c.records.get(path, []):
                if record.model is None:
                    continue
                self.check_record(record)
        return self.problems

    def check_record(self, record: Record) -> None:
        assert record.model is not None
        has_slug = any(f.name == "slug" for f in record.model._meta.get_fields())
        if has_slug and not record.fields.get("slug") and record.label != "archive.citation":
            self.problem(record, "slug", _("the slug, the record's natural key, is missing"))
        if record.key is not None:
            first = self.defined.get((record.label, record.key))
            if first is not None:
                field_name = "slug" if has_slug else "/".join(key_lookups(record.model) or ())
                self.problem(record, field_name, _("the key %(key)s is used twice: also by record %(index)s of "
                                                   "%(file)s") % {"key": record.key_text, "index": first.index,
                                                                  "file": self.c.display(first.file)})
            else:
                self.defined[(record.label, record.key)] = record
        elif record.pk is None and key_lookups(record.model) is not None:
            self.problem(record, "/".join(key_lookups(record.model) or ()), _("the natural key is incomplete"))
        self.check_references(record)
        self.check_edtf(record)
        if record.label == "archive.source":
            self.check_source(record)
        elif record.label == "archive.passage":
            self.check_passage(record)
        elif record.label == "archive.citation":
            self.check_citation(record)
        elif record.label == "archive.event":
            self.fill_event_bounds(record)


def check_collection(collection: Collection, *, using: str = "default") -> list[Problem]:
    """Every problem of the collection (also those found when reading it); fills derived fields."""
    problems = _Checker(collection, using).run()
    collection.problems.extend(problems)
    return collection.problems


# --- preparing a file for loaddata ---------------------------------------


def _existing_rows(model: type[models.Model], keys: Iterable[tuple[Any, ...]], using: str, extra: Sequence[str] = ()
                   ) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Rows of ``model`` with the given natural keys, by key, in one query."""
    lookups = key_lookups(model)
    keys = {k for k in keys if lookups is not None and len(k) == len(lookups)}
    if lookups is None or not keys:
        return {}
    rows = model._default_manager.db_manager(using).filter(**{f"{lookups[0]}__in": {k[0] for k in keys}})
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for values in rows.values(*lookups, "pk", *extra):
        key = tuple(values[lookup] for lookup in lookups)
        if key in keys:
            found[key] = values
    return found


def prepare_records(records: Sequence[Record], *, using: str = "default") -> list[dict[str, Any]]:
    """The records as loaddata will take them, with the current database state.

    An existing row keeps its creation time and last-change time unless the
    record gives them (so loading twice changes nothing). Natural keys that
    the database already holds, of the records and of what they link to, are
    replaced by primary keys found in one query per model, so that loaddata
    does not look each of them up on its own.
    """
    now = timezone.now().isoformat()
    stale: list[Problem] = []
    existing: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}
    by_model: dict[str, list[Record]] = {}
    for record in records:
        by_model.setdefault(record.label, []).append(record)
    for label, group in by_model.items():
        model = apps.get_model(label)
        wanted = [
            f for f in ("created_at", "updated_at", "version") if any(x.name == f for x in model._meta.concrete_fields)
        ]
        for key, values in _existing_rows(model, (r.key for r in group if r.key is not None), using, wanted).items():
            existing[(label, key)] = values

    # Linked rows: (related model, natural key) -> pk, for keys the database holds.
    wanted_links: dict[type[models.Model], set[tuple[Any, ...]]] = {}
    for record in records:
        assert record.model is not None
        for name, value in record.fields.items():
            related = _related_model(record.model, name)
            if related is None or value is None:
                continue
            items = value if _is_many(record.model, name) else [value]
            for item in items:
                if isinstance(item, list):
                    wanted_links.setdefault(related, set()).add(_flatten(item))
    link_pk: dict[tuple[type[models.Model], tuple[Any, ...]], Any] = {}
    for related, keys in wanted_links.items():
        for key, values in _existing_rows(related, keys, using).items():
            link_pk[(related, key)] = values["pk"]

    def link(related: type[models.Model], item: Any) -> Any:
        if isinstance(item, list):
            return link_pk.get((related, _flatten(item)), item)
        return item

    out: list[dict[str, Any]] = []
    for record in records:
        data = record.as_fixture()
        assert record.model is not None
        model = record.model
        row = existing.get((record.label, record.key)) if record.key is not None else None
        fields = data["fields"] = dict(data["fields"])
        for name in ("created_at", "updated_at"):
            if name not in fields and any(f.name == name for f in model._meta.concrete_fields):
                fields[name] = row[name].isoformat() if row else now
        if row and "version" in row:
            if "version" not in fields:
                # Reloading keeps the lock version of a record, rather than resetting it to 1.
                fields["version"] = row["version"]
            elif int(fields["version"]) < row["version"]:
                # An older export must not overwrite edits made since (no lost update).
                stale.append(
                    Problem(str(record.file), record.index, record.label, record.key_text, "version",
                            _("the file has version %(file)s, the database already holds version %(db)s; export again")
                            % {"file": fields["version"], "db": row["version"]})
                )
        for name, value in list(fields.items()):
            related = _related_model(model, name)
            if related is None or value is None:
                continue
            if _is_many(model, name):
                fields[name] = [link(related, item) for item in value]
            else:
                fields[name] = link(related, value)
        if row is not None and "pk" not in data:
            data["pk"] = row["pk"]
        out.append(data)
    if stale:
        raise StaleRecords(stale)
    return out


def _related_model(model: type[models.Model], name: str) -> type[models.Model] | None:
    try:
        model_field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    if not model_field.concrete or model_field.related_model is None:
        return None
    return model_field.related_model  # type: ignore[return-value]  # a loaded relation names its model, never "self"


def _is_many(model: type[models.Model], name: str) -> bool:
    return bool(model._meta.get_field(name).many_to_many)
