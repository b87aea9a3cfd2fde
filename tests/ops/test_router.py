"""The router's decisions, in-process: which requests may read from a replica, and fallbacks.

The real-replica behaviour is proved in test_replicas.py; here the replicas are
stand-ins, so that each rule (safe API request, transaction, pinning, a replica
that is down and the few seconds it is skipped) is shown on its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, OperationalError, transaction
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from config import routers

router = routers.ReplicaRouter()


class FakeConnection:
    """Just enough of a database wrapper for replica_usable()."""

    def __init__(self, up: bool) -> None:
        self.up = up
        self.connects = 0

    def close_if_health_check_failed(self) -> None:
        pass

    def ensure_connection(self) -> None:
        self.connects += 1
        if not self.up:
            raise OperationalError("connection refused")

    def close(self) -> None:
        pass


@pytest.fixture
def replicas(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeConnection]:
    fakes = {"replica1": FakeConnection(up=True), "replica2": FakeConnection(up=True)}
    real = routers.connections

    class Connections:
        def __getitem__(self, alias: str) -> Any:
            return fakes[alias] if alias in fakes else real[alias]

    monkeypatch.setattr(routers, "connections", Connections())
    monkeypatch.setattr(routers, "replica_aliases", lambda: list(fakes))
    routers.reset_replica_state()
    yield fakes
    routers.reset_replica_state()


def _decide(method: str, path: str, reads: int = 1) -> list[str]:
    """The aliases the router picks for ``reads`` reads made while serving a request."""
    chosen: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        chosen.extend(router.db_for_read(Group) for _ in range(reads))
        return HttpResponse()

    routers.ReplicaReadMiddleware(view)(RequestFactory().generic(method, path))
    return chosen


def test_without_replicas_everything_uses_the_primary() -> None:
    assert routers.replica_aliases() == []
    assert _decide("GET", "/api/v1/events/") == [DEFAULT_DB_ALIAS]
    assert router.db_for_read(Group) == DEFAULT_DB_ALIAS
    assert router.db_for_write(Group) == DEFAULT_DB_ALIAS


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_safe_api_requests_read_from_a_replica(replicas: dict[str, FakeConnection], method: str) -> None:
    [alias] = _decide(method, "/api/v1/events/")
    assert alias in replicas


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/api/v1/events/"), ("DELETE", "/api/v1/events/x/"), ("GET", "/admin/"), ("GET", "/health/")],
)
def test_other_requests_read_from_the_primary(replicas: dict[str, FakeConnection], method: str, path: str) -> None:
    assert _decide(method, path) == [DEFAULT_DB_ALIAS]


def test_reads_outside_a_request_use_the_primary(replicas: dict[str, FakeConnection]) -> None:
    assert router.db_for_read(Group) == DEFAULT_DB_ALIAS


def test_writes_always_go_to_the_primary(replicas: dict[str, FakeConnection]) -> None:
    written: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        written.append(router.db_for_write(Group, instance=Group(name="x")))
        return HttpResponse()

    routers.ReplicaReadMiddleware(view)(RequestFactory().get("/api/v1/events/"))
    assert written == [DEFAULT_DB_ALIAS]


@pytest.mark.django_db(transaction=True)
def test_reads_inside_a_transaction_use_the_primary(replicas: dict[str, FakeConnection]) -> None:
    chosen: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        chosen.append(router.db_for_read(Group))
        with transaction.atomic():
            chosen.append(router.db_for_read(Group))
        return HttpResponse()

    routers.ReplicaReadMiddleware(view)(RequestFactory().get("/api/v1/events/"))
    assert chosen[0] in replicas
    assert chosen[1] == DEFAULT_DB_ALIAS


def test_a_request_keeps_the_replica_it_chose(replicas: dict[str, FakeConnection]) -> None:
    for _ in range(10):
        chosen = _decide("GET", "/api/v1/events/", reads=5)
        assert len(set(chosen)) == 1 and chosen[0] in replicas


def test_a_replica_that_is_down_is_skipped(replicas: dict[str, FakeConnection]) -> None:
    replicas["replica2"].up = False
    for _ in range(10):
        assert _decide("GET", "/api/v1/events/") == ["replica1"]
    assert routers.is_marked_down("replica2")


def test_when_every_replica_is_down_the_primary_serves(replicas: dict[str, FakeConnection]) -> None:
    replicas["replica1"].up = replicas["replica2"].up = False
    assert _decide("GET", "/api/v1/events/") == [DEFAULT_DB_ALIAS]


def test_a_failed_replica_is_not_retried_for_a_few_seconds(
    replicas: dict[str, FakeConnection], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(routers.time, "monotonic", lambda: clock[0])
    replica = replicas["replica1"]
    replica.up = False
    assert routers.replica_usable("replica1") is False
    assert routers.replica_usable("replica1") is False
    assert replica.connects == 1  # the second answer came from the cache
    replica.up = True
    clock[0] += routers.retry_seconds() + 0.1
    assert routers.replica_usable("replica1") is True
    assert replica.connects == 2
    assert not routers.is_marked_down("replica1")


def test_replicas_are_never_migrated() -> None:
    assert router.allow_migrate("replica1", "archive") is False
    assert router.allow_migrate(DEFAULT_DB_ALIAS, "archive") is None
