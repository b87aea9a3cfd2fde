"""No query per row: a list costs the same number of queries for 5 records as for 200.

Each list, in each of its formats, is counted (with the response cache off)
on the small archive, then again after many records with nested data (names, aliases, posts,
participations, children, places, citations) have been added. A JSON list reads
stored documents (`archive.api.stored`): it is counted cold, when every
document of the page must be built, and warm, when all are stored.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import (
    Citation,
    DocumentVersion,
    Event,
    Location,
    LocationAlias,
    Participation,
    Person,
    PersonName,
    Post,
    Status,
    Unit,
    UnitAlias,
)
from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    """What is counted is the cost of building a response, so none is served from the cache."""
    settings.API_CACHE_SECONDS = 0

BASE = "/api/v1"
MANY = 30

CASES = [
    ("sources/", {}), ("sources/", {"format": "csl"}),
    ("sources/history/passages/", {}),
    ("persons/", {}), ("persons/", {"format": "csv"}), ("persons/", {"fiction": "include"}),
    ("units/", {}), ("units/", {"format": "csv"}),
    ("locations/", {}), ("locations/", {"format": "geojson"}), ("locations/", {"format": "lpf"}),
    ("locations/", {"format": "csv"}),
    ("events/", {}), ("events/", {"format": "csv"}), ("events/", {"location": "nanjing"}),
    ("events/", {"person": "tang-shengzhi", "after": "1937-12-01"}), ("events/", {"source": "history"}),
    ("citations/", {}), ("citations/", {"format": "annotation"}),
]


def _count(api: ApiClient, path: str, params: dict[str, Any]) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        response = api.get(f"{BASE}/{path}", params)
    assert response.status_code == 200, response.content[:300]
    return len(captured), len(response.content)


def _cold(api: ApiClient, path: str, params: dict[str, Any]) -> tuple[int, int]:
    """Counted with every stored document stale, so that the page builds each of its documents."""
    DocumentVersion.objects.bump_everything()
    return _count(api, path, params)


def _grow(world: World) -> None:
    """Many approved records with nested data, written in bulk: only the counts matter here."""
    approved = {"status": Status.APPROVED}
    h1 = world.passage(world.history, 1)
    persons = Person.objects.bulk_create(Person(slug=f"p{i}", name=f"人{i}", **approved) for i in range(MANY))
    PersonName.objects.bulk_create(PersonName(person=p, name=f"別名{p.slug}") for p in persons)
    units = Unit.objects.bulk_create(
        Unit(slug=f"u{i}", name=f"部队{i}", echelon="regiment", parent=world.army74, **approved) for i in range(MANY))
    UnitAlias.objects.bulk_create(UnitAlias(unit=u, name=f"别{u.slug}") for u in units)
    places = Location.objects.bulk_create(
        Location(slug=f"l{i}", name=f"地{i}", kind="village", parent=world.xiaguan, **approved) for i in range(MANY))
    LocationAlias.objects.bulk_create(LocationAlias(location=place, name=f"别{place.slug}") for place in places)
    events = Event.objects.bulk_create(
        Event(slug=f"e{i}", title=f"事{i}", kind="movement", parent=world.order, **approved) for i in range(MANY))
    Event.locations.through.objects.bulk_create(
        Event.locations.through(event=event, location=place) for event, place in zip(events, places, strict=True))
    posts = Post.objects.bulk_create(
        Post(slug=f"post{i}", person=p, unit=u, title="团长", **approved) for i, (p, u) in
        enumerate(zip(persons, units, strict=True)))
    parts = Participation.objects.bulk_create(
        Participation(slug=f"part{i}", event=e, person=p, role="participant", **approved) for i, (e, p) in
        enumerate(zip(events, persons, strict=True)))
    start = h1.text.index("南京")
    quote = {"passage": h1, "quote": "南京", "start": start, "end": start + 2, "claim": "c", **approved}
    targets: list[dict[str, Any]] = []
    for i in range(MANY):
        targets += [{"person": persons[i]}, {"unit": units[i]}, {"location": places[i]}, {"event": events[i]},
                    {"post": posts[i]}, {"participation": parts[i]}]
    Citation.objects.bulk_create(Citation(slug=f"bulk-{n}", **quote, **target) for n, target in enumerate(targets))
    Participation.objects.bulk_create(
        Participation(slug=f"tang{i}", event=e, person=world.tang, role="witness", **approved)
        for i, e in enumerate(events))
    # Written in bulk, around the signals: as every bulk path does, it makes every document stale.
    DocumentVersion.objects.bump_everything()


def test_every_list_costs_the_same_queries_for_5_and_for_200(world: World, api: ApiClient) -> None:
    small = {(path, str(params)): _cold(api, path, {**params, "page_size": 5}) for path, params in CASES}
    _grow(world)
    for path, params in CASES:
        queries_small, _ = small[(path, str(params))]
        queries_5, size_5 = _cold(api, path, {**params, "page_size": 5})
        queries_200, size_200 = _cold(api, path, {**params, "page_size": 200})
        assert queries_small == queries_5 == queries_200, (path, params, queries_small, queries_5, queries_200)
        assert size_200 >= size_5
        warm_5, _ = _count(api, path, {**params, "page_size": 5})
        warm_200, warm_size = _count(api, path, {**params, "page_size": 200})
        assert warm_5 == warm_200 <= queries_200, (path, params, warm_5, warm_200, queries_200)
        assert warm_size == size_200
    # The large pages really are large: the counts compare like with like.
    assert api.json(f"{BASE}/persons/", page_size=200)["count"] > MANY
    assert len(api.json(f"{BASE}/events/", page_size=200)["results"]) > MANY
    assert len(api.json(f"{BASE}/events/", page_size=200, location="nanjing")["results"]) > MANY
    tang = api.json(f"{BASE}/persons/tang-shengzhi/")
    assert len(tang["participations"]) > MANY


def test_details_cost_a_fixed_number_of_queries(world: World, api: ApiClient) -> None:
    paths = ["persons/tang-shengzhi/", "units/army-74/", "locations/nanjing/", "events/retreat-order/",
             f"citations/{world.history_cite.pk}/", f"passages/{world.history_cite.passage_id}/"]
    before = {path: _cold(api, path, {})[0] for path in paths}
    _grow(world)
    for path in paths:
        assert _cold(api, path, {})[0] == before[path], path
        # Stored, a detail is one statement: its document, with the facts its answer needs, and not its record.
        assert _count(api, path, {})[0] == 1, path


def test_the_count_a_list_shows_is_the_number_of_records_it_pages(world: World, api: ApiClient) -> None:
    """The count is read with the Last-Modified stamp in one statement: it must still count what is paged."""
    _grow(world)
    for path, params in CASES:
        if params.get("format") or path.endswith("passages/"):
            continue
        first = api.get(f"{BASE}/{path}", {**params, "page_size": 200}).json()
        listed = [*first["results"]]
        link = first["next"]
        while link:
            page = api.get(link).json()
            listed += page["results"]
            link = page["next"]
        assert first["count"] == len(listed) > 0, (path, params)
        assert len({item.get("url") or item.get("id") for item in listed}) == len(listed), (path, params)
