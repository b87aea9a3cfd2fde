"""Nothing lost on the way: `load_collection`, `release` and `restore` killed half way leave the database as it was.

Each runs as a real subprocess (tests/integrity/paused_command.py) that stops
inside its transaction, after it has written rows, and is sent SIGKILL there:
no handler runs, no rollback is asked for. The database must hold exactly what
it held before.
"""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from archive.models import Location, Person
from tests.database_url import postgres_url
from tests.factories import approved, user
from tests.importing.helpers import small_collection

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def _tables() -> list[str]:
    archive = apps.get_app_config("archive").get_models(include_auto_created=True)
    return [*sorted(m._meta.db_table for m in archive), "auth_user", "auth_user_groups"]


def _database_for_a_subprocess(tmp_path: Path) -> tuple[str, Callable[[], dict[str, int]]]:
    """A URL a second process can open, holding what this test committed, and a count of every archive table."""
    tables = _tables()
    if connection.vendor == "sqlite":
        path = tmp_path / "archive.sqlite3"  # the test database lives in memory; a file copy is shareable
        connection.ensure_connection()
        target = sqlite3.connect(path)
        connection.connection.backup(target)
        target.close()

        def count_sqlite() -> dict[str, int]:
            with sqlite3.connect(path) as db:  # opening rolls back a hot journal, as any next user would
                return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}

        return f"sqlite:///{path}", count_sqlite
    url = postgres_url(connection.settings_dict)

    def count_postgres() -> dict[str, int]:
        with connection.cursor() as cursor:
            found = {}
            for table in tables:
                cursor.execute(f"SELECT count(*) FROM {table}")
                found[table] = cursor.fetchone()[0]
            return found

    return url, count_postgres


def _kill_when_paused(url: str, hook: str, *command: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1", "SECRET_KEY": os.environ.get("SECRET_KEY", "x")}
    process = subprocess.Popen([sys.executable, "-m", "tests.integrity.paused_command", hook, *command], cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 120)
    line = process.stdout.readline() if ready else ""
    if line.strip() != "PAUSED":
        process.kill()
        _out, err = process.communicate()
        pytest.fail(f"{command[0]} did not reach {hook}: {line!r} {err[-2000:]}")
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_load_collection_killed_half_way_leaves_the_database_unchanged(tmp_path: Path) -> None:
    collection = small_collection(tmp_path / "collection")
    url, counts = _database_for_a_subprocess(tmp_path)
    before = counts()
    # Paused after the first file's rows and their history are written, before the next file.
    _kill_when_paused(url, "archive.importing.collection:_record_load_history", "load_collection",
                      "--dir", str(collection))
    assert counts() == before


def _published() -> None:
    # A transactional test starts without the role groups; a superuser reviews.
    author, reviewer = user("killed-author"), user("killed-reviewer", is_superuser=True)
    approved(Person(slug="tang", name="唐生智", side="chinese"), author=author, reviewer=reviewer)
    approved(Location(slug="nanjing", name="南京", kind="city"), author=author, reviewer=reviewer)


def test_release_killed_half_way_leaves_no_release(tmp_path: Path) -> None:
    _published()
    url, counts = _database_for_a_subprocess(tmp_path)
    before = counts()
    # Paused after the release and all its files are written, before the commit.
    _kill_when_paused(url, "archive.importing.releases:_store", "release", "--by", "operator",
                      "--base-url", "http://localhost")
    assert counts() == before
    assert before["archive_release"] == 0


def test_restore_killed_half_way_leaves_the_database_empty(tmp_path: Path) -> None:
    _published()
    call_command("export_collection", str(tmp_path / "export"), verbosity=0)
    for model in (Person, Location):
        model.objects.all().delete()
        model.history.all().delete()
    url, counts = _database_for_a_subprocess(tmp_path)
    before = counts()
    # Paused after every row and account is written, before the search index is rebuilt and the commit.
    _kill_when_paused(url, "archive.importing.restore:refresh_statistics", "restore", str(tmp_path / "export"))
    assert counts() == before
