"""Timing and counting helpers the stages share, and the settings for serving pages in this process.

The in-process figures (the API split into SQL and Python, the admin's
changelists, the queries per request) go through django.test.Client with
the bench's own settings; these helpers keep them measured the same way.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def timed(function: Callable[[], Any]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def median_ms(function: Callable[[], Any], repeat: int) -> float:
    function()  # warm the cache: both sides are measured warm
    return statistics.median(timed(function) for _ in range(repeat)) * 1000


@contextmanager
def captured_queries() -> Iterator[list[dict[str, str]]]:
    """Every SQL query run inside, on every database alias (the API reads may go to a replica).

    The list yielded is filled when the block ends.
    """
    from contextlib import ExitStack

    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    captured: list[dict[str, str]] = []
    with ExitStack() as stack:
        contexts = [stack.enter_context(CaptureQueriesContext(connection)) for connection in connections.all()]
        yield captured
    for context in contexts:
        captured.extend(context.captured_queries)


@contextmanager
def in_process() -> Iterator[None]:
    """Settings for serving pages in this process, as the deployed site does after collectstatic.

    Without DEBUG the project stores static files by manifest, which exists
    only after `collectstatic`; the bench writes no files, so the admin's
    `{% static %}` is served by the plain storage (a string join instead of a
    dict lookup). The request log's line per request is muted: it would drown
    the bench's output (its middleware still times and counts each request).
    """
    import logging

    from django.conf import settings
    from django.test import override_settings

    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    storages = {**settings.STORAGES, "staticfiles": plain}
    request_log = logging.getLogger("archive.request")
    level = request_log.level
    request_log.setLevel(logging.WARNING)
    try:
        with override_settings(STORAGES=storages), warnings.catch_warnings():
            # WhiteNoise warns once that STATIC_ROOT does not exist: expected, nothing is collected.
            warnings.filterwarnings("ignore", message="No directory at")
            yield
    finally:
        request_log.setLevel(level)


def client_get(client: Any, path: str) -> Any:
    # bench runs with ALLOWED_HOSTS=127.0.0.1; the test client's default "testserver" would be refused.
    response = client.get(path, HTTP_HOST="127.0.0.1")
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}")
    return response
