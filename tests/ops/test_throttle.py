"""The API's throttle, attacked as a client would: forged headers, and many processes.

A client that sent a new `X-Forwarded-For` with every request used to be a new
client each time and was never throttled; now the address is the peer's
unless proxies are trusted, and then only what the trusted proxies wrote
counts. The counts live in a store shared by every worker, so a second
process (another gunicorn worker) continues the first one's count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from axes.helpers import get_client_ip_address
from django.test import Client, RequestFactory
from rest_framework.request import Request

from archive.client_address import ClientRateThrottle, client_ip, forget_all_clients

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
API = "/api/v1/"


@pytest.fixture(autouse=True)
def _three_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    forget_all_clients()
    monkeypatch.setattr(ClientRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})


def _statuses(client: Client, forwarded: list[str], **extra: str) -> list[int]:
    return [client.get(API, HTTP_X_FORWARDED_FOR=value, **extra).status_code for value in forwarded]


def test_a_new_forwarded_for_with_each_request_is_still_throttled(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 0
    forged = [f"198.51.100.{n}" for n in range(1, 7)]
    assert _statuses(Client(), forged) == [200, 200, 200, 429, 429, 429]


def test_behind_a_trusted_proxy_only_the_address_the_proxy_saw_counts(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    # The client writes whatever it likes on the left; the proxy appends the real peer.
    forged = [f"6.6.6.{n}, 203.0.113.9" for n in range(1, 6)]
    assert _statuses(Client(), forged, REMOTE_ADDR="10.0.0.2") == [200, 200, 200, 429, 429]
    # Another client behind the same proxy has a count of its own.
    assert _statuses(Client(), ["203.0.113.10"], REMOTE_ADDR="10.0.0.2") == [200]
    # A value that is not an address is not believed: the proxy's own address counts.
    assert _statuses(Client(), ["not-an-address"] * 4, REMOTE_ADDR="10.0.0.3") == [200, 200, 200, 429]


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "6.6.6.6, 203.0.113.9", "10.0.0.1"),
        (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),
        (2, "6.6.6.6, 203.0.113.9", "6.6.6.6"),
        (1, "", "10.0.0.1"),
    ],
)
def test_throttle_lockout_and_log_name_the_same_client(
    settings: Any, proxies: int, forwarded: str, expected: str
) -> None:
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get(API, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected  # the request log's remote_addr
    assert get_client_ip_address(request) == expected  # axes' lockout
    assert ClientRateThrottle().get_ident(Request(request)) == expected  # the API's throttle


_PROCESS = """
import json, django
django.setup()
from django.test import Client
client = Client()
print(json.dumps([client.get("/api/v1/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code for n in range(2)]))
"""


def test_a_second_process_continues_the_count_of_the_first(tmp_path: Path) -> None:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    env = {
        **keep,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ENV_FILE": "",
        "DEBUG": "1",
        "SECRET_KEY": "throttle-test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CACHE_DIR": str(tmp_path / "cache"),
        "API_ANON_RATE": "3/minute",
    }

    def worker() -> list[int]:
        done = subprocess.run(
            [sys.executable, "-c", _PROCESS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    # Two workers, two requests each, one client: the rate of three holds across them.
    assert worker() + worker() == [200, 200, 200, 429]


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("store", ["table", "cache"])
def test_the_allowance_refills_one_request_per_period_divided_by_the_rate(
    store: str, monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path
) -> None:
    """Three a minute: three at once, then one every twenty seconds; a whole minute's rest refills all three.

    The same in the host's table and in the default cache (where Redis keeps it).
    """
    settings.THROTTLE_TABLE = str(tmp_path / "throttle.table") if store == "table" else ""
    clock = _Clock()
    monkeypatch.setattr(ClientRateThrottle, "timer", clock)
    request = Request(RequestFactory().get(API, REMOTE_ADDR="192.0.2.7"))

    def allowed() -> bool:
        return ClientRateThrottle().allow_request(request, None)

    assert [allowed() for _ in range(4)] == [True, True, True, False]
    refused = ClientRateThrottle()
    assert not refused.allow_request(request, None)
    assert refused.wait() == pytest.approx(20.0)
    clock.now += 19.9
    assert not allowed()
    clock.now += 0.2
    assert [allowed(), allowed()] == [True, False]
    clock.now += 60
    assert [allowed() for _ in range(4)] == [True, True, True, False]
    # Another client's allowance is its own.
    other = Request(RequestFactory().get(API, REMOTE_ADDR="192.0.2.8"))
    assert ClientRateThrottle().allow_request(other, None)


def test_a_refused_request_says_when_to_come_back() -> None:
    client = Client()
    statuses = [client.get(API).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = client.get(API)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 20
