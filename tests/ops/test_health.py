"""`/health/`: 200 when the archive can serve, 503 with the reason when not, never a 500.

A replica that is down is reported but keeps the answer at 200 ("degraded"),
because reads fall back to the primary; taking every web process out of the
load balancer for it would turn lost capacity into an outage.
"""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from archive import health
from archive.request_log import JsonFormatter
from config import routers

pytestmark = pytest.mark.django_db

SECRET_DSN = "postgres://archive:hunter2@db.internal:5432/archive"


def _get(client: Client) -> tuple[int, dict[str, Any]]:
    response = client.get("/health/")
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    return response.status_code, response.json()


def test_healthy(client: Client) -> None:
    status, body = _get(client)
    assert status == 200
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["migrations"] == {"ok": True, "pending": 0, "names": []}
    assert body["checks"]["replicas"] == {}


def test_only_safe_methods(client: Client) -> None:
    assert client.post("/health/").status_code == 405


def test_unapplied_migrations_give_503(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    future = SimpleNamespace(app_label="archive", name="0999_future")
    monkeypatch.setattr(MigrationExecutor, "migration_plan", lambda self, targets: [(future, False)])
    status, body = _get(client)
    assert status == 503
    assert body["status"] == "error"
    assert body["checks"]["migrations"] == {"ok": False, "pending": 1, "names": ["archive.0999_future"]}


def test_pending_migrations_are_read_from_the_real_plan() -> None:
    # The test database is fully migrated: the real plan is empty.
    assert health.pending_migrations() == []


def test_database_down_gives_503_without_secrets(
    client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError(f"could not connect to {SECRET_DSN}")

    monkeypatch.setattr(connection, "cursor", refuse)
    with caplog.at_level(logging.ERROR, logger="archive.health"):
        status, body = _get(client)
    assert status == 503
    assert body["checks"]["database"] == {"ok": False, "error": "OperationalError"}
    assert body["checks"]["migrations"] == {"ok": False, "error": "DatabaseUnavailable"}
    assert "hunter2" not in json.dumps(body) and "db.internal" not in json.dumps(body)
    # The operator finds the cause in the log, with the password masked.
    [record] = [r for r in caplog.records if r.name == "archive.health"]
    logged = JsonFormatter().format(record)
    assert "db.internal" in logged and "hunter2" not in logged


def test_a_failing_check_never_gives_500(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug in a check")

    monkeypatch.setattr(MigrationExecutor, "__init__", broken)
    status, body = _get(client)
    assert status == 503 and body["checks"]["migrations"] == {"ok": False, "error": "RuntimeError"}

    monkeypatch.setattr(health, "check_replicas", broken)
    status, body = _get(client)
    assert status == 503 and body["checks"]["internal"] == {"ok": False, "error": "RuntimeError"}


class FakeReplica:
    """A replica connection that refuses, or answers pg_is_in_recovery() with ``in_recovery``."""

    vendor = "postgresql"

    def __init__(self, *, up: bool, in_recovery: bool = True) -> None:
        self.up = up
        self.in_recovery = in_recovery

    def close_if_health_check_failed(self) -> None:
        pass

    def cursor(self) -> Any:
        if not self.up:
            raise OperationalError(f"connection to {SECRET_DSN} refused")
        replica = self

        class Cursor:
            def __enter__(self) -> Cursor:
                return self

            def __exit__(self, *exc: object) -> None:
                pass

            def execute(self, sql: str) -> None:
                assert sql == "SELECT pg_is_in_recovery()"

            def fetchone(self) -> tuple[bool]:
                return (replica.in_recovery,)

        return Cursor()


@pytest.fixture
def replicas(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeReplica]:
    fakes: dict[str, FakeReplica] = {}
    real = health.connections

    class Connections:
        def __getitem__(self, alias: str) -> Any:
            return fakes[alias] if alias in fakes else real[alias]

    monkeypatch.setattr(health, "connections", Connections())
    monkeypatch.setattr(routers, "replica_aliases", lambda: list(fakes))
    routers.reset_replica_state()
    yield fakes
    routers.reset_replica_state()


def test_replicas_that_answer_are_reported(client: Client, replicas: dict[str, FakeReplica]) -> None:
    replicas["replica1"] = FakeReplica(up=True)
    status, body = _get(client)
    assert status == 200 and body["status"] == "ok"
    assert body["checks"]["replicas"]["replica1"]["ok"] is True
    assert body["checks"]["replicas"]["replica1"]["in_recovery"] is True


def test_a_replica_down_is_reported_and_the_answer_stays_200(client: Client, replicas: dict[str, FakeReplica]) -> None:
    replicas["replica1"] = FakeReplica(up=True)
    replicas["replica2"] = FakeReplica(up=False)
    status, body = _get(client)
    assert status == 200
    assert body["status"] == "degraded"
    assert body["checks"]["replicas"]["replica1"]["ok"] is True
    assert body["checks"]["replicas"]["replica2"] == {"ok": False, "error": "OperationalError"}
    assert "hunter2" not in json.dumps(body)
    # The router hears of it too and skips the replica for the next reads.
    assert routers.is_marked_down("replica2") and not routers.is_marked_down("replica1")


def test_a_replica_that_is_not_a_standby_is_not_trusted(client: Client, replicas: dict[str, FakeReplica]) -> None:
    replicas["replica1"] = FakeReplica(up=True, in_recovery=False)
    status, body = _get(client)
    assert status == 200 and body["status"] == "degraded"
    assert body["checks"]["replicas"]["replica1"] == {"ok": False, "error": "NotAStandby"}
    assert routers.is_marked_down("replica1")
