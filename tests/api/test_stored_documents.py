"""The stored documents (`archive.api.stored`) are exactly what the serializers give.

Every JSON endpoint is asked three times: with the stored documents, once
when they must be built and once when they are read back, and with the
serializers alone (`API_STORED_DOCUMENTS` off). The three answers must be
the same bytes, in every fiction mode, on SQLite and PostgreSQL: here on the
test world, in `test_stored_collections` on the shipped collection and on a
synthetic archive.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from archive import selectors
from archive.api import stored
from archive.client_address import forget_all_clients
from archive.models import (
    Citation,
    DocumentVersion,
    Event,
    Location,
    Passage,
    Person,
    Source,
    Status,
    StoredDocument,
    Unit,
)
from archive.services import decisions, records, revisions
from archive.services import review as curation
from tests.api.world import World, cite
from tests.factories import approved, in_status, publish_change, reviewer_pair
from tests.json_difference import first_difference

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
MODES: tuple[dict[str, str], ...] = ({}, {"fiction": "include"}, {"fiction": "exclude"}, {"fiction": "only"})


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


# The headers that describe the document: a stored answer must give the same as the serializers'.
DOCUMENT_HEADERS = ("Content-Type", "ETag", "Last-Modified", "Vary")


def _answer(path: str, params: dict[str, Any], **extra: Any) -> tuple[int, bytes, dict[str, str | None]]:
    forget_all_clients()  # these tests ask for thousands of documents as one client
    response = Client().get(path, params, **extra)
    return response.status_code, bytes(response.content), {name: response.get(name) for name in DOCUMENT_HEADERS}


def _get(path: str, params: dict[str, Any], **extra: Any) -> bytes:
    status, content, _ = _answer(path, params, **extra)
    assert status == 200, (path, params, content[:300])
    return content


def assert_same_documents(path: str, params: dict[str, Any] | None = None) -> None:
    """The answer built and stored, then read back, equals the serializers' answer, field by field and byte for byte."""
    params = params or {}
    built = _answer(path, params)
    read_back = _answer(path, params)
    with override_settings(API_STORED_DOCUMENTS=False):
        expected = _answer(path, params)
    for status, answer, headers in (built, read_back):
        assert status == expected[0], (path, params, status, answer[:300])
        difference = first_difference(json.loads(answer), json.loads(expected[1]))
        assert difference is None, (path, params, difference)
        assert answer == expected[1], (path, params)
        assert headers == expected[2], (path, params)


