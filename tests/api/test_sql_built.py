"""A document built by SQL (`archive.api.sql_built`) is the very text the serializers' build stores.

PostgreSQL only: every kind of stored document, in both fiction modes, on the
shipped collection and on synthetic data with statements of every rank,
compared byte for byte with the serializers' build, with its Last-Modified
and its fiction flag; keys of records the API does not show are left out by
both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from rest_framework.renderers import JSONRenderer

from archive import selectors
from archive.api import sql_built, stored
from archive.api.caching import HIT_HEADER
from archive.api.pagination import ArchivePagination
from archive.api.stored_answers import BUILT, STORED
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
from archive.models.document_versions import EVERYTHING
from archive.selectors import FictionMode
from bench import synthetic
from tests.shipped import collection_loaded
from tests.stated_facts import state_facts

pytestmark = pytest.mark.django_db
SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "sources"


@pytest.fixture(autouse=True)
def _postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("documents are built in SQL on PostgreSQL only")


def _keys(per_kind: int) -> dict[str, list[Any]]:
    """Keys of every kind: records spread over the table, fictional ones, drafts and a key that names nothing."""
    keys: dict[str, list[Any]] = {}
    for kind, model in (("person", Person), ("unit", Unit), ("location", Location), ("event", Event)):
        every = model.objects.order_by("slug")
        slugs = list(every.values_list("slug", flat=True))[:: max(1, every.count() // per_kind)]
        slugs += list(every.filter(fictional=True).values_list("slug", flat=True)[:5])
        slugs += list(every.exclude(status=Status.APPROVED).values_list("slug", flat=True)[:2])
        keys[kind] = [*dict.fromkeys(slugs), "no-such-record"]
    keys["source"] = [*Source.objects.values_list("slug", flat=True), "no-such-source"]
    passages = Passage.objects.order_by("id")
    ids = list(passages.values_list("id", flat=True))[:: max(1, passages.count() // per_kind)]
    ids += list(passages.filter(citations__status=Status.APPROVED).values_list("id", flat=True)[:per_kind])
    ids += list(passages.filter(quotes__isnull=False).values_list("id", flat=True)[:3])
    ids += list(passages.filter(source__is_fiction=True, citations__isnull=False).values_list("id", flat=True)[:5])
    keys["passage"] = [*dict.fromkeys(ids), 999999999]
    cited = Citation.objects.order_by("id")
    ids = list(cited.values_list("id", flat=True))[:: max(1, cited.count() // per_kind)]
    for target in ("person", "unit", "location", "event", "post", "participation"):
        ids += list(cited.filter(**{f"{target}__isnull": False}).values_list("id", flat=True)[:3])
    ids += list(cited.exclude(status=Status.APPROVED).values_list("id", flat=True)[:2])
    ids += list(selectors.citations_with_targets().filter(passage__source__is_fiction=True)
                .values_list("id", flat=True)[:3])
    keys["citation"] = [*dict.fromkeys(ids), 999999999]
    return keys


def _stored(kind: str, keys: list[Any], mode: FictionMode) -> dict[str, tuple[str, int | None, bool, int, int]]:
    """Build the documents of `keys`, and answer what was stored of each, by tag."""
    StoredDocument.objects.all().delete()
    built = stored.build(stored.KINDS[kind], keys, mode)
    rows = StoredDocument.objects.filter(variant=stored.KINDS[kind].variant(mode))
    assert {row.tag for row in rows} == set(built)
    return {row.tag: (row.body, row.last_modified, row.fictional, row.tag_version, row.everything_version)
            for row in rows}


def _first_difference(ours: str, theirs: str) -> tuple[str, str]:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
              min(len(ours), len(theirs)))
    return ours[max(0, at - 120):at + 80], theirs[max(0, at - 120):at + 80]


def _same_as_the_serializers(per_kind: int) -> int:
    # Versions besides 0, so that the documents' versions are compared too.
    persons = Person.objects.values_list("slug", flat=True)[:40]
    DocumentVersion.objects.bump([EVERYTHING, *(f"person:{slug}" for slug in persons)])
    compared = 0
    for kind, keys in _keys(per_kind).items():
        for mode in (FictionMode.EXCLUDE, FictionMode.INCLUDE):
            by_sql = _stored(kind, keys, mode)
            with override_settings(API_SQL_DOCUMENTS=False):
                by_serializers = _stored(kind, keys, mode)
            assert set(by_sql) == set(by_serializers), (kind, mode)
            for tag, document in by_serializers.items():
                assert by_sql[tag] == document, (tag, mode, *_first_difference(by_sql[tag][0], document[0]))
            compared += len(by_serializers)
    return compared


def test_sql_builds_the_serializers_documents_of_synthetic_data() -> None:
    synthetic.generate(passages=2000, seed=9, seed_dir=SEEDS, source_sizes=(200, 400))
    state_facts()
    assert _same_as_the_serializers(per_kind=20) > 200


def test_sql_builds_the_serializers_documents_of_the_shipped_collection() -> None:
    with collection_loaded():
        assert _same_as_the_serializers(per_kind=30) > 200


def test_sql_is_used_on_postgresql_and_can_be_turned_off() -> None:
    assert sql_built.available("default")
    with override_settings(API_SQL_DOCUMENTS=False):
        assert not sql_built.available("default")
        assert sql_built.documents("person", ["x"], FictionMode.EXCLUDE, "default") is None


LISTS = {"person": "persons", "unit": "units", "location": "locations", "event": "events", "source": "sources",
         "citation": "citations"}


def _page_answers(paths: list[str]) -> dict[str, tuple[int, bytes, str | None, str | None]]:
    """Each path's answer (status, body, Last-Modified, X-Archive-Cache) and nothing stored before it."""
    answers = {}
    for path in paths:
        StoredDocument.objects.all().delete()
        response = Client().get(path)
        answers[path] = (response.status_code, response.content, response.get("Last-Modified"),
                         response.get(HIT_HEADER))
    return answers


