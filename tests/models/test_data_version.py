"""The data version token (`archive.data_version`): unchanged while the data is, changed by every write."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from archive import data_version
from archive.models import Person, Status

pytestmark = pytest.mark.django_db(transaction=True)


def _person(slug: str = "tang-shengzhi") -> Person:
    return Person.objects.create(slug=slug, name="唐生智", status=Status.DRAFT)


def test_the_token_is_stable_while_nothing_is_written() -> None:
    _person()
    first = data_version.current()
    Person.objects.count()
    assert first is not None
    assert data_version.current() == first


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda: _person("song-xilian"), id="create"),
        pytest.param(lambda: Person.objects.update(name="唐孟潇"), id="update"),
        pytest.param(lambda: Person.objects.all().delete(), id="delete"),
        pytest.param(lambda: Person.objects.bulk_create([Person(slug="x", name="x")]), id="bulk-create"),
        pytest.param(lambda: connection.cursor().execute("UPDATE archive_person SET name = 'x'"), id="raw-sql"),
    ],
)
def test_every_kind_of_write_changes_the_token(write: object) -> None:
    _person()
    before = data_version.current()
    write()  # type: ignore[operator]
    after = data_version.current()
    assert after is not None and after != before


def test_inside_a_transaction_the_generation_is_unknown() -> None:
    with transaction.atomic():
        assert data_version.current() is None
        _person()
        assert data_version.current() is None
    assert data_version.current() is not None


def test_a_commit_on_another_connection_changes_the_token() -> None:
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("an in-memory SQLite database is one connection")
    _person()
    before = data_version.current()

    def write() -> None:
        Person.objects.update(name="唐孟潇")
        connections.close_all()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert data_version.current() != before


def test_a_new_connection_does_not_repeat_an_old_token() -> None:
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("an in-memory SQLite database is never closed")
    _person()
    before = data_version.current()
    connection.close()
    after = data_version.current()
    assert after is not None and (after != before or connection.vendor == "postgresql")
