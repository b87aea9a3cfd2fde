"""Fixtures of the service tests.

The tests read the API hundreds of times as one anonymous client: the
throttle counts in a store of this test alone, not in the host's shared one,
where every other run on the machine adds to the same address's count.
(Passwords hash fast in every test, tests/conftest.py.)
"""

from __future__ import annotations

from typing import Any

import pytest


def private_throttle_store(settings: Any, name: str) -> None:
    settings.THROTTLE_TABLE = ""  # counted in the cache below instead
    settings.CACHES = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": name},
    }


@pytest.fixture(autouse=True)
def _private_throttle(settings: Any, request: pytest.FixtureRequest) -> None:
    private_throttle_store(settings, request.node.nodeid)
