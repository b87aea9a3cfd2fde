"""`load_collection` of the shipped collection on an empty database, as CI and `make run` run it.

The command's load is the expensive part (tens of seconds), so it runs once for the module, in a
transaction rolled back at the module's end; each test runs in a savepoint of its own.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from archive.importing.fixture_check import fixture_files
from archive.models import Source

from .helpers import run, snapshot

SHIPPED = Path(settings.BASE_DIR) / "fixtures"

pytestmark = pytest.mark.skipif(not fixture_files(SHIPPED), reason="the shipped collection has no fixture files")


@pytest.fixture(scope="module")
def loaded_copy(django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[Path]:
    """A copy of the shipped collection (so that it cannot change between two loads), loaded once."""
    shipped = tmp_path_factory.mktemp("shipped")
    for path in fixture_files(SHIPPED):
        shutil.copyfile(path, shipped / path.name)
    shutil.copytree(SHIPPED / "sources", shipped / "sources")
    with django_db_blocker.unblock(), transaction.atomic():
        run("load_collection", "--dir", str(shipped))
        yield shipped
        transaction.set_rollback(True)


@pytest.mark.django_db
def test_the_shipped_collection_loads_twice(loaded_copy: Path) -> None:
    assert Source.objects.exists()
    for source in Source.objects.exclude(text=""):
        assert source.sha256 and (loaded_copy / "sources" / source.file_name).read_bytes() == source.text.encode()
    before = snapshot()
    run("load_collection", "--dir", str(loaded_copy))
    assert snapshot() == before


@pytest.mark.django_db
def test_load_collection_then_audit_exits_0(loaded_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    call_command("audit", "--format", "json")  # raises CommandError(returncode=1) on an error-level finding
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["error"] == 0
    assert payload["summary"]["warning"] == 0
    assert payload["summary"]["explained"] > 0
