"""Atomic under faults: an import killed or cut off half way leaves no part of it behind.

A source import is one transaction, so a process killed after writing its
passages (SIGKILL, no chance to clean up), or a connection the database
drops at that moment, must leave the database as it was. An export that
runs out of disk leaves the previous export whole. The killed and cut-off
imports run as real `import_source` subprocesses, paused at a known point
(tests/integrity/slow_import.py) so the fault lands mid-import every time.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management.base import CommandError
from django.db import OperationalError, connection

from archive.importing import bulk
from archive.models import Citation, Passage, Person, Source
from tests.database_url import postgres_url
from tests.factories import approved, cite
from tests.importing.helpers import run, snapshot

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("archive_source", "archive_passage", "archive_historicalsource", "archive_historicalpassage")
PASSAGES = 8_000


def _big_file(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    lines = (f"第{n}段：十二月十二日傍晚，部队经挹江门向下关码头撤退，𠀀 渡江。\n\n" for n in range(1, PASSAGES + 1))
    path.write_text("".join(lines), encoding="utf-8")
    return path


Counter = Callable[[], dict[str, int]]


@pytest.fixture
def subprocess_db(tmp_path: Path) -> Iterator[tuple[str, Counter]]:
    """A database URL a subprocess can reach, holding this test's schema, and a way to count its rows."""
    if connection.vendor == "sqlite":
        # The test database lives in memory; a file copy of it is what a second process can open.
        path = tmp_path / "archive.sqlite3"
        connection.ensure_connection()
        target = sqlite3.connect(path)
        connection.connection.backup(target)
        target.close()

        def count_sqlite() -> dict[str, int]:
            with sqlite3.connect(path) as db:  # opening rolls back a hot journal, as any next user would
                return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}

        yield f"sqlite:///{path}", count_sqlite
        return
    url = postgres_url(connection.settings_dict)

    def count_postgres() -> dict[str, int]:
        with connection.cursor() as cursor:
            result = {}
            for table in TABLES:
                cursor.execute(f"SELECT count(*) FROM {table}")
                result[table] = cursor.fetchone()[0]
            return result

    yield url, count_postgres


def _start_paused_import(url: str, path: Path, resume: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "DATABASE_URL": url, "RESUME_FILE": str(resume), "DEBUG": "1",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "x")}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integrity.slow_import", str(path), "--slug", "big", "--title", "大文件",
         "--kind", "history", "--language", "zh-Hans"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _wait_until_written(process: subprocess.Popen[str], timeout: float = 60) -> list[str]:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("WRITTEN"):
        process.kill()
        _out, err = process.communicate()
        pytest.fail(f"the import did not reach its passages: {line!r} {err[-2000:]}")
    return line.split()


@pytest.mark.django_db(transaction=True)
def test_import_killed_half_way_leaves_nothing(tmp_path: Path, subprocess_db: tuple[str, Counter]) -> None:
    url, counts = subprocess_db
    before = counts()
    process = _start_paused_import(url, _big_file(tmp_path), tmp_path / "resume")
    _word, _pid, written = _wait_until_written(process)
    assert int(written) == PASSAGES  # every passage is in the open transaction
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert counts() == before


@pytest.mark.django_db(transaction=True)
def test_connection_dropped_by_the_server_mid_import_leaves_nothing(
    tmp_path: Path, subprocess_db: tuple[str, Counter]
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: pg_terminate_backend cuts a client's connection; SQLite has no server")
    url, counts = subprocess_db
    before = counts()
    resume = tmp_path / "resume"
    process = _start_paused_import(url, _big_file(tmp_path), resume)
    _word, pid, _written = _wait_until_written(process)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [int(pid)])
        assert cursor.fetchone()[0] is True
    resume.touch()
    _out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    assert "terminat" in err.lower() or "connection" in err.lower(), err[-2000:]
    assert counts() == before


@pytest.mark.django_db
def test_operational_error_half_way_through_the_bulk_write_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memoir.txt"
    path.write_text("".join(f"第{n}段。\n\n" for n in range(1, 5001)), encoding="utf-8")
    before = snapshot()
    real = bulk.record_history

    def lost_connection(model: type, objs: Any, **kwargs: Any) -> int:
        if model is Passage:
            # The passage rows are written, in the open transaction; then the link drops.
            assert len(objs) == 5000 and Passage.objects.filter(pk__in=[o.pk for o in objs[:100]]).count() == 100
            raise OperationalError("server closed the connection unexpectedly")
        return real(model, objs, **kwargs)

    monkeypatch.setattr(bulk, "record_history", lost_connection)
    with pytest.raises(OperationalError):
        run("import_source", str(path), "--slug", "memoir", "--title", "回忆", "--kind", "memoir",
            "--language", "zh-Hans")
    assert snapshot() == before


@pytest.mark.django_db
def test_operational_error_during_a_replace_keeps_the_old_text_and_citations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import archive.importing.source_text as source_text

    old = tmp_path / "v1.txt"
    old.write_text("唐生智离开司令部。\n\n部队向挹江门撤退。\n", encoding="utf-8")
    run("import_source", str(old), "--slug", "hist", "--title", "史", "--kind", "history", "--language", "zh-Hans")
    tang = approved(Person(slug="tang", name="唐生智", side="chinese"))
    cite(Passage.objects.get(source__slug="hist", seq=2), "挹江门", person=tang)
    new = tmp_path / "v2.txt"
    new.write_text("序。\n\n唐生智离开司令部。\n\n部队向挹江门撤退。\n", encoding="utf-8")
    before = snapshot()
    real = source_text.record_history

    def fails_on_citations(model: type, objs: Any, **kwargs: Any) -> int:
        if model is Citation:
            raise OperationalError("could not write to the database file")
        return real(model, objs, **kwargs)

    monkeypatch.setattr(source_text, "record_history", fails_on_citations)
    with pytest.raises(OperationalError):
        run("import_source", str(new), "--slug", "hist", "--title", "史", "--kind", "history",
            "--language", "zh-Hans", "--replace")
    assert snapshot() == before
    assert Source.objects.get(slug="hist").text == old.read_text(encoding="utf-8")


@pytest.mark.django_db
def test_disk_full_during_an_export_leaves_the_previous_export_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tang = approved(Person(slug="tang", name="唐生智", side="chinese", description="卫戍司令长官"))
    text = tmp_path / "v1.txt"
    text.write_text("唐生智离开司令部。\n", encoding="utf-8")
    run("import_source", str(text), "--slug", "hist", "--title", "史", "--kind", "history", "--language", "zh-Hans")
    target = tmp_path / "export"
    run("export_collection", str(target))
    previous = {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    Person.objects.filter(pk=tang.pk).update(description="changed after the export")

    real_write_text = Path.write_text
    writes = {"n": 0}

    def disk_fills_up(self: Path, *args: Any, **kwargs: Any) -> int:
        writes["n"] += 1
        if writes["n"] == 3:
            # Half a file reaches the disk, then the disk is full.
            with open(self, "w", encoding="utf-8") as handle:
                handle.write("[\n {\"model\": ")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", disk_fills_up)
    with pytest.raises(CommandError, match="No space left on device"):
        run("export_collection", str(target))
    monkeypatch.undo()
    assert {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()} == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export", "v1.txt"]
