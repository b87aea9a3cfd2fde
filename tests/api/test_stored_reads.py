"""How often one request reads the stored documents, and what a page of them builds besides.

A cold detail (its document made stale by a write) reads the store once: the stored answers look
for it, and the view builds it without looking again. A page reads its stored page once, then the
documents of its records. A filtered page reads only its records' keys: the prefetches of its
kind's selector, which the stored documents make useless, are never built.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive import selectors
from archive.api import views
from archive.models import DocumentVersion, StoredDocument
from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
TANG = f"{BASE}/persons/tang-shengzhi/"
_TABLE = StoredDocument._meta.db_table


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


def _reads(api: ApiClient, path: str, **params: Any) -> tuple[int, bytes]:
    """The reads of the stored documents one GET makes, and its body."""
    with CaptureQueriesContext(connection) as captured:
        response = api.get(path, params)
    assert response.status_code == 200, response.content[:300]
    reads = [query["sql"] for query in captured.captured_queries
             if query["sql"].lstrip().upper().startswith("SELECT") and _TABLE in query["sql"]]
    return len(reads), response.content


# After waiting for other builders, a builder reads again what they may have stored. PostgreSQL's lock
# says whether anyone held it (a cold detail that nobody else builds is not read again); SQLite's
# IMMEDIATE transaction does not, so there the store is read again once.
_AFTER_WAITING = 0 if connection.vendor == "postgresql" else 1


def test_a_cold_detail_reads_its_stored_document_once(world: World, api: ApiClient) -> None:
    _, warm = _reads(api, TANG)
    DocumentVersion.objects.bump(["person:tang-shengzhi"])
    cold_reads, cold = _reads(api, TANG)
    assert cold_reads == 1 + _AFTER_WAITING
    assert json.loads(cold) == json.loads(warm)
    assert _reads(api, TANG) == (1, warm)  # stored again: the stored answers serve it


def test_a_cold_detail_asked_with_a_reading_reads_its_stored_document_once(world: World, api: ApiClient) -> None:
    _reads(api, TANG, fiction="include")
    DocumentVersion.objects.bump(["person:tang-shengzhi"])
    reads, _ = _reads(api, TANG, fiction="include")  # past the stored answers: the view reads it
    assert reads == 1 + _AFTER_WAITING


def test_a_cold_page_reads_its_stored_page_once(world: World, api: ApiClient) -> None:
    _reads(api, f"{BASE}/events/")
    DocumentVersion.objects.bump_everything()
    reads, _ = _reads(api, f"{BASE}/events/")
    if connection.vendor == "postgresql":
        # The page, by the stored answers, which build it whole in one statement (`stored.built_page`).
        assert reads == 1
    else:
        # The page (once, by the stored answers), its records' documents, and those again after the builders' locks.
        assert reads == 3


def test_a_filtered_page_builds_no_prefetch_of_its_selector(
        world: World, api: ApiClient, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = api.json(f"{BASE}/events/", person="tang-shengzhi")
    assert expected["results"]

    def refused(mode: Any) -> Any:
        raise AssertionError("the selector's prefetches were built for a page of stored documents")

    monkeypatch.setattr(views.EventViewSet, "select", staticmethod(refused))
    assert api.json(f"{BASE}/events/", person="tang-shengzhi") == expected
    DocumentVersion.objects.bump_everything()  # cold: the documents are built, by their own selector
    small = api.json(f"{BASE}/events/", person="tang-shengzhi", page_size=10)
    assert (small["count"], small["results"]) == (expected["count"], expected["results"][:10])


def test_a_page_of_a_sources_passages_builds_no_prefetch_of_its_selector(
        world: World, api: ApiClient, monkeypatch: pytest.MonkeyPatch) -> None:
    path = f"{BASE}/sources/history/passages/"
    expected = api.json(path)
    assert expected["results"]

    def refused(mode: Any = None) -> Any:
        raise AssertionError("the passages' prefetches were built for a page of stored documents")

    monkeypatch.setattr(selectors, "passages", refused)
    assert api.json(path) == expected
    DocumentVersion.objects.bump_everything()  # cold: the documents are built, by their own selector
    assert api.json(path) == expected
