"""Read the shipped collection and prepare its records for loading.

A fixture may leave out what follows from its other fields or lives beside
it: a source's text (read from ``sources/``), its ``sha256`` and ``length``,
a passage's ``sha256``. This module reads the fixture files, fills those in
(reporting what cannot be filled: a missing or different text file), and
turns the checked records into the rows `loaddata` takes, with the primary
keys and timestamps of rows the database already holds. It writes nothing;
whether the records are valid is `fixture_check`'s question, answered by the
models themselves.
"""

from __future__ import annotations

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

from archive.text.segment import sha256_text

from .source_text import SourceFileError, decode_source

__all__ = [
    "Collection",
    "Problem",
    "Record",
    "StaleRecords",
    "fixture_files",
    "key_lookups",
    "prepare_collection",
    "prepare_records",
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


def written_models(records: Iterable[Record]) -> set[type[models.Model]]:
    """The models a load of `records` writes: their own, and the passages cut from a source's text."""
    from archive.models import Passage, Source

    found = {record.model for record in records if record.model is not None}
    return found | {Passage} if Source in found else found


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


# --- filling in what follows from other fields ----------------------------


def _problem(collection: Collection, record: Record, field_name: str, message: str) -> None:
    collection.problems.append(
        Problem(collection.display(record.file), record.index, record.label, record.key_text, field_name, message)
    )


def _db_passages(slug: Any, using: str) -> bool:
    from archive.models import Passage

    return Passage.objects.using(using).filter(source__slug=slug).exists()


def _text_from_file(collection: Collection, record: Record, using: str) -> str | None:
    """The text of a source record that leaves it out, read from ``sources/``; None if there is none."""
    fields = record.fields
    slug = fields.get("slug")
    names = list(dict.fromkeys(n for n in (fields.get("file_name"), f"{slug}.txt" if slug else None) if n))
    folder = collection.directory / SOURCES_DIR
    paths = [folder / n for n in names if (folder / n).is_file()]
    if not paths:
        if fields.get("sha256"):
            files = " or ".join(f"{SOURCES_DIR}/{n}" for n in names)
            _problem(collection, record, "text", _("no text: the record gives a SHA-256 but neither its text nor "
                                                   "%(files)s") % {"files": files})
        elif slug and _db_passages(slug, using):
            _problem(collection, record, "text", _("no text, but source %(slug)s has passages in the database; "
                                                   "loading it would take their text away") % {"slug": slug})
        return None
    decoded = []
    for path in paths:
        try:
            decoded.append(decode_source(path.read_bytes(), name=f"{SOURCES_DIR}/{path.name}"))
        except SourceFileError as exc:
            _problem(collection, record, "text", str(exc))
            return None
    wanted = fields.get("sha256")
    chosen = next((d for d in decoded if not wanted or d.sha256 == wanted), None)
    if chosen is None:
        _problem(collection, record, "sha256", _("%(file)s has SHA-256 %(actual)s, the record says %(expected)s") % {
            "file": decoded[0].file_name, "actual": decoded[0].sha256, "expected": wanted})
        return None
    fields["sha256"] = chosen.sha256
    if not fields.get("file_name"):
        fields["file_name"] = chosen.file_name.removeprefix(f"{SOURCES_DIR}/")
    return chosen.text


def _prepare_source(collection: Collection, record: Record, using: str) -> None:
    fields = record.fields
    text = fields.get("text") or ""
    if not text:
        text = _text_from_file(collection, record, using) or ""
        if text:
            fields["text"] = text
    elif fields.get("sha256") and fields["sha256"] != sha256_text(text):
        _problem(collection, record, "sha256", _("the text has SHA-256 %(actual)s, the record says %(expected)s") % {
            "actual": sha256_text(text), "expected": fields["sha256"]})
    elif not fields.get("sha256"):
        fields["sha256"] = sha256_text(text)
    if fields.get("length") and fields["length"] != len(text):
        _problem(collection, record, "length", _("the text has %(actual)s characters, the record says %(expected)s")
                 % {"actual": len(text), "expected": fields["length"]})
    fields["length"] = len(text)


def prepare_collection(collection: Collection, *, using: str = "default") -> list[Problem]:
    """Fill in each record's derived fields and source texts; returns the collection's problems so far."""
    for record in collection.all_records():
        if record.label == "archive.source":
            _prepare_source(collection, record, using)
        elif record.label == "archive.passage" and isinstance(record.fields.get("text"), str):
            record.fields.setdefault("sha256", sha256_text(record.fields["text"]))
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
