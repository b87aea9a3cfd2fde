"""Restore an export's ``backup/`` into an empty database: the same archive, all or nothing.

The rows go in by id, as they were, without the models' `save()` and signals:
no history is written (the history is restored itself), no review rule is
applied again (the review state is restored as it was) and no timestamp is
touched. Everything is checked first (the manifest, each file's SHA-256, each
source text against its record's SHA-256) and loaded in one transaction whose
foreign keys and triggers are checked before it commits; any problem names its
file and line and leaves the database as it was.

Accounts are matched by user name: a missing one is created without a usable
password (an operator sets one with `changepassword`), and every account of
the backup gets its flags, groups and permissions back.

A database that already holds records is refused unless the caller asks to
replace them (``replace=True``), which deletes the archive's rows first, in
the same transaction.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connections, models, transaction
from django.utils.translation import gettext as _

from archive import search as search_index
from archive.db.statistics import refresh_statistics
from archive.models import DocumentVersion

from .backup import ACCOUNT_FIELDS, ACCOUNTS_FILE, BACKUP_DIR, DERIVED, FORMAT, MANIFEST, backed_up_models
from .fixture_check import SOURCES_DIR

__all__ = ["RestoreError", "RestoreReport", "restore"]

_BATCH = 1000


class RestoreError(ValueError):
    """The backup cannot be restored here; the database is as it was."""


@dataclass
class RestoreReport:
    rows: int = 0
    accounts: int = 0
    accounts_created: int = 0


def _read_manifest(backup: Path) -> list[dict[str, Any]]:
    path = backup / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise RestoreError(_("%(path)s is missing: %(dir)s is not an export with a backup (made by "
                             "export_collection); nothing was restored.") % {"path": path, "dir": backup.parent}
                           ) from exc
    except (OSError, ValueError) as exc:
        raise RestoreError(_("%(path)s cannot be read (%(error)s); nothing was restored.")
                           % {"path": path, "error": exc}) from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RestoreError(_("%(path)s is not a backup of format %(format)s; nothing was restored.")
                           % {"path": path, "format": FORMAT})
    files = manifest.get("files")
    well_formed = isinstance(files, list) and all(
        isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in ("file", "model", "sha256"))
        and "/" not in entry["file"] and "\\" not in entry["file"] and not entry["file"].startswith(".")
        for entry in files
    )
    if not well_formed:
        raise RestoreError(_("%(path)s does not list the backup's files as an export writes them; nothing was "
                             "restored.") % {"path": path})
    assert isinstance(files, list)
    known = {m._meta.label_lower for m in backed_up_models()} | {"accounts"}
    for entry in files:
        if entry.get("model") not in known:
            raise RestoreError(_("%(path)s names %(model)s, which this archive does not have (a backup of another "
                                 "version of it?); nothing was restored.")
                               % {"path": path, "model": entry.get("model")})
        data = (backup / entry["file"]).read_bytes() if (backup / entry["file"]).is_file() else None
        if data is None or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise RestoreError(_("%(path)s is missing or not the file the manifest names (its SHA-256 differs); "
                                 "nothing was restored.") % {"path": backup / entry["file"]})
    return files


def _lines(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, text in enumerate(lines, start=1):
            try:
                rows.append(json.loads(text))
            except ValueError as exc:
                raise RestoreError(_("%(path)s, line %(line)s: %(error)s; nothing was restored.")
                                   % {"path": path, "line": number, "error": exc}) from exc
    return rows


def present(using: str) -> dict[str, int]:
    """The archive's tables that hold rows, with their counts (accounts do not count)."""
    found = {}
    for model in backed_up_models():
        count = model._base_manager.using(using).count()
        if count:
            found[model._meta.label_lower] = count
    return found


def _empty_archive(using: str) -> None:
    """Delete every row a restore writes, and the derived rows built from them."""
    connection = connections[using]
    derived = [apps.get_model(label) for label in sorted(DERIVED)]
    with connection.cursor() as cursor:
        for model in [*derived, *reversed(backed_up_models())]:
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")


