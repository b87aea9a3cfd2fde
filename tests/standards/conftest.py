"""The shipped collection, loaded once per module inside a transaction rolled back afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.shipped import collection_loaded


@pytest.fixture(scope="module")
def _collection(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    from archive.search import snapshot

    with django_db_blocker.unblock(), collection_loaded():
        snapshot.clear()
        yield
    snapshot.clear()


@pytest.fixture
def collection(_collection: None, db: Any) -> None:
    return None
