"""Fixtures of the API tests: a built archive and a client that speaks JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.api.world import World, build_world


@pytest.fixture(autouse=True)
def _fresh_throttle() -> None:
    # The anonymous rate is counted in the cache; each test starts with a clean count.
    cache.clear()


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


class ApiClient(Client):
    def json(self, path: str, expected: int = 200, **params: Any) -> Any:
        response = self.get(path, params)
        assert response.status_code == expected, (path, params, response.status_code, response.content[:500])
        return json.loads(response.content)


@pytest.fixture
def api() -> ApiClient:
    return ApiClient()
