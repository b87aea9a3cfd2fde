"""What CI runs on the shipped collection: `load_collection` on an empty database, then `audit`."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_load_collection_then_audit_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("load_collection")
    capsys.readouterr()
    call_command("audit", "--format", "json")  # raises CommandError(returncode=1) on an error-level finding
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["error"] == 0
    assert payload["summary"]["warning"] == 0
    assert payload["summary"]["explained"] > 0
