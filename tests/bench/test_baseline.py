"""The API benchmark's baseline answers with the very documents the API serves.

A latency ratio means something only if both servers do the same work: the
hand-written SQL of `bench/baseline_app.py` must build the same JSON as the
API (approved records only, fiction excluded from lists and their evidence,
the detail of a fictional record showing its fiction). PostgreSQL only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from archive.models import Person, Status
from bench import baseline_app, synthetic

pytestmark = pytest.mark.django_db

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "sources"


@pytest.fixture
def baseline() -> Iterator[None]:
    if connection.vendor != "postgresql":
        pytest.skip("the baseline is SQL for PostgreSQL")
    if not list(SEEDS.glob("*.txt")):
        pytest.skip("no seed texts in fixtures/sources")
    connection.ensure_connection()
    # Share the test's connection, so that the baseline sees the rows of this test's transaction.
    baseline_app._connection = connection.connection
    yield
    baseline_app._connection = None


def _baseline_get(path: str) -> object:
    route, _, query = path.partition("?")
    environ = {"PATH_INFO": route, "QUERY_STRING": query, "HTTP_HOST": "testserver"}
    statuses: list[str] = []
    with connection.cursor() as cursor:
        # The baseline's own connection is in Nanjing time; Django's stays in UTC.
        cursor.execute("SET LOCAL TIME ZONE 'Asia/Shanghai'")
        try:
            body = b"".join(baseline_app.application(environ, lambda status, headers: statuses.append(status)))
        finally:
            cursor.execute("SET LOCAL TIME ZONE 'UTC'")
    assert statuses == ["200 OK"], (path, statuses, body[:200])
    return json.loads(body)


def _first_difference(a: object, b: object, at: str = "") -> str | None:
    """Where two JSON documents first differ, for a readable failure."""
    if type(a) is not type(b):
        return f"{at}: {a!r:.120} != {b!r:.120}"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{at}.{key}: present on one side only"
            found = _first_difference(a[key], b[key], f"{at}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{at}: {len(a)} items != {len(b)} items"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{at}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{at}: {a!r:.120} != {b!r:.120}"


def test_the_baseline_builds_the_apis_documents(baseline: None) -> None:
    synthetic.generate(passages=3000, seed=9, seed_dir=SEEDS, source_sizes=(200, 400))
    client = Client()
    persons = list(Person.objects.filter(status=Status.APPROVED).order_by("slug").values_list("slug", flat=True))
    fictional = set(Person.objects.filter(fictional=True).values_list("slug", flat=True))
    paths = ["/api/v1/events/?page_size=50", "/api/v1/events/?page_size=8&page=2", "/api/v1/events/?page_size=8&page=3"]
    paths += [f"/api/v1/persons/{slug}/" for slug in persons[:40]]
    paths += [f"/api/v1/persons/{slug}/" for slug in sorted(fictional & set(persons))[:5]]
    for path in paths:
        ours = client.get(path)
        assert ours.status_code == 200, path
        difference = _first_difference(ours.json(), _baseline_get(path))
        assert difference is None, f"{path}: {difference}"
