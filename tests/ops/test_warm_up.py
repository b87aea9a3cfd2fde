"""The warm-up a worker runs while it loads (`config.warm_up`): no database, nothing left to the first request."""

from __future__ import annotations

import logging
import threading

import pytest
from django.urls import get_resolver

from archive.search import keys
from config import warm_up


def test_the_warm_up_loads_the_lazy_parts_without_the_database(caplog: pytest.LogCaptureFixture) -> None:
    # Outside django_db: a query would raise, and the step that ran it would log its failure.
    keys.compute_name_keys.cache_clear()
    with caplog.at_level(logging.WARNING):
        warm_up.warm_up()
    assert [record.getMessage() for record in caplog.records] == []
    assert get_resolver()._populated
    assert keys.compute_name_keys.cache_info().currsize > 0


def test_a_failing_step_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise RuntimeError("tables missing")

    monkeypatch.setattr(warm_up, "_catalogs", broken)
    keys.compute_name_keys.cache_clear()
    warm_up.warm_up()
    assert "warm-up step failed" in caplog.text
    assert keys.compute_name_keys.cache_info().currsize > 0


def test_the_search_snapshot_is_read_in_a_thread_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import archive.search

    built: list[tuple[list[str], str]] = []
    monkeypatch.setattr(archive.search, "snapshots",
                        lambda types: built.append((list(types), threading.current_thread().name)))
    monkeypatch.setattr(warm_up.connections["default"], "vendor", "postgresql")
    thread = warm_up.build_snapshots()
    assert thread is not None
    thread.join(timeout=10)
    assert built == [(list(archive.search.TYPES), "archive-warm-search")]
    monkeypatch.setenv("WARM_SEARCH", "0")
    assert warm_up.build_snapshots() is None


def test_a_snapshot_that_cannot_be_read_at_start_is_logged(monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    import archive.search

    def down(types: object) -> None:
        raise RuntimeError("database down")

    monkeypatch.setattr(archive.search, "snapshots", down)
    monkeypatch.setattr(warm_up.connections["default"], "vendor", "postgresql")
    thread = warm_up.build_snapshots()
    assert thread is not None
    thread.join(timeout=10)
    assert "search snapshot not built at start" in caplog.text
