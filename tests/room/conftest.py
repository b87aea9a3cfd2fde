"""The reading room's tests read the shipped collection (`collection`, tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def shipped(collection: None) -> None:
    """The shipped collection, for one test."""
