"""The API benchmark's baseline answers with the very documents the API serves.

A latency ratio means something only if both servers do the same work: the
hand-written SQL of `bench/baseline_app.py` must build the same JSON as the
API (approved records only, fiction excluded from lists and their evidence,
the detail of a fictional record showing its fiction), for every kind of
document, on the shipped collection and on synthetic data. PostgreSQL only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client

from archive import selectors
from archive.models import Event, Location, Participation, Passage, Person, Source, Status, Unit
from bench import baseline_app, synthetic
from tests.json_difference import first_difference
from tests.shipped import collection_loaded
from tests.stated_facts import state_facts

pytestmark = pytest.mark.django_db

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "sources"


@pytest.fixture
def baseline(settings: Any) -> Iterator[None]:
    # Every document is built: an answer stored for one test's data must not stand for another's.
    settings.API_CACHE_SECONDS = 0
    if connection.vendor != "postgresql":
        pytest.skip("the baseline is SQL for PostgreSQL")
    if not list(SEEDS.glob("*.txt")):
        pytest.skip("no seed texts in fixtures/sources")
    connection.ensure_connection()
    # Share the test's connection, so that the baseline sees the rows of this test's transaction.
    baseline_app.share(connection.connection)
    yield
    baseline_app.share(None)


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


def _spread(values: list[Any], count: int) -> list[Any]:
    """About `count` of `values`, taken evenly from first to last."""
    return values[:: max(1, len(values) // count)][:count]


def _list_paths(client: Client) -> list[str]:
    """The list pages of every kind: the default page, a full one and two short ones further on (if any)."""
    paths = []
    for kind in ("sources", "persons", "units", "locations", "events", "citations"):
        count = client.get(f"/api/v1/{kind}/").json()["count"]
        paths += [f"/api/v1/{kind}/", f"/api/v1/{kind}/?page_size=200"]
        paths += [f"/api/v1/{kind}/?page_size=7&page={n}" for n in (2, 3) if count > 7 * (n - 1)]
    return paths


def _detail_paths(per_kind: int) -> list[str]:
    """Details of every kind, fictional records and sources among them; a source's passages, pages 1 and 2."""
    paths = []
    for kind, model in (("persons", Person), ("units", Unit), ("locations", Location), ("events", Event)):
        approved = model.objects.approved().order_by("slug")
        slugs = _spread(list(approved.values_list("slug", flat=True)), per_kind)
        slugs += list(approved.filter(fictional=True).values_list("slug", flat=True)[:5])
        paths += [f"/api/v1/{kind}/{slug}/" for slug in dict.fromkeys(slugs)]
    for source in Source.objects.approved().order_by("slug"):
        paths += [f"/api/v1/sources/{source.slug}/", f"/api/v1/sources/{source.slug}/passages/?page_size=20"]
        if source.passages.count() > 20:
            paths.append(f"/api/v1/sources/{source.slug}/passages/?page=2&page_size=20")
    cited = selectors.citations_with_targets().order_by("id")
    ids = _spread(list(cited.values_list("id", flat=True)), per_kind)
    for target in ("person", "unit", "location", "event", "post", "participation"):
        ids += list(cited.filter(**{f"{target}__isnull": False}).values_list("id", flat=True)[:2])
    ids += list(cited.filter(passage__source__is_fiction=True).values_list("id", flat=True)[:3])
    paths += [f"/api/v1/citations/{pk}/" for pk in dict.fromkeys(ids)]
    shown = Passage.objects.filter(source__status=Status.APPROVED).order_by("id")
    ids = _spread(list(shown.values_list("id", flat=True)), per_kind)
    ids += list(shown.filter(citations__status=Status.APPROVED).values_list("id", flat=True)[:per_kind])
    ids += list(shown.filter(quotes__isnull=False).values_list("id", flat=True)[:3])
    ids += list(shown.filter(source__is_fiction=True).values_list("id", flat=True)[:3])
    paths += [f"/api/v1/passages/{pk}/" for pk in dict.fromkeys(ids)]
    return paths


