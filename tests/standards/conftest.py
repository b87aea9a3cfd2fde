"""The shipped collection, loaded once per module inside a transaction rolled back afterwards."""

from __future__ import annotations

from tests.shipped import _collection, collection  # noqa: F401  (fixtures)
