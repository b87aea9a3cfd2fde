"""The response cache: a stored page is served only while the data it was built from is unchanged.

These tests commit (transaction=True), since on PostgreSQL a transaction that
has written cannot tell its generation and stores nothing.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection, connections, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from archive.models import DocumentVersion, Location, Person, PersonName
from tests.factories import approved, publish_change

# The response cache is what these tests watch, so they go through the views (`without_stored_answers`).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("without_stored_answers")]

PERSONS = "/api/v1/persons/"


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    caches["api"].clear()
    caches["default"].clear()


def _person(slug: str, name: str) -> Person:
    return approved(Person(slug=slug, name=name))


def _built(path: str) -> bytes:
    """The response as the view builds it, the cache aside."""
    with override_settings(API_CACHE_SECONDS=0):
        return bytes(_get(path).content)


def _get(path: str, **headers: Any) -> Any:
    return Client().get(path, **headers)


def test_a_repeated_request_is_answered_from_the_cache_with_one_query() -> None:
    _person("tang-shengzhi", "唐生智")
    first = _get(PERSONS)
    with CaptureQueriesContext(connection) as captured:
        again = _get(PERSONS)
    assert again.status_code == 200
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    assert again["Content-Type"] == first["Content-Type"]
    assert len(captured) == 1, [query["sql"] for query in captured]  # the tags' versions, nothing else


def _saved(person: Person) -> None:
    PersonName.objects.create(person=person, name="唐孟潇")


def _raw_then_announced(person: Person) -> None:
    """A write that sends no signal says so, as the bulk paths (COPY, merges) do."""
    connection.cursor().execute("UPDATE archive_person SET name = %s WHERE id = %s", ["孟潇", person.pk])
    DocumentVersion.objects.bump_everything()


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(_saved, id="save"),
        pytest.param(lambda p: publish_change(p, name="唐孟潇"), id="approved-revision"),
        pytest.param(_raw_then_announced, id="raw-sql-and-bump"),
    ],
)
def test_a_write_makes_the_next_request_read_the_new_data(write: Any) -> None:
    person = _person("tang-shengzhi", "唐生智")
    before = _get(PERSONS).content
    assert _get(PERSONS).content == before  # stored
    write(person)
    after = _get(PERSONS).content
    assert after != before
    assert after == _built(PERSONS)


def test_a_new_record_and_a_deleted_one_show_at_once() -> None:
    _person("tang-shengzhi", "唐生智")
    assert _get(PERSONS).json()["count"] == 1
    other = _person("song-xilian", "宋希濂")
    assert _get(PERSONS).json()["count"] == 2
    other.delete()
    assert _get(PERSONS).json()["count"] == 1


def test_a_cached_answer_is_what_building_it_gives(settings: Any) -> None:
    """Format, language, host and query string are all part of what is stored under."""
    _person("tang-shengzhi", "唐生智")
    _person("song-xilian", "宋希濂")
    approved(Location(slug="xiaguan", name="下关", kind="district", latitude=32.09, longitude=118.73))
    settings.ALLOWED_HOSTS = ["testserver", "archive.example.org"]
    requests = [
        (PERSONS, {}),
        (PERSONS + "?format=csv", {}),
        (PERSONS, {"HTTP_ACCEPT": "text/csv"}),
        (PERSONS, {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}),
        (PERSONS, {"HTTP_HOST": "archive.example.org"}),
        (PERSONS + "?page_size=1", {}),
        ("/api/v1/locations/?format=geojson", {}),
        ("/api/v1/persons/tang-shengzhi/", {}),
    ]
    warm = [_get(path, **headers) for path, headers in requests]
    cached = [_get(path, **headers) for path, headers in requests]
    settings.API_CACHE_SECONDS = 0
    built = [_get(path, **headers) for path, headers in requests]
    for (path, headers), a, b, c in zip(requests, warm, cached, built, strict=True):
        assert a.status_code == b.status_code == c.status_code == 200, (path, headers)
        assert a.content == b.content == c.content, (path, headers)
        assert b["Content-Type"] == c["Content-Type"]
    # These variants really differ, so a key shared between them would have been caught.
    distinct = [0, 1, 4, 5, 6, 7]
    assert len({built[index].content for index in distinct}) == len(distinct)


def test_a_cached_page_answers_a_conditional_request_with_304() -> None:
    _person("tang-shengzhi", "唐生智")
    etag = _get(PERSONS)["ETag"]
    assert _get(PERSONS)["ETag"] == etag  # stored
    assert _get(PERSONS, HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_an_error_is_not_stored() -> None:
    assert _get("/api/v1/persons/tang-shengzhi/").status_code == 404
    assert len(caches["api"]._cache) == 0  # type: ignore[attr-defined]
    _person("tang-shengzhi", "唐生智")
    assert _get("/api/v1/persons/tang-shengzhi/").status_code == 200


def test_nothing_is_stored_when_the_cache_is_off(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    _person("tang-shengzhi", "唐生智")
    # Not the default size: a page as first shown is stored whole (`archive.api.stored`) and read in one statement.
    page = f"{PERSONS}?page_size=10"
    _get(page)
    with CaptureQueriesContext(connection) as captured:
        assert _get(page).status_code == 200
    assert len(captured) > 1
    assert len(caches["api"]._cache) == 0  # type: ignore[attr-defined]


def test_a_commit_by_another_connection_is_seen() -> None:
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("an in-memory SQLite database has one connection")
    person = _person("tang-shengzhi", "唐生智")
    assert "唐生智" in _get(PERSONS).content.decode()

    def rename() -> None:
        with transaction.atomic():
            PersonName.objects.create(person=person, name="唐孟潇")
        connections.close_all()

    thread = threading.Thread(target=rename)
    thread.start()
    thread.join()
    assert "唐孟潇" in _get(PERSONS).content.decode()