def _compare(paths: list[str]) -> list[dict[str, object]]:
    """Each path's document from the API and from the baseline, equal field by field; the accounts they show."""
    client = Client()
    accounts: list[dict[str, object]] = []
    for number, path in enumerate(paths):
        if number % 100 == 0:
            caches["default"].clear()  # the anonymous rate is counted there
        ours = client.get(path)
        assert ours.status_code == 200, path
        # PostgreSQL's jsonb orders the keys of the statements its own way: the values are compared.
        difference = first_difference(ours.json(), _baseline_get(path), ordered=False)
        assert difference is None, f"{path}: {difference}"
        accounts += _accounts(ours.json())
    return accounts


def _every_document(per_kind: int) -> list[dict[str, object]]:
    caches["default"].clear()
    paths = _list_paths(Client()) + _detail_paths(per_kind)
    assert {path.split("/")[3] for path in paths} == {
        "sources", "persons", "units", "locations", "events", "citations", "passages"
    }
    return _compare(paths)


def test_the_baseline_builds_the_apis_documents(baseline: None) -> None:
    synthetic.generate(passages=3000, seed=9, seed_dir=SEEDS, source_sizes=(200, 400))
    state_facts()
    persons = list(Person.objects.filter(status=Status.APPROVED).order_by("slug").values_list("slug", flat=True))
    fictional = set(Person.objects.filter(fictional=True).values_list("slug", flat=True))
    paths = ["/api/v1/events/?page_size=50", "/api/v1/events/?page_size=8&page=2", "/api/v1/events/?page_size=8&page=3"]
    paths += [f"/api/v1/persons/{slug}/" for slug in persons[:40]]
    paths += [f"/api/v1/persons/{slug}/" for slug in sorted(fictional & set(persons))[:5]]
    # The events of a person or a unit (`?person=`, `?unit=`), at the default size and paged small.
    taking_part = Participation.objects.filter(selectors.visible_participation_q(), event__fictional=False)
    for who in ("person", "unit"):
        events: dict[str, set[int]] = {}
        for slug, event in taking_part.exclude(**{who: None}).values_list(f"{who}__slug", "event_id"):
            events.setdefault(slug, set()).add(event)
        slugs = sorted(events)
        paged = [slug for slug in slugs if len(events[slug]) > 1]
        assert slugs and paged, who
        paths += [f"/api/v1/events/?{who}={slug}" for slug in _spread(slugs, 6)]
        paths += [f"/api/v1/events/?page=2&page_size=1&{who}={slug}" for slug in paged[:3]]
    accounts = _compare(paths)
    # The documents compared carry accounts of every rank, fictional ones among them.
    assert {account["rank"] for account in accounts} == {"preferred", "normal", "deprecated"}
    assert {account["fictional"] for account in accounts} == {True, False}


def test_the_baseline_builds_every_kind_of_document_on_synthetic_data(baseline: None) -> None:
    synthetic.generate(passages=3000, seed=9, seed_dir=SEEDS, source_sizes=(200, 400))
    state_facts()
    accounts = _every_document(per_kind=25)
    assert {account["rank"] for account in accounts} == {"preferred", "normal", "deprecated"}
    assert {account["fictional"] for account in accounts} == {True, False}


def test_the_baseline_builds_every_kind_of_document_of_the_shipped_collection(baseline: None) -> None:
    with collection_loaded():
        accounts = _every_document(per_kind=40)
        assert accounts, "the shipped collection states facts"


def test_the_baseline_answers_not_found_where_the_api_does(baseline: None) -> None:
    synthetic.generate(passages=600, seed=3, seed_dir=SEEDS, source_sizes=(200, 400))
    draft = Person.objects.exclude(status=Status.APPROVED).values_list("slug", flat=True).first()
    paths = [f"/api/v1/persons/{draft}/", "/api/v1/units/no-such-unit/", "/api/v1/passages/x1/",
             "/api/v1/sources/no-such-source/passages/", "/api/v1/citations/999999999/"]
    for path in paths:
        assert Client().get(path).status_code == 404, path
        assert baseline_app.document("http://testserver", path) is None, path


def _accounts(document: object) -> list[dict[str, object]]:
    """Every statement account inside a JSON document."""
    if isinstance(document, list):
        return [account for item in document for account in _accounts(item)]
    if not isinstance(document, dict):
        return []
    found = [account for field in (document.get("statements") or {}).values() for account in field["accounts"]]
    return found + [account for key, value in document.items() if key != "statements" for account in _accounts(value)]
