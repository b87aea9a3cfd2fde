"""One per-client throttle over the API, the reconciliation service and the reading room, each at its own rate.

DRF throttled only its own views: 700 rapid requests to `/reconcile/suggest/…`
were all answered. The plain Django views now count with the same throttle
(`archive/throttle.py`), each surface under its own scope, so a client held
back by one is still served by the others.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from archive.client_address import ClientRateThrottle

pytestmark = pytest.mark.django_db

RECONCILE = "/reconcile/suggest/entity/?prefix=唐"
ROOM = "/order-of-battle/"


@pytest.fixture(autouse=True)
def _three_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClientRateThrottle, "THROTTLE_RATES",
                        {"anon": "3/minute", "reconcile": "3/minute", "room": "3/minute"})


def _statuses(client: Client, path: str, count: int) -> list[int]:
    return [client.get(path).status_code for _ in range(count)]


def test_the_reconciliation_service_is_throttled_with_its_json_error() -> None:
    client = Client()
    assert _statuses(client, RECONCILE, 3) == [200, 200, 200]
    response = client.get(RECONCILE)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    document = json.loads(response.content)
    assert document["status"] == 429 and document["param"] == "rate"
    assert response["Access-Control-Allow-Origin"] == "*"
    # Every route of the service counts, POSTs and the draft's too.
    assert client.post("/reconcile/", {"queries": '{"q0": {"query": "唐"}}'}).status_code == 429
    assert client.post("/reconcile/1.0/match", "{}", content_type="application/json").status_code == 429


def test_the_reading_room_is_throttled() -> None:
    client = Client()
    assert _statuses(client, ROOM, 3) == [200, 200, 200]
    for path in (ROOM, "/", "/timeline/", "/people/nobody/"):
        response = client.get(path)
        assert response.status_code == 429, path
        assert 1 <= int(response["Retry-After"]) <= 60


def test_each_surface_has_its_own_count_and_each_client_its_own() -> None:
    client = Client()
    assert _statuses(client, ROOM, 4)[-1] == 429
    assert _statuses(client, RECONCILE, 3) == [200, 200, 200]
    assert _statuses(client, "/api/v1/", 3) == [200, 200, 200]
    assert _statuses(Client(REMOTE_ADDR="203.0.113.7"), ROOM, 1) == [200]


def test_the_rates_are_set_in_settings(settings: object) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # type: ignore[attr-defined]
    assert set(rates) == {"anon", "reconcile", "room"}
