"""Connections to PostgreSQL: an ended one is replaced without a query, and repeated statements are prepared."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import DataError, connection
from django.db.backends.base.base import BaseDatabaseWrapper

from archive.db.postgresql.base import server_spoke
from tests.database_url import postgres_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def persistent() -> Iterator[BaseDatabaseWrapper]:
    """A second connection to the test database, persistent and health-checked as in production."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the check reads a server's socket; SQLite has no server")
    wrapper = connection.copy()
    wrapper.settings_dict.update(CONN_MAX_AGE=60, CONN_HEALTH_CHECKS=True)
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


def _backend_pid(wrapper: BaseDatabaseWrapper) -> int:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _last_statement(pid: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        return str(cursor.fetchone()[0])


def test_a_live_connection_is_usable_and_the_check_sends_no_statement(persistent: BaseDatabaseWrapper) -> None:
    pid = _backend_pid(persistent)
    with persistent.cursor() as cursor:
        cursor.execute("SELECT 'the last statement this session ran'")
    assert persistent.is_usable()
    # Django's own check would have sent SELECT 1; the server saw nothing after the marker.
    assert "the last statement this session ran" in _last_statement(pid)


def test_a_connection_the_server_ended_is_closed_and_opened_again(persistent: BaseDatabaseWrapper) -> None:
    pid = _backend_pid(persistent)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 10
    while not server_spoke(persistent.connection.pgconn.socket) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not persistent.is_usable()
    # What Django does before a request's first query: the ended connection is replaced, not used.
    persistent.health_check_done = False
    persistent.close_if_health_check_failed()
    assert persistent.connection is None
    assert _backend_pid(persistent) != pid


def test_a_connection_left_in_a_failed_transaction_is_not_usable(persistent: BaseDatabaseWrapper) -> None:
    persistent.set_autocommit(False)
    with pytest.raises(DataError), persistent.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")
    assert not persistent.is_usable()
    persistent.rollback()
    assert persistent.is_usable()


def test_a_statement_run_five_times_is_prepared_and_planned_no_more(persistent: BaseDatabaseWrapper) -> None:
    statement = "SELECT count(*) FROM archive_source WHERE slug = %s"
    with persistent.cursor() as cursor:
        for attempt in range(6):
            cursor.execute(statement, [f"slug-{attempt}"])
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("archive_source" in text and "$1" in text for text in prepared), prepared


def _database_url() -> str:
    return postgres_url(connection.settings_dict)


def test_gunicorn_answers_the_first_request_after_the_server_ended_its_sessions(tmp_path: Path) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a server to end the sessions")
    from bench import load
    from bench.stages.api import gunicorn

    extra = {"CACHE_DIR": str(tmp_path / "cache"), "API_CACHE_SECONDS": "0", "WARM_SEARCH": "0"}
    with gunicorn("config.wsgi:application", _database_url(), 1, tmp_path / "gunicorn.log", extra) as port:
        assert load.get(port, "/api/v1/sources/")[0] == 200
        others = "datname = current_database() AND pid <> pg_backend_pid()"
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {others}")
            assert cursor.fetchone()[0] >= 1  # the worker's persistent connection
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                cursor.execute(f"SELECT count(*) FROM pg_stat_activity WHERE {others}")
                if cursor.fetchone()[0] == 0:
                    break
                time.sleep(0.05)
        # The worker's connection is closed on the server's side; it is replaced before use, not used for a 500.
        status, body = load.get(port, "/api/v1/sources/")
        assert status == 200, body[:300]
