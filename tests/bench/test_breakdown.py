"""The benchmark's split of one API request into its SQL and its Python measures what it says."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from archive.models import Event
from bench import breakdown, synthetic

pytestmark = pytest.mark.django_db

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "sources"


@pytest.fixture
def archive(settings: Settings) -> None:
    if not list(SEEDS.glob("*.txt")):
        pytest.skip("no seed texts in fixtures/sources")
    settings.API_CACHE_SECONDS = 0  # every request builds its document
    settings.API_STORED_DOCUMENTS = False  # with the serializers, which build model instances to count
    synthetic.generate(passages=1500, seed=5, seed_dir=SEEDS, source_sizes=(200, 400))


def _get(client: Client, path: str) -> object:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response


def test_a_longer_page_builds_more_instances_and_every_statement_is_timed(archive: None) -> None:
    visible = Event.objects.approved().filter(fictional=False).count()
    assert visible >= 12, "the synthetic archive should fill the longer page"
    client = Client()
    small = breakdown.measure(lambda path: _get(client, path), ["/api/v1/events/?page_size=3"], 3)
    large = breakdown.measure(lambda path: _get(client, path), ["/api/v1/events/?page_size=12"], 3)

    assert large.instances > small.instances > 0
    with CaptureQueriesContext(connection) as captured:
        _get(client, "/api/v1/events/?page_size=12")
    assert large.queries == len(captured) > 0  # the timer sees every statement
    for measured in (small, large):
        assert measured.requests == 3
        assert 0 < measured.sql_ms <= measured.total_ms
        assert measured.python_ms == pytest.approx(measured.total_ms - measured.sql_ms)


def test_counting_stops_with_the_measurement(archive: None) -> None:
    from django.db.models.signals import post_init

    receivers = len(post_init.receivers)
    client = Client()
    breakdown.measure(lambda path: _get(client, path), ["/api/v1/events/?page_size=5"], 1)
    assert len(post_init.receivers) == receivers


def test_stored_documents_build_no_instance_however_long_the_page(archive: None, settings: Settings) -> None:
    settings.API_STORED_DOCUMENTS = True
    client = Client()
    _get(client, "/api/v1/events/?page_size=12")  # builds and stores the documents
    small = breakdown.measure(lambda path: _get(client, path), ["/api/v1/events/?page_size=3"], 2)
    large = breakdown.measure(lambda path: _get(client, path), ["/api/v1/events/?page_size=12"], 2)
    assert small.instances == large.instances == 0
    assert small.queries == large.queries
