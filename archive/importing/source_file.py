"""A source text file, read within bounds and decoded, or refused with a reason.

The archive must be able to prove that every passage is a slice of the file
it came from, so the file is read as bytes, decoded as strict UTF-8 with no
newline translation (a BOM stays a character), hashed and split by
`archive.text.segment.split_passages`. A file that is not text is refused
before anything is written.

What is read is bounded: only a regular file (not a directory, a device such
as /dev/zero, a named pipe that would block the reader, or a socket) and at
most `SOURCE_IMPORT_MAX_BYTES` of it (default 50 MB), so that a mistaken or
hostile path costs a message, not the server's memory. The file is checked
before it is opened and again once open, in case it was swapped between.
"""

from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext as _

from archive.text.segment import Segment, split_passages

# A text may hold a stray control character; a file in which more than this
# share of the characters are control characters is not text.
CONTROL_SHARE = 0.1
_TEXT_CONTROLS = frozenset("\t\n\r\f\v")
DEFAULT_MAX_BYTES = 50 * 1024 * 1024


class SourceImportError(ValueError):
    """A source that cannot be imported as asked; nothing was written."""


class SourceFileError(SourceImportError):
    """A file that is not importable text; the message names the file."""


@dataclass(frozen=True)
class SourceFile:
    """A decoded source file: ``text`` is exactly ``data`` decoded."""

    file_name: str
    data: bytes
    text: str
    sha256: str
    segments: tuple[Segment, ...]


def decode_source(data: bytes, *, name: str) -> SourceFile:
    """Decode and split ``data``, or raise SourceFileError naming ``name``."""
    if b"\x00" in data:
        raise SourceFileError(
            _("%(file)s is a binary file, not text: it holds a NUL byte at byte offset %(offset)s.")
            % {"file": name, "offset": data.index(b"\x00")}
        )
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise SourceFileError(
            _("%(file)s is not valid UTF-8: byte offset %(offset)s (%(reason)s).")
            % {"file": name, "offset": exc.start, "reason": exc.reason}
        ) from exc
    controls = sum(1 for ch in text if ch not in _TEXT_CONTROLS and unicodedata.category(ch) == "Cc")
    if text and controls > CONTROL_SHARE * len(text):
        raise SourceFileError(
            _("%(file)s is a binary file, not text: %(count)s of its %(length)s characters are control characters.")
            % {"file": name, "count": controls, "length": len(text)}
        )
    segments = tuple(split_passages(text))
    if not segments:
        raise SourceFileError(_("%(file)s is empty: it holds no line of text.") % {"file": name})
    return SourceFile(
        file_name=name, data=data, text=text, sha256=hashlib.sha256(data).hexdigest(), segments=segments
    )


def max_bytes() -> int:
    return int(getattr(settings, "SOURCE_IMPORT_MAX_BYTES", DEFAULT_MAX_BYTES))


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _("a directory")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return _("a device")
    if stat.S_ISFIFO(mode):
        return _("a named pipe")
    return _("a socket or another special file")


def _check(path: Path, status: os.stat_result, limit: int) -> None:
    kind = _not_regular(status.st_mode)
    if kind is not None:
        raise SourceFileError(
            _("%(file)s is not a regular file but %(kind)s; only a text file can be imported.")
            % {"file": path, "kind": kind}
        )
    if status.st_size > limit:
        raise SourceFileError(_too_large(path, status.st_size, limit))


def _too_large(path: Path, size: int, limit: int) -> str:
    return _(
        "%(file)s holds %(size)s bytes, more than the limit of %(limit)s bytes (setting SOURCE_IMPORT_MAX_BYTES)."
    ) % {"file": path, "size": f"{size:,}", "limit": f"{limit:,}"}


def read_source_file(path: str | Path, *, limit: int | None = None) -> SourceFile:
    """Read ``path`` as bytes, at most ``limit`` of them, and decode it; the file name kept is its basename."""
    path = Path(path)
    limit = max_bytes() if limit is None else limit
    try:
        _check(path, os.stat(path), limit)
        # Non-blocking, so that a named pipe put in the file's place is never waited on.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(descriptor, "rb") as handle:
            _check(path, os.fstat(handle.fileno()), limit)
            data = handle.read(limit + 1)
    except OSError as exc:
        raise SourceFileError(_("%(file)s cannot be read: %(error)s") % {"file": path, "error": exc.strerror}) from exc
    if len(data) > limit:  # it grew while it was read
        raise SourceFileError(_too_large(path, len(data), limit))
    return decode_source(data, name=path.name)
