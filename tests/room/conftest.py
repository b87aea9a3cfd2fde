"""The reading room's tests read the shipped collection, loaded once per module and rolled back after."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.shipped import collection_loaded


@pytest.fixture(scope="module")
def collection(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock(), collection_loaded():
        yield


@pytest.fixture
def shipped(collection: None, db: Any) -> None:
    """The shipped collection, for one test."""