def _restore_accounts(rows: list[dict[str, Any]], using: str, report: RestoreReport) -> dict[str, int]:
    user_model = get_user_model()
    manager = user_model._default_manager.db_manager(using)
    groups = {g.name: g for g in Group.objects.using(using).all()}
    permissions = {
        f"{p.content_type.app_label}.{p.codename}": p
        for p in Permission.objects.using(using).select_related("content_type")
    }
    for row in rows:
        user = manager.filter(username=row["username"]).first()
        if user is None:
            user = user_model(username=row["username"])
            user.set_unusable_password()
            report.accounts_created += 1
        for name in ACCOUNT_FIELDS:
            field = user_model._meta.get_field(name)
            if name in row and name != "username" and isinstance(field, models.Field):
                setattr(user, name, field.to_python(row[name]))
        user.save(using=using)
        missing = [name for name in [*row["groups"], *row["permissions"]] if name not in groups | permissions]
        if missing:
            raise RestoreError(_("%(file)s: account %(user)s has roles this database lacks (%(missing)s); run "
                                 "migrate first. Nothing was restored.")
                               % {"file": ACCOUNTS_FILE, "user": row["username"], "missing": ", ".join(missing)})
        user.groups.set([groups[name] for name in row["groups"]])
        user.user_permissions.set([permissions[name] for name in row["permissions"]])
        report.accounts += 1
    return dict(manager.values_list("username", "pk"))


def _object(model: type[models.Model], row: dict[str, Any], where: str, texts: dict[str, str],
            user_ids: dict[str, int], content_types: dict[tuple[str, str], int]) -> models.Model:
    values: dict[str, Any] = {}
    user_model = get_user_model()
    for field in model._meta.concrete_fields:
        if model._meta.label_lower == "archive.source" and field.name == "text":
            name = row.get("text_file")
            values["text"] = texts[name] if name else ""
            continue
        if field.attname not in row:
            raise RestoreError(_("%(where)s: the row has no %(field)s; nothing was restored.")
                               % {"where": where, "field": field.attname})
        value = row[field.attname]
        if value is not None and field.is_relation and field.related_model is user_model:
            if value not in user_ids:
                raise RestoreError(_("%(where)s: %(field)s names the account %(user)s, which is not in %(file)s; "
                                     "nothing was restored.")
                                   % {"where": where, "field": field.name, "user": value, "file": ACCOUNTS_FILE})
            value = user_ids[value]
        elif value is not None and field.is_relation and field.related_model is ContentType:
            value = content_types.get(tuple(value))
            if value is None:
                raise RestoreError(_("%(where)s: %(field)s names a kind of record this archive does not have; "
                                     "nothing was restored.") % {"where": where, "field": field.name})
        elif value is not None and isinstance(field, models.BinaryField):
            value = base64.b64decode(value)
        elif value is not None and not field.is_relation:
            value = field.to_python(value)
        values[field.attname] = value
    return model(**values)


def _texts(directory: Path, rows: list[dict[str, Any]], where: str) -> dict[str, str]:
    texts = {}
    for number, row in enumerate(rows, start=1):
        name = row.get("text_file")
        if not name:
            continue
        path = directory / SOURCES_DIR / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RestoreError(_("%(where)s, line %(line)s: the text %(path)s cannot be read (%(error)s); nothing "
                                 "was restored.") % {"where": where, "line": number, "path": path, "error": exc}
                               ) from exc
        if hashlib.sha256(data).hexdigest() != row.get("sha256"):
            raise RestoreError(_("%(path)s is not the text of source %(slug)s (its SHA-256 differs); nothing was "
                                 "restored.") % {"path": path, "slug": row.get("slug")})
        texts[name] = data.decode("utf-8")
    return texts


