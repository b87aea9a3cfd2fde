"""Load the shipped collection once per module, inside a transaction rolled back afterwards.

`loaddata` of the fixture files, in order: the same records `load_collection` loads, without its
bulk history rows (their COPY path is not what these tests are about).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from archive.db.statistics import refresh_statistics

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


@pytest.fixture(scope="module")
def collection(django_db_setup: None, django_db_blocker: object) -> Iterator[None]:
    files = sorted(str(path) for path in FIXTURES.glob("[0-9][0-9]_*.json"))
    names = [Path(f).name for f in files]
    assert names[:6] == [
        "01_sources.json",
        "02_people.json",
        "03_units.json",
        "04_places.json",
        "05_events.json",
        "06_citations.json",
    ]
    assert "08_notes.json" in names
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        for file in files:  # one at a time, with fresh statistics, as load_collection does
            call_command("loaddata", file, verbosity=0)
            refresh_statistics()
        yield
        transaction.set_rollback(True)
