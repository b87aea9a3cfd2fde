"""A bulk load brings PostgreSQL's planner statistics up to date for the tables it wrote, and only those."""

from __future__ import annotations

import pytest
from django.db import connection

from archive.db.statistics import refresh_statistics
from archive.importing.fixture_prepare import Record, written_models
from archive.models import Event, Passage, Person, Source, Unit

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="planner statistics are PostgreSQL's"),
]


def _estimated_rows(model: type) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [model._meta.db_table])
        return float(cursor.fetchone()[0])


def test_the_tables_written_are_analyzed_inside_the_transaction_and_no_others() -> None:
    refresh_statistics(written=[Person, Unit])  # both measured empty, as between tests
    Person.objects.bulk_create(Person(slug=f"p{n}", name=f"人{n}") for n in range(300))
    Unit.objects.bulk_create(Unit(slug=f"u{n}", name=f"部{n}") for n in range(200))
    assert _estimated_rows(Person) == 0
    refresh_statistics(written=[Person])
    assert _estimated_rows(Person) == 300  # the transaction's own rows count
    assert _estimated_rows(Unit) == 0  # not written by this load: left alone


def test_a_file_of_sources_writes_their_passages_too() -> None:
    def record(model: type | None) -> Record:
        return Record(file=None, index=0, label="", model=model, fields={})  # type: ignore[arg-type]

    assert written_models([record(Source), record(None)]) == {Source, Passage}
    assert written_models([record(Event)]) == {Event}
