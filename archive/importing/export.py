"""Write the whole archive out as a collection that `load_collection` reads back.

The export has the shipped collection's shape: the same fixture file names
in the same order (taken from the shipped ``fixtures/`` when it holds any,
else the default layout), natural keys instead of ids, and each source's
text as a byte-exact file in ``sources/``. A Source record in the export
leaves its text out and names its file and SHA-256 instead, so the text is
stored once and its checksum proves it on load.

Accounts are not part of the collection: the curator, modifier and reviewer
of a record are left empty in its files (status and review time are kept).
Beside them, ``backup/`` (`archive.importing.backup`) holds every row by id,
authorship, revisions, history, notes and the accounts' roles included, which
`restore` loads into an empty database: the collection files are for
`load_collection` into any archive, ``backup/`` is the backup.

The export is atomic on disk: it is written into a temporary directory
beside the target and renamed into place, so the target holds either the
complete previous export or the complete new one.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import errno
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import Curated, Passage, Source, Status

from .backup import BACKUP_DIR, write_backup
from .fixture_check import FIXTURE_GLOB, SOURCES_DIR, fixture_files

__all__ = ["DEFAULT_LAYOUT", "ExportError", "ExportReport", "export_collection", "layout"]

# File name -> models, in loading order; the shipped collection's shape.
DEFAULT_LAYOUT: list[tuple[str, list[str]]] = [
    ("01_sources.json", ["archive.source", "archive.passage"]),
    ("02_people.json", ["archive.person", "archive.personname"]),
    ("03_units.json", ["archive.unit", "archive.unitalias", "archive.post"]),
    ("04_places.json", ["archive.location", "archive.locationalias"]),
    ("05_events.json", ["archive.event", "archive.participation"]),
    ("06_citations.json", ["archive.citation"]),
    ("07_statements.json", ["archive.statement"]),
    ("07_redirects.json", ["archive.slugredirect"]),
    ("08_notes.json", ["archive.curatornote"]),
]
_MODEL_ORDER = [label for _name, labels in DEFAULT_LAYOUT for label in labels]
_ACCOUNT_FIELDS = ("created_by", "modified_by", "reviewed_by")


class _ExactEncoder(DjangoJSONEncoder):
    """DjangoJSONEncoder cuts datetimes to milliseconds; an export keeps every microsecond."""

    def default(self, o: Any) -> Any:
        if isinstance(o, dt.datetime | dt.time):
            return o.isoformat()
        return super().default(o)


def layout(shipped: str | Path | None = None) -> list[tuple[str, list[str]]]:
    """The file layout of the collection in ``shipped``; models it lacks go by the default layout.

    A model that none of the shipped files holds is put in the shipped file
    with the model it belongs to in the default layout, or, failing that, in
    its default file after the shipped ones.
    """
    files = fixture_files(shipped) if shipped is not None else []
    if not files:
        return [(name, list(labels)) for name, labels in DEFAULT_LAYOUT]
    result: list[tuple[str, list[str]]] = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = []
        labels = list(dict.fromkeys(str(item.get("model", "")).lower() for item in data if isinstance(item, dict)))
        result.append((path.name, [label for label in labels if label in _MODEL_ORDER]))
    placed = {label for _name, labels in result for label in labels}
    for name, labels in DEFAULT_LAYOUT:
        for label in labels:
            if label in placed:
                continue
            home = next((entry for entry in result if set(entry[1]) & set(labels)), None)
            if home is None:
                home = next((entry for entry in result if entry[0] == name), None)
            if home is None:
                home = (name, [])
                result.append(home)
            home[1].append(label)
            placed.add(label)
    for _name, labels in result:
        labels.sort(key=_MODEL_ORDER.index)
    return result


def _text_file_names(sources: Sequence[Source]) -> dict[int, str]:
    """One file name per source with text: its own file name, or ``<slug>.txt`` when taken or unsafe."""
    names: dict[int, str] = {}
    used: set[str] = set()
    for source in sources:
        if not source.text:
            continue
        name = Path(source.file_name).name if source.file_name else ""
        if not name or name in used or name in {".", ".."}:
            name = f"{source.slug}.txt"
        used.add(name)
        names[source.pk] = name
    return names


# Of a release, only what is published: a curated record approved, a child row of one.
_PUBLISHED_PARENT = {"archive.passage": "source", "archive.personname": "person", "archive.unitalias": "unit",
                     "archive.locationalias": "location"}


def _published_rows(model: type[models.Model], queryset: models.QuerySet) -> models.QuerySet:
    label = model._meta.label_lower
    if issubclass(model, Curated):
        return queryset.filter(status=Status.APPROVED)
    if label in _PUBLISHED_PARENT:
        return queryset.filter(**{f"{_PUBLISHED_PARENT[label]}__status": Status.APPROVED})
    if label == "archive.curatornote":
        return queryset.none()  # the curators' working notes are not published
    return queryset


def _records(model: type[models.Model], using: str, file_names: dict[int, str], published: bool = False
             ) -> list[dict[str, Any]]:
    """``model``'s rows as fixture records, in a number of queries that does not grow with the rows."""
    # Derived fields are left out: the load derives them again (`archive.fiction`; a citation's
    # search key is folded on save, and a NULL one is folded by the search itself).
    skipped = set(_ACCOUNT_FIELDS) | {"fictional", "folded"} | ({"text", "length"} if model is Source else set())
    local = [f for f in model._meta.local_fields if not f.primary_key and f.name not in skipped]
    relations = [f.name for f in local if f.is_relation]
    # Natural keys of related rows are read through joins, not one query per row.
    deeper = [f"{f.name}__source" for f in local if f.is_relation and f.related_model is Passage]
    queryset = model._default_manager.db_manager(using).select_related(*relations, *deeper)
    # A joined source is read for its natural key only: its text, loaded once per row, would hold a
    # copy of the whole source in memory for each of its passages.
    texts = [f"{name}__text" for name in relations if model._meta.get_field(name).related_model is Source] + [
        f"{name}__text" for name in deeper]
    if texts:
        queryset = queryset.defer(*texts)
    names = {f.name for f in model._meta.fields}
    if model is Passage:
        queryset = queryset.order_by("source__slug", "seq")
    elif "slug" in names:
        queryset = queryset.order_by("slug")
    else:
        queryset = queryset.order_by(*[f for f in ("person", "unit", "location", "model") if f in names], "pk")
    if published:
        queryset = _published_rows(model, queryset)
    objects = _parents_first(model, list(queryset))
    rows: list[dict[str, Any]] = serializers.serialize(
        "python", objects, fields=[f.name for f in local], use_natural_foreign_keys=True,
        use_natural_primary_keys=True,
    )
    for m2m in model._meta.local_many_to_many:
        through = m2m.remote_field.through
        assert through is not None  # Django sets it for every many-to-many field
        own = m2m.m2m_field_name()
        other = m2m.m2m_reverse_field_name()
        linked: dict[Any, list[list[Any]]] = {}
        links = through._default_manager.db_manager(using).select_related(other).order_by(f"{other}__pk")
        if published and isinstance(m2m.related_model, type) and issubclass(m2m.related_model, Curated):
            links = links.filter(**{f"{other}__status": Status.APPROVED})
        for link in links:
            linked.setdefault(getattr(link, f"{own}_id"), []).append(list(getattr(link, other).natural_key()))
        for obj, row in zip(objects, rows, strict=True):
            row["fields"][m2m.name] = sorted(linked.get(obj.pk, []))
    for obj, row in zip(objects, rows, strict=True):
        fields = row["fields"]
        for name in _ACCOUNT_FIELDS:
            if name in names:
                fields[name] = None
        if model is Source and obj.pk in file_names:
            fields["file_name"] = file_names[obj.pk]
    return rows


