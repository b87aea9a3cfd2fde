"""Headless chromium for the end-to-end tests, or a clear skip without it.

Playwright's own browser download cannot run here, so the tests drive the
system's chromium. Playwright's sync API keeps an event loop running in the
test's thread, which Django's async-safety check would take for async code
calling the ORM; the check is switched off for these tests only.

The `browser` and `new_page` fixtures live in tests/conftest.py, so that every
directory shares one Playwright session (a second one in the same thread fails).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM, TIMEOUT_MS  # noqa: F401  (TIMEOUT_MS for the tests)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = None
    if not CHROMIUM.exists():
        reason = f"end-to-end tests need chromium at {CHROMIUM}, which is not installed"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "end-to-end tests need the playwright package (requirements-dev.txt)"
    if reason is None:
        return
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
