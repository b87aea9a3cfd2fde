"""Passage hits are counted exactly up to a threshold; beyond it the estimate is never below what was counted."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from archive import counting, search
from archive.search.index import ordered_walk, visible_entries
from tests.factories import source_with_text

from .conftest import World

postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")


@pytest.fixture
def many(world: World) -> int:
    search.reindex([source_with_text("\n".join(f"第{i}次经挹江门撤退。" for i in range(30)), slug="many")])
    return visible_entries("挹江门", fiction="exclude").count()


def test_counts_are_exact_up_to_the_threshold(many: int) -> None:
    entries = visible_entries("挹江门", fiction="exclude")
    assert counting.count_or_estimate(entries, many) == (many, True)
    assert counting.count_or_estimate(entries, many + 10) == (many, True)


def test_beyond_the_threshold_the_estimate_is_at_least_what_was_counted(many: int, monkeypatch: Any) -> None:
    entries = visible_entries("挹江门", fiction="exclude")
    monkeypatch.setattr(counting, "planner_estimate", lambda queryset: 1)  # a planner far too low
    count, exact = counting.count_or_estimate(entries, many - 5)
    if connection.vendor == "postgresql":
        assert (count >= many - 4, exact) == (True, False)
    else:
        assert (count, exact) == (many, True)  # other databases count exactly


def test_a_common_term_gives_the_same_page_as_a_rare_one(many: int, monkeypatch: Any) -> None:
    exact = search.search("挹江门", limit=25)
    monkeypatch.setattr(search.results, "EXACT_COUNT_UP_TO", 3)
    results = search.find("挹江门")
    assert results.count_exact is (connection.vendor != "postgresql")
    assert len(results) >= 4
    shown = min(len(results), 25)  # an estimate bounds the pages, as it does in the API
    assert results[:shown] == exact[:shown]


@postgres_only
def test_the_ordered_walk_puts_the_planner_settings_back(world: World) -> None:
    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW enable_bitmapscan")
            return cursor.fetchone()[0]

    with ordered_walk():
        assert setting() == "off"
    assert setting() == "on"


@postgres_only
def test_the_plan_of_a_common_term_walks_the_archive_order(many: int, monkeypatch: Any) -> None:
    monkeypatch.setattr(search.results, "EXACT_COUNT_UP_TO", 3)
    plan = search.explain("挹江门")
    assert "archive_pse_source_seq" in plan and "Seq Scan on archive_passagesearchentry" not in plan, plan
