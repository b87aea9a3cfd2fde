"""The stack floor's two views answer the same constant through the API's middleware and DRF's defaults."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from archive.client_address import forget_all_clients
from bench.floor_urls import CONSTANT

pytestmark = pytest.mark.django_db


@override_settings(ROOT_URLCONF="bench.floor_urls")
@pytest.mark.parametrize("path", ["/floor/django/", "/floor/drf/"])
def test_a_floor_view_answers_a_constant_without_the_database(path: str) -> None:
    forget_all_clients()
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(path)
    assert response.status_code == 200
    assert json.loads(response.content) == CONSTANT
    assert response["X-Request-ID"]  # through the request log, as every answer of the API
    assert len(queries) == 0


@override_settings(ROOT_URLCONF="bench.floor_urls")
def test_the_drf_floor_is_throttled_as_the_api_is(monkeypatch: pytest.MonkeyPatch) -> None:
    from archive.client_address import ClientRateThrottle

    monkeypatch.setattr(ClientRateThrottle, "THROTTLE_RATES", {"anon": "2/minute"})
    forget_all_clients()
    client = Client()
    assert [client.get("/floor/drf/").status_code for _ in range(3)] == [200, 200, 429]
    assert client.get("/floor/django/").status_code == 200  # no throttle outside DRF