def every_path(modes: tuple[dict[str, str], ...] = MODES, *, details: tuple[dict[str, str], ...] = MODES,
               each: int | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """The JSON documents of the archive as it stands: lists (pages) in `modes`, details in `details`.

    `each` bounds the details of each kind (the first by slug or id), for a large archive.
    """
    for mode in modes:
        for kind in ("sources", "persons", "units", "locations", "events", "citations"):
            yield f"{BASE}/{kind}/", {**mode, "page_size": 2, "page": 2}
            yield f"{BASE}/{kind}/", {**mode, "page_size": 200}
        for slug in Source.objects.approved().values_list("slug", flat=True):
            yield f"{BASE}/sources/{slug}/passages/", {**mode, "page_size": 200}
    for mode in details:
        for model, kind in ((Person, "persons"), (Unit, "units"), (Location, "locations"), (Event, "events"),
                            (Source, "sources")):
            for slug in model.objects.approved().order_by("slug").values_list("slug", flat=True)[:each]:
                yield f"{BASE}/{kind}/{slug}/", mode
    for pk in selectors.citations().order_by("pk").values_list("pk", flat=True)[:each]:
        yield f"{BASE}/citations/{pk}/", {}
    for pk in Passage.objects.filter(source__status=Status.APPROVED).order_by("pk").values_list("pk", flat=True)[
            :each or 300]:
        yield f"{BASE}/passages/{pk}/", {}
        yield f"{BASE}/passages/{pk}/", {"fiction": "exclude"}


def test_every_document_of_the_test_world_is_the_serializers(world: World) -> None:
    paths = list(every_path())
    assert len(paths) > 100
    for path, params in paths:
        assert_same_documents(path, params)
    # Filters choose the records; the documents are the stored ones.
    for params in ({"location": "nanjing"}, {"person": "tang-shengzhi", "after": "1937-12-01"},
                   {"source": "history"}, {"fiction": "include", "unit": "army-74"}):
        assert_same_documents(f"{BASE}/events/", params)
    assert_same_documents(f"{BASE}/citations/", {"source": "history"})
    assert StoredDocument.objects.filter(variant="include").exists()
    assert StoredDocument.objects.filter(variant="exclude").exists()


def test_documents_carry_the_origin_of_each_request(world: World, settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["testserver", "archive.example.org"]
    path = f"{BASE}/persons/tang-shengzhi/"
    first = json.loads(_get(path, {}))
    other = json.loads(_get(path, {}, HTTP_HOST="archive.example.org"))
    assert first["url"] == "http://testserver/api/v1/persons/tang-shengzhi/"
    assert other["url"] == "http://archive.example.org/api/v1/persons/tang-shengzhi/"
    assert all(c["url"].startswith("http://archive.example.org/") for c in other["citations"])
    assert b"\\u0000" not in _get(path, {})


def test_a_write_rebuilds_the_documents_that_show_it_and_leaves_the_others(world: World) -> None:
    tang = f"{BASE}/persons/tang-shengzhi/"
    matsui = f"{BASE}/persons/matsui-iwane/"
    _get(tang, {})
    _get(matsui, {})
    kept = StoredDocument.objects.get(tag="person:matsui-iwane", variant="exclude").tag_version
    publish_change(world.tang, description="南京卫戍司令长官。")
    assert json.loads(_get(tang, {}))["description"] == "南京卫戍司令长官。"
    assert_same_documents(tang)
    with CaptureQueriesContext(connection) as captured:
        _get(matsui, {})
    assert len(captured) == 1  # its current document alone: not built again, its record not read
    assert StoredDocument.objects.get(tag="person:matsui-iwane", variant="exclude").tag_version == kept


def test_a_published_record_brings_its_citations_into_the_passages_that_hold_them(world: World) -> None:
    """A passage shows the citations of visible records only, so a record's status reaches the passage's document."""
    passage = world.passage(world.history, 1)
    path = f"{BASE}/passages/{passage.pk}/"
    before = [c["id"] for c in json.loads(_get(path, {}))["citations"]]
    person = in_status(Person(slug="new-witness", name="新证人"), Status.IN_REVIEW)
    start = passage.text.index("南京")
    citation = approved(Citation(slug="new-witness-cite", passage=passage, quote="南京", start=start, end=start + 2,
                                 claim="c", person=person))
    assert json.loads(_get(path, {}))["citations"] == json.loads(_get(path, {}))["citations"]
    assert [c["id"] for c in json.loads(_get(path, {}))["citations"]] == before
    curation.approve(person, by=User.objects.get(username="factory-reviewer"), shown=decisions.record_pin(person))
    assert citation.pk in [c["id"] for c in json.loads(_get(path, {}))["citations"]]
    assert_same_documents(path)


def test_pruning_removes_only_the_documents_that_can_no_longer_be_read(world: World) -> None:
    brief = approved(Person(slug="brief", name="短"))
    for slug in ("brief", "tang-shengzhi", "matsui-iwane"):
        _get(f"{BASE}/persons/{slug}/", {})
    curator, reviewer = reviewer_pair()
    revision = records.record_delete(record=brief, by=curator)
    assert revision is not None
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    kept = set(StoredDocument.objects.exclude(tag="person:brief").values_list("tag", "variant"))
    assert stored.prune() == 1
    assert set(StoredDocument.objects.values_list("tag", "variant")) == kept
    for slug in ("tang-shengzhi", "matsui-iwane"):  # still current: read without building
        with CaptureQueriesContext(connection) as captured:
            _get(f"{BASE}/persons/{slug}/", {})
        assert len(captured) == 1
    DocumentVersion.objects.bump_everything()
    assert stored.prune() == len(kept)
    assert not StoredDocument.objects.exists()


def test_a_bulk_write_that_bumps_everything_rebuilds_every_document(world: World) -> None:
    path = f"{BASE}/events/"
    _get(path, {})
    Event.objects.filter(slug="retreat-order").update(description="改写")  # around the signals
    DocumentVersion.objects.bump_everything()  # as every bulk path does
    assert "改写" in _get(path, {}).decode()
    assert_same_documents(path)


def test_an_answer_is_given_when_the_store_cannot_be_written(world: World) -> None:
    table = StoredDocument._meta.db_table

    def refuse(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith(f"INSERT INTO {connection.ops.quote_name(table)}"):
            raise DatabaseError("database is locked")
        return execute(sql, params, many, context)

    with override_settings(API_STORED_DOCUMENTS=False):
        expected = _get(f"{BASE}/events/", {})
    with connection.execute_wrapper(refuse):
        assert _get(f"{BASE}/events/", {}) == expected
    assert not StoredDocument.objects.exists()


def test_a_detail_reads_the_variant_of_its_own_nature_whichever_was_stored_first(world: World) -> None:
    """Without `fiction` a record is read in the mode of its nature, known from its document alone."""
    novel = world.passage(world.novel, 1)
    cite(novel, novel.text[:2], person=world.tang)  # approved, so that tang's two readings differ
    assert Person.objects.get(slug="sun-baili").fictional and not Person.objects.get(slug="tang-shengzhi").fictional
    for path in (f"{BASE}/persons/sun-baili/", f"{BASE}/persons/tang-shengzhi/", f"{BASE}/events/breakout/",
                 f"{BASE}/passages/{novel.pk}/"):
        included = _get(path, {"fiction": "include"})
        excluded = _get(path, {"fiction": "exclude"})
        assert included != excluded, path  # else the test could not tell the variants apart
        for first in ("include", "exclude"):
            StoredDocument.objects.all().delete()
            _get(path, {"fiction": first})  # only this variant is stored
            assert_same_documents(path)


def test_a_deleted_record_is_not_served_from_its_document(world: World) -> None:
    brief = approved(Person(slug="brief", name="短"))
    path = f"{BASE}/persons/brief/"
    _get(path, {})
    assert StoredDocument.objects.filter(tag="person:brief").exists()
    curator, reviewer = reviewer_pair()
    revision = records.record_delete(record=brief, by=curator)
    assert revision is not None and _answer(path, {})[0] == 200  # proposed, not yet reviewed: still published
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert _answer(path, {})[0] == 404


def test_indented_json_is_rendered_by_the_serializers(world: World) -> None:
    response = Client().get(f"{BASE}/events/", HTTP_ACCEPT="application/json; indent=2")
    assert response.status_code == 200
    assert b'\n  "count"' in response.content
    assert not StoredDocument.objects.exists()


def test_kinds_cover_every_json_endpoint() -> None:
    assert set(stored.KINDS) == {"person", "unit", "location", "event", "source", "passage", "citation"}
