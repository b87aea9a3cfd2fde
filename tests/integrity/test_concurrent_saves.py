"""Sixteen curators save at once through the admin: every save succeeds and is stored.

On SQLite a transaction that starts DEFERRED and writes later asks for the
write lock too late to wait for it, and most of sixteen simultaneous saves
used to end in a 500 "database is locked". Settings now make SQLite take the
lock at BEGIN (`transaction_mode: IMMEDIATE`, WAL, a busy timeout), so the
savers queue instead. On SQLite the race runs in a process of its own on a
database file (the test database lives in memory, shared in a way that does
not race like a file); on PostgreSQL it runs here, on the test database.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests.integrity.concurrent_saves_probe import ROOT, save_concurrently

CURATORS = 16


def _on_an_sqlite_file(tmp_path: Path, curators: int) -> dict[str, Any]:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    env = {
        **keep,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ENV_FILE": "",
        "DEBUG": "1",
        "SECRET_KEY": "concurrent-saves",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CACHE_DIR": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "integrity" / "concurrent_saves_probe.py"), str(curators), "--migrate"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.django_db(transaction=True)
def test_sixteen_curators_save_at_once_and_every_save_is_stored(tmp_path: Path) -> None:
    if connection.vendor == "sqlite":
        outcome = _on_an_sqlite_file(tmp_path, CURATORS)
        assert outcome["transaction_mode"] == "IMMEDIATE"
    else:
        outcome = save_concurrently(curators=CURATORS)
    assert outcome["errors"] == []
    assert outcome["statuses"] == {"302": CURATORS}
    assert outcome["stored"] == CURATORS
