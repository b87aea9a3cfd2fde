"""Fixtures of the API tests: one built archive per module and a client that speaks JSON.

Building the archive goes through the real review transitions and writes
history for every record, which is slow; the tests only read it, so each
module has it inside a transaction that is rolled back at the end, and each
test runs in a savepoint of its own inside it. It is built once per test
process; later modules get the same rows inserted again (`tests/built_once.py`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from archive.client_address import forget_all_clients
from tests.api.world import World, build_world
from tests.built_once import BuiltOnce

# Built through the review services once per test process; later modules get its rows inserted again.
_shared_world = BuiltOnce(build_world)


@pytest.fixture(autouse=True)
def _fresh_throttle() -> None:
    # The anonymous rate is counted across tests; each test starts with a clean count.
    forget_all_clients()


@pytest.fixture
def without_stored_answers(settings: Any) -> None:
    """Every request through the views: a plain detail or first-shown page whose stored document is current
    is otherwise answered before them (`archive.api.stored_answers`, tested in test_stored_answers)."""
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE
                           if name != "archive.api.stored_answers.StoredAnswerMiddleware"]


@pytest.fixture(scope="module")
def _module_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    with django_db_blocker.unblock(), transaction.atomic():
        yield _shared_world()
        transaction.set_rollback(True)


@pytest.fixture
def world(_module_world: World, db: Any) -> World:
    return _module_world


class ApiClient(Client):
    def json(self, path: str, expected: int = 200, **params: Any) -> Any:
        response = self.get(path, params)
        assert response.status_code == expected, (path, params, response.status_code, response.content[:500])
        return json.loads(response.content)


@pytest.fixture
def api() -> ApiClient:
    return ApiClient()
