"""After any write, every cached answer the API gives is the one it would build now.

The API's small world is built and every endpoint read (so its answer is
stored). Then each write in turn is made, and every endpoint read again: an
answer from the cache or the stored documents must equal the document built
afresh with both off. That second reading caches every answer again, so each
write meets a world whose every answer is cached. A write that misses a tag of
a document that shows it fails here, whichever document that is, and the
failure names the write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client
from django.test.utils import override_settings

from archive.api.caching import HIT_HEADER
from archive.client_address import forget_all_clients
from archive.models import PersonName
from tests.api.world import World, build_world, cite
from tests.factories import publish_change

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)
    caches["api"].clear()
    forget_all_clients()


def _paths(world: World) -> list[str]:
    paths = ["/api/v1/sources/", "/api/v1/citations/", "/api/v1/sources/history/passages/",
             "/api/v1/sources/novel/passages/", f"/api/v1/passages/{world.passage(world.history, 1).pk}/"]
    for kind, records in {
        "persons": (world.tang, world.matsui, world.sun),
        "units": (world.army74, world.div51),
        "locations": (world.nanjing, world.gate, world.xiaguan),
        "events": (world.order, world.crossing, world.breakout, world.undated),
    }.items():
        paths.append(f"/api/v1/{kind}/")
        paths += [f"/api/v1/{kind}/{record.slug}/" for record in records]
    paths.append("/api/v1/locations/meitan-wharf/")  # a grandchild of Nanjing, shown with its parent's parent
    listed = Client().get("/api/v1/citations/?fiction=include&page_size=200").json()["results"]
    paths += [f"/api/v1/citations/{citation['id']}/" for citation in listed]
    return [path + query for path in paths for query in ("", "?fiction=include")]


def _rename_nanjing(world: World) -> None:
    publish_change(world.nanjing, name="金陵城")


WRITES: dict[str, Callable[[World], Any]] = {
    "event title": lambda w: publish_change(w.order, title="唐生智下令全军撤退"),
    "person name": lambda w: publish_change(w.tang, name="唐孟潇"),
    "unit name": lambda w: publish_change(w.army74, name="第七十四軍"),
    "place name, shown by children and grandchildren": _rename_nanjing,
    "participation role": lambda w: publish_change(w.tang_order, role="witness"),
    "post title": lambda w: publish_change(w.tang_post, title="卫戍司令长官"),
    "citation claim": lambda w: publish_change(w.history_cite, claim="gave the order at dusk"),
    "new citation": lambda w: cite(w.passage(w.history, 2), "第七十四军", unit=w.div51, claim="a new claim"),
    "event place added": lambda w: w.crossing.locations.add(w.gate),
    "person alias": lambda w: PersonName.objects.create(person=w.sun, name="孙百里"),
    # A record's other fields: the records that nest it show only its slug and name, so only its own
    # documents change (`archive.freshness.tags.saved`); any document that showed more would fail here.
    "person's other fields": lambda w: publish_change(w.tang, description="卫戍司令长官", birth="1890",
                                                      side="japanese"),
    "unit's other fields": lambda w: publish_change(w.div51, echelon="brigade", description="师"),
    "place's other fields": lambda w: publish_change(w.xiaguan, kind="city", description="江边"),
    "event's other fields": lambda w: publish_change(w.order, kind="battle", date_text="12日17时",
                                                     description="撤退令"),
    # Marked historical, a fictional person is no longer fiction: the documents that hid them show them.
    "fictional person marked historical": lambda w: publish_change(w.sun, marked_historical=True),
    # Cited from a history, an event told only by the novel is no longer fiction: every document that nests it
    # changes (a citation's save touches them only when it changes its record's flag).
    "fictional event cited from a history": lambda w: cite(w.passage(w.history, 2), "挹江门", event=w.breakout,
                                                           claim="broke out through the gate"),
}


def test_no_cached_answer_outlives_a_write() -> None:
    """Each write in turn, on the world as the writes before it left it, with every answer cached before it."""
    world = build_world()
    paths = _paths(world)
    client = Client()
    for path in paths:
        assert client.get(path).status_code == 200, path
    failures: dict[str, dict[str, Any]] = {}
    for name, write in WRITES.items():
        forget_all_clients()  # each write's reads start with a whole allowance
        write(world)
        # Served as a reader gets it; this also caches every answer again before the next write.
        served = {path: client.get(path) for path in paths}
        # Built afresh: neither the response cache nor the stored documents, which a missed tag leaves stale alike.
        with override_settings(API_CACHE_SECONDS=0, API_STORED_DOCUMENTS=False):
            built = {path: client.get(path) for path in paths}
        refused = [path for path in paths if served[path].status_code != 200 or built[path].status_code != 200]
        stale = [path for path in paths if served[path].content != built[path].content]
        hits = [response.get(HIT_HEADER) == "hit" for response in served.values()]
        # The write left some documents cached (it did not invalidate everything) and made some stale.
        if refused or stale or not any(hits) or all(hits):
            failures[name] = {"refused": refused, "stale": stale, "cached": f"{sum(hits)} of {len(hits)}"}
    assert failures == {}
