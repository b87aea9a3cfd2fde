"""The URL of the test database a test runs on, for a subprocess that must reach the same database."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote


def postgres_url(settings: dict[str, Any]) -> str:
    """A postgres:// URL of a connection's settings; a Unix socket's folder as host is quoted whole."""
    auth = quote(settings["USER"] or "", safe="")
    if settings.get("PASSWORD"):
        auth += ":" + quote(settings["PASSWORD"], safe="")
    host = quote(settings["HOST"] or "localhost", safe="")
    return f"postgres://{auth}@{host}:{settings['PORT'] or 5432}/{settings['NAME']}"
