"""No demo account works in production: the demo password signs nobody in without DEBUG.

A database that `make setup` once touched keeps `curator` and `reviewer` with
the README's password; these tests log in as an attacker who read the README
would, through the admin's login form, with DEBUG off, and check that
`check --deploy` names every account that carries the password.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core import checks
from django.test import Client, RequestFactory

from archive.checks import check_demo_accounts

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/?next=/admin/"


def _account(username: str, password: str) -> User:
    return User.objects.create_user(username, password=password, is_staff=True)


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _log_in(username: str, password: str) -> tuple[int, bool]:
    client = Client()
    response = client.post(LOGIN, {"username": username, "password": password})
    return response.status_code, _signed_in(client)


def test_with_debug_the_demo_accounts_sign_in(settings: Any) -> None:
    settings.DEBUG = True
    curator = _account("curator", "archive-demo")
    assert authenticate(RequestFactory().post("/admin/login/"), username="curator", password="archive-demo") == curator
    assert _log_in("curator", "archive-demo") == (302, True)


def test_without_debug_the_demo_password_signs_nobody_in(settings: Any) -> None:
    settings.DEBUG = False
    _account("curator", "archive-demo")
    _account("reviewer", "archive-demo")
    _account("someone", "archive-demo")  # any account that carries it, not only the demo names
    for username in ("curator", "reviewer", "someone"):
        assert _log_in(username, "archive-demo") == (200, False), username
    assert authenticate(RequestFactory().post("/admin/login/"), username="curator", password="archive-demo") is None


def test_a_configured_demo_password_is_refused_as_well_as_the_published_one(settings: Any) -> None:
    settings.DEBUG = False
    settings.DEMO_PASSWORD = "another-demo-word"
    _account("curator", "another-demo-word")
    _account("reviewer", "archive-demo")
    assert _log_in("curator", "another-demo-word") == (200, False)
    assert _log_in("reviewer", "archive-demo") == (200, False)


def test_real_passwords_still_sign_in_without_debug(settings: Any) -> None:
    settings.DEBUG = False
    _account("curator", "a-real-password-of-her-own")
    assert _log_in("curator", "a-real-password-of-her-own") == (302, True)


def test_tries_with_the_demo_password_count_toward_the_lockout(settings: Any) -> None:
    settings.DEBUG = False
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    _account("curator", "a-real-password-of-her-own")
    for _ in range(3):
        assert _log_in("curator", "archive-demo")[1] is False
    # Locked out now, even with the right password (axes answers 429).
    status, signed_in = _log_in("curator", "a-real-password-of-her-own")
    assert not signed_in and status in (403, 429)


def test_the_deploy_check_names_every_account_with_the_demo_password() -> None:
    assert check_demo_accounts() == []
    _account("reviewer", "archive-demo")
    _account("curator", "archive-demo")
    _account("editor", "a-real-password-of-her-own")
    inactive = _account("retired", "archive-demo")
    inactive.is_active = False
    inactive.save()

    found = check_demo_accounts()
    assert [message.id for message in found] == ["archive.E001"]
    assert found[0].level == checks.ERROR
    assert "curator, reviewer." in found[0].msg
    assert "editor" not in found[0].msg and "retired" not in found[0].msg
    # Registered as a deploy check, so `check --deploy` runs it and fails.
    deploy = checks.run_checks(include_deployment_checks=True, tags=[checks.Tags.security])
    assert "archive.E001" in [message.id for message in deploy]
    assert "archive.E001" not in [message.id for message in checks.run_checks(tags=[checks.Tags.security])]
