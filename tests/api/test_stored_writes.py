"""What reading a stored document may write, and when a write's documents are rebuilt.

A slow builder never overwrites a document built after it under newer versions; the documents a
request's writes touched are rebuilt after its response, not inside it. Workers that miss the same
document at once build it once: tests/api/test_single_flight.py; a read from a replica writes
nothing: tests/ops/test_replicas.py, against a real standby.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.db import DatabaseError, close_old_connections
from django.test import Client

from archive.api import stored
from archive.freshness.signals import bulk
from archive.models import DocumentVersion, Person, StoredDocument
from archive.selectors import FictionMode
from tests.api.world import World
from tests.factories import approved, publish_change

BASE = "/api/v1"
TANG = f"{BASE}/persons/tang-shengzhi/"


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


def _description(path: str) -> str:
    response = Client().get(path)
    assert response.status_code == 200
    return str(json.loads(response.content)["description"])


@pytest.mark.django_db
def test_a_builder_that_read_before_a_write_never_overwrites_the_document_built_after_it(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    kind = stored.KINDS["person"]
    versions_before = DocumentVersion.objects.versions([kind.tag("tang-shengzhi"), "*"])
    publish_change(world.tang, description="南京卫戍司令长官。")
    assert _description(TANG) == "南京卫戍司令长官。"
    newer = StoredDocument.objects.get(tag="person:tang-shengzhi", variant="exclude")

    # A builder that read the versions before the write stores what it built under them: refused.
    monkeypatch.setattr(DocumentVersion.objects, "versions", lambda tags, using=None: versions_before)
    stored.build(kind, ["tang-shengzhi"], FictionMode.EXCLUDE)
    kept = StoredDocument.objects.get(tag="person:tang-shengzhi", variant="exclude")
    assert (kept.tag_version, kept.body) == (newer.tag_version, newer.body)
    monkeypatch.undo()
    assert _description(TANG) == "南京卫戍司令长官。"


@pytest.mark.django_db
def test_the_documents_a_request_wrote_are_rebuilt_after_its_response(
        world: World, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any) -> None:
    _description(TANG)  # stored
    refreshed: list[set[str]] = []
    real_refresh = stored.refresh
    monkeypatch.setattr(stored, "refresh", lambda tags, **kw: refreshed.append(set(tags)) or real_refresh(tags, **kw))

    # As a server runs a request (without closing the test's connection, as Django's test client does).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        request_started.send(sender=None)
        with django_capture_on_commit_callbacks(execute=True):
            publish_change(world.tang, description="战后回忆。")
        assert refreshed == []  # the writer's request built nothing
        request_finished.send(sender=None)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    assert len(refreshed) == 1 and "person:tang-shengzhi" in refreshed[0]
    current = StoredDocument.objects.get(tag="person:tang-shengzhi", variant="exclude")
    assert "战后回忆。" in current.body
    # Outside a request (a command, a shell) the refresh follows the commit at once.
    with django_capture_on_commit_callbacks(execute=True):
        publish_change(world.tang, description="再改。")
    assert len(refreshed) == 2


@pytest.mark.django_db
def test_a_committed_write_leaves_no_stale_document_behind(
        world: World, django_capture_on_commit_callbacks: Any) -> None:
    for path in (TANG, f"{BASE}/persons/", f"{BASE}/persons/?page_size=2"):
        assert Client().get(path).status_code == 200
    assert StoredDocument.objects.filter(tag="person:list").exists()  # the lists' stored pages

    with django_capture_on_commit_callbacks(execute=True):
        publish_change(world.tang, description="南京卫戍司令长官。")

    # The person's document was rebuilt; the pages of the list it changed are gone until read again.
    assert StoredDocument.objects.filter(tag="person:tang-shengzhi").exists()
    assert not StoredDocument.objects.filter(tag="person:list").exists()
    assert stored.prune() == 0  # nothing stale was left
    assert "南京卫戍司令长官。" in Client().get(f"{BASE}/persons/").content.decode()


@pytest.mark.django_db
def test_a_write_that_touches_everything_empties_the_store_of_what_it_made_stale(
        world: World, django_capture_on_commit_callbacks: Any) -> None:
    assert Client().get(TANG).status_code == 200 and StoredDocument.objects.exists()
    with django_capture_on_commit_callbacks(execute=True), bulk():  # as a load does: `*` bumped at its end
        approved(Person(slug="loaded", name="载入者"))
    assert not StoredDocument.objects.exists()


@pytest.mark.django_db
def test_a_reader_that_cannot_wait_for_other_builders_still_gets_its_answer(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(alias: str, names: list[str]) -> None:
        raise DatabaseError("database is locked")

    monkeypatch.setattr(stored, "_wait_for_other_builders", busy)
    assert _description(TANG) == world.tang.description


@pytest.mark.django_db
def test_a_draft_saved_reads_no_row_for_the_readers_and_bumps_nothing() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from archive.models import Citation, Passage
    from archive.services import records
    from tests.factories import cite, source_with_text, user

    curator = user("draft-writer", role="curator")
    draft = cite(Passage.objects.get(source=source_with_text("唐生智离开司令部。\n"), seq=1), "唐生智",
                 status="draft", person=approved(Person(slug="tang", name="唐生智", side="chinese")))
    versions = dict(DocumentVersion.objects.values_list("tag", "version"))
    draft = Citation.objects.get(pk=draft.pk)
    draft.claim = "named here, and leaves"
    with CaptureQueriesContext(connection) as saved:
        records.record_update(record=draft, by=curator)
    reads = [q["sql"] for q in saved.captured_queries
             if q["sql"].startswith("SELECT") and 'FROM "archive_citation"' in q["sql"]]
    # The service's two checks (is it published? does it still exist?); the freshness receivers read no row.
    assert len(reads) == 2 and all(sql.startswith('SELECT 1 AS "a"') for sql in reads), reads
    assert dict(DocumentVersion.objects.values_list("tag", "version")) == versions
    assert Citation.objects.get(pk=draft.pk).claim == "named here, and leaves"


@pytest.mark.django_db
def test_a_published_change_reads_the_row_as_stored_by_its_key_alone() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from archive.models import Citation, Passage
    from tests.factories import cite, source_with_text

    citation = cite(Passage.objects.get(source=source_with_text("唐生智离开司令部。\n"), seq=1), "唐生智",
                    person=approved(Person(slug="tang", name="唐生智", side="chinese")))
    before = dict(DocumentVersion.objects.values_list("tag", "version"))
    with CaptureQueriesContext(connection) as published:
        publish_change(citation, claim="named here, and leaves")
    rows = [q["sql"] for q in published.captured_queries
            if q["sql"].startswith('SELECT "archive_citation"."id"') and q["sql"].endswith("LIMIT 1")]
    # The row as stored (what the documents showed before) is read, and without the default order's joins.
    assert rows and all("JOIN" not in sql for sql in rows), rows
    assert Citation.objects.get(pk=citation.pk).claim == "named here, and leaves"
    after = dict(DocumentVersion.objects.values_list("tag", "version"))
    assert after.get(f"citation:{citation.pk}", 0) > before.get(f"citation:{citation.pk}", 0)


@pytest.mark.django_db
def test_a_record_saved_touches_what_nests_it_only_when_what_they_show_of_it_changes(world: World) -> None:
    def bumped(**changes: Any) -> set[str]:
        before = dict(DocumentVersion.objects.values_list("tag", "version"))
        publish_change(world.sun, **changes)
        after = dict(DocumentVersion.objects.values_list("tag", "version"))
        return {tag for tag, version in after.items() if before.get(tag) != version}

    own = {"person:list", "person:sun-baili"}
    assert bumped(description="突围者") == own
    # Marked historical, the person is no longer fiction: the documents that nest them may show them now.
    assert bumped(marked_historical=True) > own | {"event:breakout"}
    assert bumped(name="孙百里") > own | {"event:breakout"}


@pytest.mark.django_db
def test_a_citation_saved_touches_what_nests_its_record_only_when_the_records_fiction_changes(world: World) -> None:
    from archive.models import Citation
    from tests.api.world import cite

    def bumped(quote: str, **target: Any) -> tuple[set[str], Citation]:
        before = dict(DocumentVersion.objects.values_list("tag", "version"))
        citation = cite(world.passage(world.history, 2), quote, claim="named here", **target)
        after = dict(DocumentVersion.objects.values_list("tag", "version"))
        return {tag for tag, version in after.items() if before.get(tag) != version}, citation

    passage = world.passage(world.history, 2)
    shared = {f"passage:{passage.pk}", "source:history:passages", "citation:list"}
    # Tang is cited from the history already: the new citation changes his own documents, not those that nest him.
    touched, citation = bumped("第七十四军", person=world.tang)
    assert touched == shared | {f"citation:{citation.pk}", "person:tang-shengzhi", "person:list"}
    # Sun was told only by the novel: cited from the history, he is no longer fiction, and the documents that
    # hid him (his event's, among them) show him now.
    assert Person.objects.get(pk=world.sun.pk).fictional
    touched, citation = bumped("挹江门", person=world.sun)
    assert not Person.objects.get(pk=world.sun.pk).fictional
    assert touched > shared | {f"citation:{citation.pk}", "person:sun-baili", "person:list", "event:breakout"}