def _parents_first(model: type[models.Model], objects: list[Any]) -> list[Any]:
    """``objects`` (in key order) with every record after the records of its own kind it points at.

    `load_collection` resolves a key only to a row stored or earlier in the
    files, so a unit's parent or an event's ``follows`` must come first. A
    cycle cannot be written in any order that loads: it is refused (ExportError).
    """
    links = [f.attname for f in model._meta.local_fields if f.is_relation and f.related_model is model]
    if not links:
        return objects
    by_pk = {obj.pk: obj for obj in objects}

    def targets(obj: Any) -> list[Any]:
        return [by_pk[pk] for pk in (getattr(obj, name) for name in links) if pk in by_pk]

    done: set[Any] = set()
    ordered: list[Any] = []
    for start in objects:
        if start.pk in done:
            continue
        path = [start]
        stack = [targets(start)]
        while stack:
            if not stack[-1]:
                stack.pop()
                obj = path.pop()
                done.add(obj.pk)
                ordered.append(obj)
                continue
            target = stack[-1].pop(0)
            if target.pk in done:
                continue
            if target in path:
                cycle = [*path[path.index(target):], target]
                raise ExportError(
                    _("%(model)s point at each other in a cycle (%(cycle)s): no order of the file loads them, "
                      "so nothing was written. Break the cycle first.")
                    % {"model": model._meta.verbose_name_plural,
                       "cycle": " → ".join(str(getattr(o, "slug", o.pk)) for o in cycle)}
                )
            path.append(target)
            stack.append(targets(target))
    return ordered


