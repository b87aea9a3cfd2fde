"""`import_source` reads only a regular file, and only up to its limit, as the attacks were made.

`/dev/zero` once ended in a MemoryError after gigabytes; a named pipe would
hold the command forever; a huge file was read whole. Each is now refused
before anything is read beyond the limit, with a message that names the file
and, for size, the limit and its setting; nothing is written.
"""

from __future__ import annotations

import os
import signal
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management.base import CommandError

from archive.importing.source_file import DEFAULT_MAX_BYTES
from archive.models import Source

from .helpers import import_file, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _never_hang() -> Iterator[None]:
    """A command that blocks on a pipe fails the test instead of hanging the run."""

    def timed_out(signum: int, frame: Any) -> None:
        raise TimeoutError("import_source blocked")

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _refused(path: Path | str, expected: str) -> str:
    before = snapshot()
    with pytest.raises(CommandError, match=expected) as info:
        import_file(Path(path), "hostile")
    assert snapshot() == before
    assert not Source.objects.filter(slug="hostile").exists()
    return str(info.value)


def test_dev_zero_is_refused_as_a_device_without_reading_it() -> None:
    tracemalloc.start()
    message = _refused("/dev/zero", "not a regular file but a device")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "/dev/zero" in message
    assert peak < 5 * 1024 * 1024


def test_a_link_to_dev_zero_is_refused_too(tmp_path: Path) -> None:
    link = tmp_path / "innocent.txt"
    link.symlink_to("/dev/zero")
    _refused(link, "not a regular file but a device")


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.txt"
    os.mkfifo(pipe)
    _refused(pipe, "not a regular file but a named pipe")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path, "not a regular file but a directory")


def test_a_file_over_the_default_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:  # sparse: the size is there, the disk is not used
        handle.truncate(DEFAULT_MAX_BYTES + 1)
    tracemalloc.start()
    message = _refused(huge, "more than the limit")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert f"{DEFAULT_MAX_BYTES:,} bytes" in message
    assert "SOURCE_IMPORT_MAX_BYTES" in message
    assert peak < 5 * 1024 * 1024


def test_the_limit_is_a_setting_and_a_file_at_the_limit_imports(tmp_path: Path, settings: Any) -> None:
    text = "十二月十二日傍晚五点，唐生智在南京下令撤退。\n".encode()
    settings.SOURCE_IMPORT_MAX_BYTES = len(text)
    over = tmp_path / "over.txt"
    over.write_bytes(text + b"x")
    message = _refused(over, "more than the limit")
    assert f"{len(text):,} bytes" in message
    exact = tmp_path / "exact.txt"
    exact.write_bytes(text)
    import_file(exact, "exact")
    assert Source.objects.get(slug="exact").text == text.decode()


def test_a_missing_file_is_refused_naming_it(tmp_path: Path) -> None:
    _refused(tmp_path / "missing.txt", "missing.txt cannot be read")
