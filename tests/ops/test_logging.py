"""Request logs: one JSON line per request with the fields an operator needs, and no secrets."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from axes.helpers import get_client_ip_address
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from archive.client_address import client_ip
from archive.request_log import JsonFormatter, TextFormatter, scrub

pytestmark = pytest.mark.django_db


def _parsed(handler_output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in handler_output.splitlines() if line.strip()]


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root, request_logger = logging.getLogger(), logging.getLogger("archive.request")
    level = request_logger.level
    root.addHandler(handler)
    request_logger.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    request_logger.setLevel(level)


def test_one_json_line_per_request_with_its_fields(client: Client, captured: io.StringIO) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/health/", REMOTE_ADDR="198.51.100.4", HTTP_USER_AGENT="probe")
    [line] = [entry for entry in _parsed(captured.getvalue()) if entry["logger"] == "archive.request"]
    assert line["level"] == "INFO"
    assert line["method"] == "GET"
    assert line["path"] == "/health/"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["queries"] == len(queries) > 0
    assert line["queries_by_db"] == {"default": len(queries)}
    assert line["remote_addr"] == "198.51.100.4"
    assert line["request_id"] == response["X-Request-ID"]
    assert len(line["request_id"]) == 32
    assert line["time"].endswith("+00:00")


def test_the_query_string_is_not_logged(client: Client, captured: io.StringIO) -> None:
    client.get("/health/?token=abc123")
    assert "abc123" not in captured.getvalue()


def test_a_request_id_from_the_proxy_is_kept_and_a_bad_one_replaced(client: Client) -> None:
    assert client.get("/health/", HTTP_X_REQUEST_ID="lb-4f1c.7")["X-Request-ID"] == "lb-4f1c.7"
    replaced = client.get("/health/", HTTP_X_REQUEST_ID="bad id\r\nSet-Cookie: x")["X-Request-ID"]
    assert replaced != "bad id" and len(replaced) == 32


def test_an_error_is_logged_with_context_and_without_secrets(
    client: Client, settings: Settings, captured: io.StringIO
) -> None:
    settings.ROOT_URLCONF = "tests.ops.urls"
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    failing = Client(raise_request_exception=False)
    failing.cookies["sessionid"] = "cookie-secret-1"
    response = failing.post(
        "/_boom/",
        {"username": "curator", "password": "post-secret-2"},
        HTTP_AUTHORIZATION="Bearer auth-secret-3",
    )
    assert response.status_code == 500
    output = captured.getvalue()
    for secret in ("cookie-secret-1", "post-secret-2", "auth-secret-3"):
        assert secret not in output
    lines = _parsed(output)
    [error] = [entry for entry in lines if entry["logger"] == "django.request"]
    assert error["level"] == "ERROR"
    assert error["path"] == "/_boom/" and error["method"] == "POST"
    assert error["status"] == 500
    assert error["request_id"] == response["X-Request-ID"]
    assert error["exception"]["type"] == "builtins.RuntimeError"
    assert error["exception"]["message"] == "the probe failed on purpose"
    assert "in boom" in error["exception"]["traceback"]
    [access] = [entry for entry in lines if entry["logger"] == "archive.request"]
    assert access["status"] == 500 and access["level"] == "ERROR"
    assert access["request_id"] == response["X-Request-ID"]


def test_credentials_in_urls_and_pairs_are_masked() -> None:
    assert scrub("postgres://archive:s3cr3t@db:5432/a") == "postgres://archive:***@db:5432/a"
    assert scrub("login failed password=hunter2&next=/") == "login failed password=***&next=/"
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "dsn %s", ("postgres://u:pw@h/d",), None)
    assert json.loads(JsonFormatter().format(record))["message"] == "dsn postgres://u:***@h/d"
    assert "pw@" not in TextFormatter().format(record)


def test_client_address_behind_trusted_proxies(settings: Settings) -> None:
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "10.0.0.1"  # no proxy trusted: the header is ignored
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.9"  # the address our proxy saw, not the spoofed one
    settings.TRUSTED_PROXY_COUNT = 2
    assert client_ip(request) == "6.6.6.6"


def test_login_throttling_sees_the_same_address(settings: Settings) -> None:
    request = RequestFactory().post("/admin/login/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    settings.TRUSTED_PROXY_COUNT = 1
    assert get_client_ip_address(request) == "203.0.113.9"
    settings.TRUSTED_PROXY_COUNT = 0
    assert get_client_ip_address(request) == "10.0.0.1"
