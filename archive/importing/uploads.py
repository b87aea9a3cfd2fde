"""Where an uploaded spreadsheet waits between its preview and its confirmation.

django-import-export keeps the uploaded file between the two steps of an
import and names it in a hidden field of the confirm form; its default
storage reads, then deletes, whatever file of the posted name lies in the
system's temp folder. Here the file lives in a folder of the project's own
(`IMPORT_UPLOAD_DIR`, or a private folder of this user inside the temp
folder, created 0700 and refused if someone else owns it), under a random
name of 32 hex digits; the confirm form carries that name signed for the
user and the model it was uploaded for (`sign`, `unsign`), so that nothing
outside the folder can be named and no one can confirm another's upload.
An upload never confirmed is removed after UPLOAD_MAX_AGE.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import signing
from import_export.tmp_storages import BaseStorage

# How long an upload waits for its confirmation.
UPLOAD_MAX_AGE = 24 * 60 * 60
_NAME = re.compile(r"[0-9a-f]{32}")
_SALT = "archive.importing.uploads"


class UploadRefused(Exception):
    """A name that this storage did not make, or a folder it cannot trust."""


def upload_dir() -> Path:
    """The folder of waiting uploads, made private to this process's user."""
    configured = getattr(settings, "IMPORT_UPLOAD_DIR", "")
    folder = Path(configured) if configured else Path(tempfile.gettempdir()) / f"archive-import-uploads-{os.getuid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = folder.lstat()
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        raise UploadRefused(f"{folder} is not a folder of this user's own; uploads are not kept there.")
    if stat.S_IMODE(status.st_mode) & 0o077:
        folder.chmod(0o700)
    return folder


def _remove_stale(folder: Path) -> None:
    limit = time.time() - UPLOAD_MAX_AGE
    for entry in folder.iterdir():
        try:
            if _NAME.fullmatch(entry.name) and entry.lstat().st_mtime < limit:
                entry.unlink()
        except OSError:
            continue


class SignedUploadStorage(BaseStorage):
    """django-import-export's temporary storage, confined to `upload_dir()` and to names it made."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.name is not None and not _NAME.fullmatch(str(self.name)):
            raise UploadRefused("this upload was not made by the archive")

    def path(self) -> Path:
        if self.name is None:
            raise UploadRefused("no upload is named")
        return upload_dir() / self.name

    def save(self, data: bytes | str) -> None:
        folder = upload_dir()
        _remove_stale(folder)
        self.name = secrets.token_hex(16)
        payload = data.encode(self.encoding or "utf-8") if isinstance(data, str) else data
        # O_EXCL: a file that is already there, or a link planted in its place, is never written through.
        descriptor = os.open(folder / self.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)

    def read(self) -> Any:
        descriptor = os.open(self.path(), os.O_RDONLY | os.O_NOFOLLOW)
        if "b" in self.read_mode:
            with os.fdopen(descriptor, "rb") as handle:
                return handle.read()
        with os.fdopen(descriptor, "r", encoding=self.encoding) as handle:
            return handle.read()

    def remove(self) -> None:
        self.path().unlink(missing_ok=True)


def sign(name: str, *, user_id: Any, model: str) -> str:
    """The name of an upload as the confirm form carries it: only its uploader can confirm it, for that model."""
    return signing.dumps({"name": name, "user": str(user_id), "model": model}, salt=_SALT)


def unsign(token: str, *, user_id: Any, model: str) -> str | None:
    """The upload's name, or None when the token was not signed for this user and model, or has expired."""
    try:
        value = signing.loads(token, salt=_SALT, max_age=UPLOAD_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(value, dict) or value.get("user") != str(user_id) or value.get("model") != model:
        return None
    name = value.get("name")
    return name if isinstance(name, str) and _NAME.fullmatch(name) else None
