"""PostgreSQL only: the grams index is used, and a database without UTF-8 is reported."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import checks
from django.db import connection

from archive import search
from archive.models import Passage, PassageSearchEntry
from archive.models.search_index import database_encoding_problem
from archive.search.keys import gram_code
from archive.text.segment import sha256_text
from tests.factories import source_with_text

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")


def _plan_uses_index(plan: str) -> bool:
    return "archive_pse_grams_gin" in plan and "Seq Scan on archive_passagesearchentry" not in plan


@pytest.mark.parametrize("term", ["江", "撤退", "挹江门", "nanking"])
def test_the_grams_index_serves_terms_of_every_length(db: Any, term: str) -> None:
    search.reindex([source_with_text("部队向下关撤退，经挹江门出城，渡江北去。\nNanking")])
    with connection.cursor() as cursor:
        # A table this small is cheaper to scan; forbid scans to see that the index can serve the term.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        # Nor may it fetch the few rows source by source through the (source, seq) index.
        cursor.execute("SET LOCAL enable_nestloop = off")
    plan = search.explain(term)
    assert _plan_uses_index(plan), plan
    assert [hit.type for hit in search.search(term)] == ["passage"]


def test_the_planner_picks_the_index_for_a_rare_term_unprompted(db: Any) -> None:
    lines = [f"第{i}段：部队沿江布防，等待命令。" for i in range(20000)] + ["唯有这一段写着煤炭港。"]
    source = source_with_text("\n".join(lines), slug="many-lines")
    assert Passage.objects.filter(source=source).count() == len(lines)
    search.rebuild()
    plan = search.explain("煤炭港")
    assert _plan_uses_index(plan), plan
    assert [hit.title for hit in search.search("煤炭港")] == [f"{source.title} §{len(lines)}"]


def test_a_common_term_walks_the_reading_order_and_its_count_is_estimated(db: Any) -> None:
    lines = [f"第{i}段：部队沿江布防，等待命令。" for i in range(12000)] + ["唯有这一段写着煤炭港。"]
    source_with_text("\n".join(lines), slug="many-lines")
    search.rebuild()
    plan = search.explain("江")
    # Every passage matches: the page is read off the (source, seq) index, not sorted from all matches.
    assert "archive_pse_source_seq" in plan and "Sort" not in plan, plan
    common = search.find("江", types=["passage"])
    assert common.count_exact is False
    assert 0.8 * len(lines) <= len(common) <= 1.2 * len(lines)
    assert [hit.title for hit in common[:2]] == ["Title many-lines §1", "Title many-lines §2"]
    rare = search.find("煤炭港", types=["passage"])
    assert (len(rare), rare.count_exact) == (1, True)


def test_explain_analyze(db: Any) -> None:
    search.reindex([source_with_text("下关")])
    assert "actual time" in search.explain("下关", analyze=True)


def test_grams_are_written_with_the_entry(db: Any) -> None:
    source = source_with_text("蕪湖")
    search.reindex([source])
    with connection.cursor() as cursor:
        cursor.execute("SELECT folded, grams FROM archive_passagesearchentry")
        assert cursor.fetchall() == [("芜湖", [gram_code("芜"), gram_code("芜湖"), gram_code("湖")])]
    assert PassageSearchEntry.objects.get().text_sha256 == sha256_text("蕪湖")


@pytest.fixture
def ascii_database(django_db_blocker: Any) -> Any:
    """A second database created with SQL_ASCII, as `createdb` does on a cluster made with the C locale."""
    name = "archive_search_ascii"
    with django_db_blocker.unblock():
        admin = connection.copy()
        admin.settings_dict["NAME"] = "postgres"
        admin.connect()
        admin.connection.autocommit = True
        with admin.connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")
            cursor.execute(
                f"CREATE DATABASE {name} ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
            )
        other = connection.copy()
        other.settings_dict["NAME"] = name
        try:
            yield other
        finally:
            other.close()
            with admin.connection.cursor() as cursor:
                cursor.execute(f"DROP DATABASE IF EXISTS {name}")
            admin.close()


def test_a_database_without_utf8_is_reported(db: Any, ascii_database: Any) -> None:
    problem = database_encoding_problem(ascii_database)
    assert problem is not None and "SQL_ASCII" in problem and "UTF8" in problem
    assert database_encoding_problem(connection) is None


def test_the_search_refuses_a_database_without_utf8(db: Any, ascii_database: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(search.index, "connections", {"default": ascii_database})
    search.index._checked.clear()
    try:
        with pytest.raises(search.SearchBackendError, match="SQL_ASCII"):
            search.index.ensure_usable("default")
    finally:
        search.index._checked.clear()


def test_the_system_check_passes_on_a_utf8_database(db: Any) -> None:
    messages = [m for m in checks.run_checks(tags=[checks.Tags.database], databases=["default"])
                if m.id == "archive.W101"]
    assert messages == []


def test_a_long_lived_worker_plans_each_search_for_its_term(db: Any) -> None:
    """The search statements are prepared after five runs; PostgreSQL would then settle on a generic plan."""
    if not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding"):
        pytest.skip("statements are not prepared (DB_PREPARED_STATEMENTS off)")
    search.reindex([source_with_text("部队向下关撤退，经挹江门出城，渡江北去。\n挹江门外")])
    for _ in range(15):
        results = search.find("挹江门", types=["passage"])
        assert len(results) == 2 and len(results[:20]) == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements "
                       "WHERE statement LIKE %s", ["%archive_passagesearchentry%"])
        prepared = cursor.fetchall()
    assert prepared, "the search statements were prepared"
    assert all(generic == 0 and custom >= 1 for _statement, generic, custom in prepared), prepared
