"""Shared fixtures of the test suite."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
TIMEOUT_MS = 15_000

# Set by scripts/run_tests.py for the PostgreSQL parts of `make test`: tests marked engine_independent
# never touch the test database, so their run on SQLite is their run.
ENGINE_INDEPENDENT_RAN = "TESTS_ENGINE_INDEPENDENT_RAN"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(ENGINE_INDEPENDENT_RAN) != "1":
        return
    kept = [item for item in items if item.get_closest_marker("engine_independent") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


# The shipped collection (tests/shipped.py), loaded once for each module that reads it and rolled
# back at the module's end; each test of the module runs in a savepoint of its own.


@pytest.fixture(scope="module")
def shipped_collection(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    from tests.shipped import shared_collection

    with shared_collection(django_db_blocker):
        yield


@pytest.fixture
def collection(shipped_collection: None, db: Any) -> None:
    """The shipped collection, for one test."""
    return None


# Settings of the whole run.
#
# Accounts are made in hundreds of tests and logged in through forms; Django's default hasher
# (PBKDF2, a million rounds) takes about a third of a second each time. Hashing is not what
# these tests are about, so the whole run hashes with MD5; no stored hash needs another hasher.
#
# Static files are looked up when asked for, as `make run` does (whitenoise refreshes when DEBUG
# is on). The run has DEBUG=1 in its environment, so whitenoise serves from the finders, but
# pytest-django turns DEBUG off before the tests: whitenoise then listed every static file (some
# 200, about 0.15 s) each time a test client was made, which is thousands of times a run.
RUN_SETTINGS: dict[str, Any] = {
    "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
    "WHITENOISE_AUTOREFRESH": True,
}


@pytest.fixture(scope="session", autouse=True)
def _run_settings(request: pytest.FixtureRequest) -> Iterator[None]:
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from django.test.utils import override_settings

    with override_settings(**RUN_SETTINGS):
        yield


@pytest.fixture(autouse=True)
def _no_login_lockout(request: pytest.FixtureRequest) -> None:
    # Login throttling is tested on its own; elsewhere a test logs in freely.
    # Guarded so that tests/text runs under plain pytest, without Django.
    if not request.config.pluginmanager.hasplugin("django"):
        return
    request.getfixturevalue("settings").AXES_ENABLED = False


@pytest.fixture(autouse=True)
def _fresh_throttle(request: pytest.FixtureRequest) -> None:
    # The API, the reconciliation service and the reading room count each client across tests;
    # each test starts with a whole allowance (the throttle itself is tested in tests/ops/).
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from archive.client_address import forget_all_clients

    forget_all_clients()


# End-to-end tests: one headless chromium for the whole session, shared by every
# directory (Playwright's sync API cannot be started twice in one thread).
# Tests that use it skip when chromium is absent (see tests/browser/conftest.py).


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            timeout=TIMEOUT_MS,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Pages in separate contexts, so that two people are logged in at once."""
    contexts = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-GB")
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
