"""The part of an export that restores the archive whole: every row, by its id, and the accounts' roles.

The collection files of an export (`archive.importing.export`) are what a
curator reads and what `load_collection` merges into any archive; they leave
out what a collection does not carry: ids, authorship, pending and decided
revisions, the history tables. ``backup/`` beside them carries all of it, so
that `restore` (`archive.importing.restore`) rebuilds into an empty database
the same archive, history and review state included:

- ``accounts.jsonl``: one account a line (user name, names, e-mail, flags,
  groups and permissions); never a password.
- ``<app>.<model>.jsonl``: one row a line, every stored column by attribute
  name, ids kept; an account is named by its user name and a content type by
  its natural key, so the rows do not depend on the ids of either. A source's
  text is not repeated: ``text_file`` names its file in ``sources/``; binary
  content (a release's files) is in base64.
- ``manifest.json``: the files in the order they load (what a row points at
  loads before it), with their row counts and SHA-256.

Derived tables (stored API documents, document versions, the search index,
stored name keys) are left out: the restore builds them again.

Every file is written in a fixed order from the database alone, so an export
of a restored archive is byte-identical to the export it was restored from.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import models

__all__ = ["ACCOUNTS_FILE", "BACKUP_DIR", "DERIVED", "MANIFEST", "backed_up_models", "write_backup"]

BACKUP_DIR = "backup"
MANIFEST = "manifest.json"
ACCOUNTS_FILE = "accounts.jsonl"
FORMAT = 1
# Built again from the rows by the restore (and by the readers), never restored.
DERIVED = frozenset({
    "archive.documentversion",
    "archive.storeddocument",
    "archive.storednamekeys",
    "archive.passagesearchentry",
})
ACCOUNT_FIELDS = ("username", "first_name", "last_name", "email", "is_active", "is_staff", "is_superuser",
                  "date_joined", "last_login")
_BATCH = 2000


def _encode(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()  # every microsecond, unlike DjangoJSONEncoder
    return str(value)


def line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=_encode) + "\n"


def _depends_on(model: type[models.Model]) -> set[type[models.Model]]:
    return {f.related_model for f in model._meta.concrete_fields
            if f.is_relation and isinstance(f.related_model, type) and f.related_model is not model}


def backed_up_models() -> list[type[models.Model]]:
    """The archive's models a restore needs, each after the models its rows point at (then by label)."""
    chosen = sorted(
        (m for m in apps.get_app_config("archive").get_models(include_auto_created=True)
         if m._meta.label_lower not in DERIVED and m._meta.managed),
        key=lambda m: m._meta.label_lower,
    )
    ordered: list[type[models.Model]] = []
    waiting = list(chosen)
    while waiting:
        ready = [m for m in waiting if not (_depends_on(m) & set(waiting))]
        if not ready:  # the archive's tables point at each other only through nullable self-links
            raise RuntimeError(f"the archive's models point at each other in a cycle: {waiting}")
        ordered.extend(ready)
        waiting = [m for m in waiting if m not in ready]
    return ordered


def self_links(model: type[models.Model]) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields if f.is_relation and f.related_model is model]


def _rows(model: type[models.Model], using: str, text_files: dict[int, str],
          usernames: dict[int, str], content_types: dict[int, list[str]]) -> Iterator[dict[str, Any]]:
    fields = model._meta.concrete_fields
    user_model = get_user_model()
    queryset = model._base_manager.using(using).order_by("pk")
    if model._meta.label_lower == "archive.source":
        queryset = queryset.defer("text")
    for obj in queryset.iterator(chunk_size=_BATCH):
        row: dict[str, Any] = {}
        for f in fields:
            if model._meta.label_lower == "archive.source" and f.name == "text":
                row["text_file"] = text_files.get(obj.pk)
                continue
            value = getattr(obj, f.attname)
            if f.is_relation and f.related_model is user_model and value is not None:
                value = usernames.get(value)
            elif f.is_relation and f.related_model is ContentType and value is not None:
                value = content_types[value]
            elif isinstance(f, models.BinaryField) and value is not None:
                value = base64.b64encode(bytes(value)).decode("ascii")
            row[f.attname] = value
        yield row


def _parents_first(rows: list[dict[str, Any]], links: list[str], pk_name: str) -> list[dict[str, Any]]:
    """Rows in id order, each after the rows of its own table it points at (the database refuses cycles)."""
    by_pk = {row[pk_name]: row for row in rows}
    done: set[Any] = set()
    ordered: list[dict[str, Any]] = []

    def visit(row: dict[str, Any], seen: set[Any]) -> None:
        stack = [row]
        while stack:
            current = stack[-1]
            parents = [by_pk[row_pk] for row_pk in (current[name] for name in links)
                       if row_pk in by_pk and row_pk not in done and row_pk not in seen]
            if parents:
                seen.add(parents[0][pk_name])
                stack.append(parents[0])
                continue
            stack.pop()
            if current[pk_name] not in done:
                done.add(current[pk_name])
                ordered.append(current)

    for row in rows:
        if row[pk_name] not in done:
            visit(row, {row[pk_name]})
    return ordered


def _write_lines(path: Path, rows: Iterable[dict[str, Any]]) -> tuple[int, str]:
    digest = hashlib.sha256()
    count = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for row in rows:
            text = line(row)
            out.write(text)
            digest.update(text.encode("utf-8"))
            count += 1
    return count, digest.hexdigest()


def _accounts(using: str) -> Iterator[dict[str, Any]]:
    user_model = get_user_model()
    for user in user_model._default_manager.db_manager(using).order_by("username").prefetch_related(
        "groups", "user_permissions__content_type"
    ):
        row = {name: getattr(user, name) for name in ACCOUNT_FIELDS if hasattr(user, name)}
        row["groups"] = sorted(group.name for group in user.groups.all())
        row["permissions"] = sorted(f"{p.content_type.app_label}.{p.codename}" for p in user.user_permissions.all())
        yield row


def write_backup(directory: Path, *, using: str, text_files: dict[int, str]) -> int:
    """Write ``backup/`` into ``directory`` (inside the export's transaction); the number of rows written."""
    directory.mkdir()
    user_model = get_user_model()
    usernames = dict(user_model._default_manager.db_manager(using).values_list("pk", "username"))
    content_types = {ct.pk: [ct.app_label, ct.model] for ct in ContentType.objects.db_manager(using).all()}
    files: list[dict[str, Any]] = []
    count, digest = _write_lines(directory / ACCOUNTS_FILE, _accounts(using))
    files.append({"file": ACCOUNTS_FILE, "model": "accounts", "rows": count, "sha256": digest})
    total = count
    for model in backed_up_models():
        rows: Iterable[dict[str, Any]] = _rows(model, using, text_files, usernames, content_types)
        links = self_links(model)
        if links:
            rows = _parents_first(list(rows), links, model._meta.pk.attname)
        name = f"{model._meta.label_lower}.jsonl"
        count, digest = _write_lines(directory / name, rows)
        files.append({"file": name, "model": model._meta.label_lower, "rows": count, "sha256": digest})
        total += count
    manifest = {"format": FORMAT, "files": files}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return total