def test_sql_builds_the_views_pages_of_every_list(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    synthetic.generate(passages=2000, seed=9, seed_dir=SEEDS, source_sizes=(200, 400))
    state_facts()
    paths, existing = [], 0
    for path in LISTS.values():
        count = Client().get(f"/api/v1/{path}/").json()["count"]
        pages = -(-count // ArchivePagination.page_size)
        paths += [f"/api/v1/{path}/", f"/api/v1/{path}/?page=2", f"/api/v1/{path}/?page_size=50&page={pages}",
                  f"/api/v1/{path}/?page={pages + 1}"]
        existing += 3 if pages >= 2 else 2
    by_sql = _page_answers(paths)
    with override_settings(API_SQL_DOCUMENTS=False):
        by_view = _page_answers(paths)
    built = 0
    for path in paths:
        status, body, modified, way = by_sql[path]
        assert (status, body, modified) == by_view[path][:3], (path, *_first_difference(body.decode(),
                                                                                         by_view[path][1].decode()))
        assert by_view[path][3] != BUILT
        if status == 200:
            assert way == BUILT, path
            built += 1
        else:
            assert status == 404 and way is None, path  # past the end: the view answers
    assert built == existing
    assert sum(1 for status, *_ in by_view.values() if status == 200) > len(LISTS) * 2


def test_a_built_page_is_stored_whole_and_served_as_stored(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    with collection_loaded():
        first = Client().get("/api/v1/events/?page=2")
        assert first[HIT_HEADER] == BUILT
        stored_page = StoredDocument.objects.get(tag="event:list", variant="page:2:p")
        again = Client().get("/api/v1/events/?page=2")
        assert again[HIT_HEADER] == STORED and again.content == first.content
        # Its members' documents are not stored one by one: the page is.
        assert not StoredDocument.objects.filter(tag__startswith="event:").exclude(pk=stored_page.pk).exists()
        # A write that touched only the list (a record published): the view reads its records' documents,
        # most of them current, rather than building them all again.
        DocumentVersion.objects.bump(["event:list"])
        by_view = Client().get("/api/v1/events/?page=2")
        assert by_view.get(HIT_HEADER) not in (BUILT, STORED) and by_view.content == first.content
        # A write that touched everything: built whole again.
        DocumentVersion.objects.bump([EVERYTHING])
        rebuilt = Client().get("/api/v1/events/?page=2")
        assert rebuilt[HIT_HEADER] == BUILT and rebuilt.content == first.content


@pytest.mark.parametrize("value", [0.00001, 1e16, -2.5e-7, 2**63 - 1, -(2**63), "\u2028 and \u2029", "e-mail",
                                   "\x00origin/api/v1/", "控制\x01\x1f", 32.0894, True, None])
def test_documents_from_postgresql_are_written_as_the_renderer_writes(value: object) -> None:
    """Floats in exponent form, 64-bit integers, the lines the renderer escapes, control characters."""
    # As PostgreSQL writes JSON: spaces after its colons and commas, and a sign in a float's exponent.
    as_postgresql_writes = json.dumps({"v": value, "list": [value, {"k": value}]}, separators=(", ", " : "),
                                      ensure_ascii=False)
    expected = JSONRenderer().render({"v": value, "list": [value, {"k": value}]}).decode()
    assert sql_built.rendered(as_postgresql_writes) == expected


def test_a_page_past_any_list_is_the_views_404(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    for number in (10**6, 10**30):
        response = Client().get(f"/api/v1/persons/?page={number}")
        assert response.status_code == 404 and response.get(HIT_HEADER) is None, number