@dataclass
class ExportReport:
    directory: Path
    files: list[str] = field(default_factory=list)
    records: int = 0
    texts: int = 0
    # Rows of ``backup/``, what `restore` loads into an empty database.
    rows: int = 0


def _write_tree(target: Path, using: str, shipped: Path | None, *, published: bool = False) -> ExportReport:
    report = ExportReport(target)
    sources = Source.objects.using(using).order_by("slug")
    if published:
        sources = sources.filter(status=Status.APPROVED)
    sources = list(sources)
    file_names = _text_file_names(sources)
    text_dir = target / SOURCES_DIR
    text_dir.mkdir()
    for source in sources:
        if source.pk in file_names:
            # Byte-exact: the text is the decoded file, so encoding it gives the file back.
            (text_dir / file_names[source.pk]).write_bytes(source.text.encode("utf-8"))
            report.texts += 1
    shipped_names = {path.name for path in fixture_files(shipped)} if shipped is not None else set()
    for name, labels in layout(shipped):
        rows: list[dict[str, Any]] = []
        for label in labels:
            rows.extend(_records(apps.get_model(label), using, file_names, published))
        if not rows and shipped_names and name not in shipped_names:
            continue  # an empty file the shipped collection does not have either
        (target / name).write_text(
            json.dumps(rows, cls=_ExactEncoder, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        report.files.append(name)
        report.records += len(rows)
    if not published:
        report.rows = write_backup(target / BACKUP_DIR, using=using, text_files=file_names)
    return report


class ExportError(ValueError):
    """The export cannot be written where asked; nothing was changed."""


def _looks_like_export(directory: Path) -> bool:
    """Only an empty directory or a previous export is replaced, never anything else."""
    for entry in directory.iterdir():
        if entry.is_dir() and entry.name in (SOURCES_DIR, BACKUP_DIR):
            if any(not child.is_file() for child in entry.iterdir()):
                return False
        elif not (entry.is_file() and entry.match(FIXTURE_GLOB)):
            return False
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 with RENAME_EXCHANGE); False where unsupported."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(error, os.strerror(error), str(b))


def _put_in_place(staging: Path, target: Path) -> None:
    if not target.exists():
        staging.rename(target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging)  # it now holds the previous export
        return
    # Without an atomic exchange, the window between the two renames is as short as it can be.
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def write_published(target: Path, *, using: str = "default") -> ExportReport:
    """Write what the archive publishes, in the export's layout (no backup/), into the new directory ``target``.

    A release's collection: loaded by `load_collection --dir`, it gives the published archive.
    """
    target.mkdir()
    shipped_dir = Path(settings.BASE_DIR) / "fixtures"
    return _write_tree(target, using, shipped_dir if shipped_dir.is_dir() else None, published=True)


def export_collection(directory: str | Path, *, using: str = "default", shipped: str | Path | None = None
                      ) -> ExportReport:
    """Export the archive into ``directory``, replacing it whole or not at all.

    ``shipped`` is the collection whose layout to follow (default: the
    project's ``fixtures/``). Refuses (ExportError) to replace anything but
    an empty directory or a previous export.
    """
    target = Path(directory).resolve()
    if target.exists() and not target.is_dir():
        raise ExportError(_("%(dir)s exists and is not a directory; nothing was written.") % {"dir": target})
    if target.is_dir() and not _looks_like_export(target):
        raise ExportError(
            _("%(dir)s holds files that are not an export (NN_name.json and sources/); nothing was written.")
            % {"dir": target}
        )
    shipped_dir = Path(shipped) if shipped is not None else Path(settings.BASE_DIR) / "fixtures"
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        # One transaction, so that the files show one state of the database.
        with transaction.atomic(using=using):
            report = _write_tree(staging, using, shipped_dir if shipped_dir.is_dir() else None)
        os.chmod(staging, 0o755)
        _put_in_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    report.directory = target
    return report