def _insert(model: type[models.Model], objects: list[models.Model], using: str) -> None:
    """Insert the rows as they are: what bulk_create derives on the way in (auto_now times, folded keys) is put back."""
    manager = model._base_manager.db_manager(using)
    names = [f.attname for f in model._meta.concrete_fields if not f.primary_key]
    kept = [{name: getattr(obj, name) for name in names} for obj in objects]
    manager.bulk_create(objects, batch_size=_BATCH)
    for obj, values in zip(objects, kept, strict=True):
        changed = {name: value for name, value in values.items() if getattr(obj, name) != value}
        if changed:
            manager.filter(pk=obj.pk).update(**changed)


def restore(directory: str | Path, *, using: str = "default", replace: bool = False) -> RestoreReport:
    """Restore the backup of the export in ``directory``; refuses a database that holds records unless ``replace``."""
    directory = Path(directory)
    backup = directory / BACKUP_DIR
    files = _read_manifest(backup)
    found = present(using)
    if found and not replace:
        records = [model for model in backed_up_models() if model._meta.label_lower in found
                   and not model._meta.auto_created and not model._meta.label_lower.startswith("archive.historical")]
        held = ", ".join(f"{found[m._meta.label_lower]} {m._meta.verbose_name_plural}" for m in records[:4])
        held = held or ", ".join(
            f"{count} rows of {label}" for label, count in list(found.items())[:4])
        raise RestoreError(
            _("The database already holds records (%(held)s): a restore into it would mix two archives, so nothing "
              "was restored. Restore into an empty database (a new one after migrate), or ask for the replacement "
              "of everything it holds with --replace.") % {"held": held}
        )
    if found and "archive.release" in found:
        raise RestoreError(_("The database holds releases, which are never deleted, so it cannot be replaced; "
                             "restore into an empty database (a new one after migrate). Nothing was restored."))
    report = RestoreReport()
    connection = connections[using]
    with transaction.atomic(using=using):
        if found:
            _empty_archive(using)
        content_types = {(ct.app_label, ct.model): ct.pk for ct in ContentType.objects.db_manager(using).all()}
        user_ids: dict[str, int] = {}
        written: list[type[models.Model]] = []
        for entry in files:
            path = backup / entry["file"]
            rows = _lines(path)
            model = apps.get_model(entry["model"]) if entry["model"] != "accounts" else None
            try:
                if model is None:
                    user_ids = _restore_accounts(rows, using, report)
                    continue
                texts = _texts(directory, rows, entry["file"]) if entry["model"] == "archive.source" else {}
            except (ValidationError, TypeError, KeyError, AttributeError) as exc:
                raise RestoreError(_("%(path)s: a row cannot be read (%(error)s); nothing was restored.")
                                   % {"path": path, "error": exc}) from exc
            objects = []
            for number, row in enumerate(rows, start=1):
                where = f"{path}, line {number}"
                try:
                    objects.append(_object(model, row, where, texts, user_ids, content_types))
                except (ValidationError, TypeError, ValueError, KeyError, AttributeError) as exc:
                    if isinstance(exc, RestoreError):
                        raise
                    raise RestoreError(_("%(where)s: the row cannot be read (%(error)s); nothing was restored.")
                                       % {"where": where, "error": exc}) from exc
            try:
                _insert(model, objects, using)
            except DatabaseError as exc:
                raise RestoreError(_("%(path)s: the database refused its rows (%(error)s); nothing was restored.")
                                   % {"path": path, "error": exc}) from exc
            written.append(model)
            report.rows += len(objects)
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), written):
                cursor.execute(sql)
        try:
            connection.check_constraints(table_names=[m._meta.db_table for m in written])
        except DatabaseError as exc:
            raise RestoreError(_("The backup in %(dir)s points at rows it does not hold (%(error)s); nothing was "
                                 "restored.") % {"dir": backup, "error": exc}) from exc
        refresh_statistics(using=using)
        search_index.rebuild(using=using)
        # Nothing a worker cached or stored before the restore may be served after it.
        DocumentVersion.objects.bump_everything(using=using)
    return report
