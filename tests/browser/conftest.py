"""Headless chromium for the end-to-end tests, or a clear skip without it.

Playwright's own browser download cannot run here, so the tests drive the
system's chromium. Playwright's sync API keeps an event loop running in the
test's thread, which Django's async-safety check would take for async code
calling the ORM; the check is switched off for these tests only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
TIMEOUT_MS = 15_000

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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
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


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
