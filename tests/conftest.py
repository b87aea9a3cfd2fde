"""Shared fixtures of the test suite."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_login_lockout(request: pytest.FixtureRequest) -> None:
    # Login throttling is tested on its own; elsewhere a test logs in freely.
    # Guarded so that tests/text runs under plain pytest, without Django.
    if not request.config.pluginmanager.hasplugin("django"):
        return
    request.getfixturevalue("settings").AXES_ENABLED = False
