"""Counting without COUNT(*) over a huge table, and exports whose queries do not grow with rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.admin.base import EstimatedCountPaginator
from archive.importing.spreadsheets import RESOURCES
from archive.models import Passage
from tests.admin.helpers import source, world

pytestmark = pytest.mark.django_db


class Small(EstimatedCountPaginator):
    threshold = 3


def test_counts_are_exact_below_the_threshold() -> None:
    source()
    passages = Passage.objects.order_by("pk")
    assert EstimatedCountPaginator(passages, 50).count == passages.count()


def test_counts_are_capped_beyond_the_threshold() -> None:
    for _ in range(3):
        source()
    total = Passage.objects.count()
    assert total > 4
    with CaptureQueriesContext(connection) as captured:
        count = Small(Passage.objects.order_by("pk"), 2).count
    assert count >= 4
    sql = " ".join(query["sql"] for query in captured).upper()
    assert "LIMIT" in sql or "RELTUPLES" in sql
    filtered = Small(Passage.objects.filter(seq=1).order_by("pk"), 2).count
    assert filtered == 3
    # Beyond the threshold a filtered list is estimated (PostgreSQL) or capped, never counted in full.
    assert Small(Passage.objects.filter(seq__gte=1).order_by("pk"), 2).count >= 4


def test_export_queries_do_not_grow_with_rows() -> None:
    def queries() -> dict[str, int]:
        counts = {}
        for model, resource in RESOURCES.items():
            with CaptureQueriesContext(connection) as captured:
                exported = resource().export()
            assert len(exported) == model._default_manager.count()
            counts[model._meta.model_name] = len(captured)
        return counts

    world(2)
    small = queries()
    world(6)
    assert large_enough(8)
    assert queries() == small


def large_enough(rows: int) -> bool:
    return all(model._default_manager.count() >= rows for model in RESOURCES)
