"""The response cache holds one entry per question and never more bytes than its ceiling.

Written as the attack was made: hundreds of requests with junk parameters,
or with equivalent spellings of one value, once grew a worker by 200 MB.
These tests commit (transaction=True), as test_response_cache.py does, since
a transaction that has written stores nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client
from django.test.utils import override_settings

from archive.api.bounded_cache import BoundedMemoryCache, entry_size
from archive.client_address import forget_all_clients
from archive.dating import NANJING
from archive.models import Event, Person
from tests.factories import approved

pytestmark = pytest.mark.django_db(transaction=True)

CEILING = 256 * 1024


@pytest.fixture(autouse=True)
def _small_cache(settings: Any) -> Iterator[BoundedMemoryCache]:
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    forget_all_clients()
    api = {
        "BACKEND": "archive.api.bounded_cache.BoundedMemoryCache",
        "LOCATION": "api-bounds-test",
        "TIMEOUT": 600,
        "OPTIONS": {"MAX_ENTRIES": 100_000, "MAX_BYTES": CEILING},
    }
    with override_settings(CACHES={**settings.CACHES, "api": api}, API_CACHE_SECONDS=600,
                           REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}):
        store = caches["api"]
        store.clear()
        yield store
        store.clear()


def _world() -> None:
    for n in range(12):
        approved(Person(slug=f"person-{n}", name=f"人物{n}", side="chinese"))
    for n, day in enumerate((11, 12, 13)):
        approved(Event(slug=f"event-{n}", title=f"南京之事{n}", kind="order", date=f"1937-12-{day}",
                       earliest=dt.datetime(1937, 12, day, tzinfo=NANJING),
                       latest=dt.datetime(1937, 12, day, 23, 59, tzinfo=NANJING),
                       description="唐生智下令撤退，第七十四军自挹江门出城。" * 10))


def _held(store: BoundedMemoryCache) -> int:
    return sum(entry_size(key, value) for key, value in store._cache.items())


def test_four_hundred_requests_with_junk_parameters_store_nothing(_small_cache: BoundedMemoryCache) -> None:
    _world()
    client = Client()
    # A filtered page: answered by the view, which keeps it in the cache (a plain page may be a stored answer).
    assert client.get("/api/v1/persons/", {"side": "chinese"}).status_code == 200
    assert len(_small_cache._cache) == 1, len(_small_cache._cache)
    for n in range(400):
        response = client.get("/api/v1/persons/", {f"junk{n}": "x" * 200, "utm": str(n)})
        assert response.status_code == 400
        assert f"junk{n}" in response.json()
    assert len(_small_cache._cache) == 1
    assert _small_cache.bytes_held == _held(_small_cache) <= CEILING


def test_four_hundred_distinct_valid_requests_stay_under_the_ceiling(_small_cache: BoundedMemoryCache) -> None:
    _world()
    client = Client()
    stored = 0
    for n in range(400):
        before = f"2100-01-01T00:{n // 60:02d}:{n % 60:02d}"
        response = client.get("/api/v1/events/", {"page_size": n % 3 + 1, "before": before})
        assert response.status_code == 200
        stored += len(response.content)
        assert _small_cache.bytes_held <= CEILING
    assert stored > CEILING  # the answers together would not fit: the oldest were evicted
    assert 0 < _small_cache.bytes_held == _held(_small_cache) <= CEILING
    assert 1 < len(_small_cache._cache) < 400


@pytest.mark.parametrize(
    "spellings",
    [
        pytest.param(
            [
                ("/api/v1/events/", {"before": "2100-01-01T00:00:00"}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00"}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00:00.000000"}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00:00+08:00"}, {}),
                ("/api/v1/events/", {"before": "2099-12-31T16:00:00Z"}, {}),
                ("/api/v1/events/", {"before": " 2100-01-01T00:00 "}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00", "page": "1"}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00", "page": "001", "page_size": "50"}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00", "fiction": ""}, {}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00"}, {"HTTP_ACCEPT": "*/*"}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00"}, {"HTTP_ACCEPT": "application/json; x=1"}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00"}, {"HTTP_ACCEPT": "application/json; x=2"}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00"},
                 {"HTTP_ACCEPT": "text/plain;q=0.1, application/json"}),
                ("/api/v1/events/", {"before": "2100-01-01T00:00", "format": "json"}, {}),
            ],
            id="before",
        ),
        pytest.param(
            [
                ("/api/v1/persons/", {}, {}),
                ("/api/v1/persons/", {"fiction": ""}, {}),
                ("/api/v1/persons/", {"page_size": "50"}, {}),
                ("/api/v1/persons/", {"side": ""}, {}),
                ("/api/v1/persons/", {}, {"HTTP_ACCEPT": "application/*"}),
            ],
            id="persons",
        ),
    ],
)
def test_equivalent_requests_share_one_entry(_small_cache: BoundedMemoryCache, spellings: list[Any]) -> None:
    _world()
    client = Client()
    bodies = set()
    for path, params, headers in spellings:
        response = client.get(path, params, **headers)
        assert response.status_code == 200, (params, headers, response.content[:300])
        assert response["Content-Type"] == "application/json"
        bodies.add(response.content)
    assert len(_small_cache._cache) == 1, [len(body) for body in bodies]
    assert len(bodies) == 1


def test_values_differing_below_a_second_are_refused_and_store_nothing(_small_cache: BoundedMemoryCache) -> None:
    _world()
    client = Client()
    for n in range(1, 401):
        response = client.get("/api/v1/events/", {"before": f"2100-01-01T00:00:00.{n:06d}"})
        assert response.status_code == 400
        assert list(response.json()) == ["before"]
    assert len(_small_cache._cache) == 0


def test_an_indented_json_answer_is_stored_apart_from_the_plain_one(_small_cache: BoundedMemoryCache) -> None:
    _world()
    client = Client()
    page = {"page_size": "2"}
    plain = client.get("/api/v1/persons/", page)
    indented = client.get("/api/v1/persons/", page, HTTP_ACCEPT="application/json; indent=4")
    again = client.get("/api/v1/persons/", page, HTTP_ACCEPT="application/json; indent=4; junk=1")
    assert indented.content == again.content != plain.content
    assert again["Content-Type"] == "application/json"
    assert len(_small_cache._cache) == 2


def test_an_entry_larger_than_the_ceiling_is_never_stored() -> None:
    store = BoundedMemoryCache("bounds-unit", {"OPTIONS": {"MAX_BYTES": 10_000}})
    store.clear()
    store.set("big", b"x" * 20_000)
    assert store.get("big") is None and store.bytes_held == 0
    for n in range(100):
        store.set(f"k{n}", b"y" * 1_000)
        assert store.bytes_held <= 10_000
    assert store.get("k99") is not None and store.get("k0") is None
    store.set("k99", b"z")
    store.delete("k98")
    assert store.bytes_held == _held(store)
    store.set("n", 1)
    assert store.incr("n", 2) == 3 and store.bytes_held == _held(store)
    store.clear()
    assert store.bytes_held == 0
