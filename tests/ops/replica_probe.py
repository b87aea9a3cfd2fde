"""Exercise the replica router in a process of its own and print what served what.

`test_replicas.py` runs this script with DATABASE_URL pointing at a real
PostgreSQL primary and DATABASE_REPLICA_URLS at a streaming standby (and at a
port where nothing listens), because pytest-django's test database cannot have
a real replica. Requests go through Django's test client, so the real
middleware stack and router decide; every query is attributed to the alias
that ran it by an execution wrapper on each connection. The last line of
output is one JSON object that the test asserts on.

Usage: replica_probe.py up|down
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from archive.models import StoredDocument  # noqa: E402
from config import routers  # noqa: E402


@contextlib.contextmanager
def attributed_queries() -> Iterator[tuple[dict[str, int], dict[str, int]]]:
    """Statements by alias: the API's writes of the documents it built (`archive.api.stored`) apart."""
    counts: dict[str, int] = {}
    stored_writes: dict[str, int] = {}

    def wrapper_for(alias: str) -> Callable[..., Any]:
        def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
            stores = sql.lstrip().startswith("INSERT") and StoredDocument._meta.db_table in sql
            found = stored_writes if stores else counts
            found[alias] = found.get(alias, 0) + 1
            return execute(sql, params, many, context)

        return wrapper

    with contextlib.ExitStack() as stack:
        for alias in settings.DATABASES:
            stack.enter_context(connections[alias].execute_wrapper(wrapper_for(alias)))
        yield counts, stored_writes


def request(client: Client, method: str, path: str) -> dict[str, Any]:
    started = time.perf_counter()
    with attributed_queries() as (counts, stored_writes):
        response = getattr(client, method)(path)
    result: dict[str, Any] = {
        "status": response.status_code,
        "queries": dict(counts),
        "stored_writes": dict(stored_writes),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if method != "head" and response.get("Content-Type", "").startswith("application/json"):
        result["body"] = response.json()
    return result


def wait_for_replay(alias: str, timeout: float = 30) -> bool:
    """Wait until the standby has replayed the primary's migrations."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM django_migrations")
        wanted = cursor.fetchone()[0]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute("SELECT count(*) FROM django_migrations")
                if cursor.fetchone()[0] == wanted:
                    return True
        except Exception:
            connections[alias].close()
        time.sleep(0.2)
    return False


def api_links(body: Any) -> list[str]:
    """Local links listed by the API root, if it lists any."""
    if not isinstance(body, dict):
        return []
    links = []
    for value in body.values():
        if isinstance(value, str) and "/api/v1/" in value:
            links.append(value[value.index("/api/v1/") :])
    return links[:8]


def main(mode: str) -> dict[str, Any]:
    client = Client()
    out: dict[str, Any] = {"mode": mode, "aliases": list(settings.DATABASES)}
    with override_settings(ROOT_URLCONF="tests.ops.urls"):
        if mode == "up":
            out["replayed"] = wait_for_replay("replica1")
        out["api_get"] = request(client, "get", "/api/v1/_probe/")
        out["api_head"] = request(client, "head", "/api/v1/_probe/")
        out["api_post"] = request(client, "post", "/api/v1/_probe/")
        out["admin_get"] = request(client, "get", "/admin/_probe/")
        out["api_atomic"] = request(client, "get", "/api/v1/_probe/?atomic=1")
        name = f"probe-{uuid.uuid4().hex[:8]}"
        out["api_write"] = request(client, "get", f"/api/v1/_probe/?write={name}")
        # The row written on the primary reaches the standby by streaming replication.
        deadline = time.monotonic() + 15
        while True:
            seen = request(client, "get", f"/api/v1/_probe/?exists={name}")
            if seen.get("body", {}).get("exists") or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        out["api_sees_write"] = seen
        out["api_root"] = request(client, "get", "/api/v1/")
        out["api_links"] = {link: request(client, "get", link) for link in api_links(out["api_root"].get("body"))}
        for result in out["api_links"].values():
            result.pop("body", None)
        out["health"] = request(client, "get", "/health/")
    out["marked_down"] = {alias: routers.is_marked_down(alias) for alias in routers.replica_aliases()}
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "up")))
