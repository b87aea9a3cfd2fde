"""The shipped collection, loaded once per module (`tests.shipped`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.shipped import collection_loaded, fixture_files


@pytest.fixture(scope="module")
def collection(django_db_setup: None, django_db_blocker: object) -> Iterator[None]:
    names = [path.name for path in fixture_files()]
    assert names[:6] == [
        "01_sources.json",
        "02_people.json",
        "03_units.json",
        "04_places.json",
        "05_events.json",
        "06_citations.json",
    ]
    assert "08_notes.json" in names
    with django_db_blocker.unblock(), collection_loaded():  # type: ignore[attr-defined]
        yield
