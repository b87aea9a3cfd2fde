"""A write invalidates the cached documents that show what it wrote, and no others.

Transactional (transaction=True): inside a transaction nothing is cached.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from archive.api.caching import HIT_HEADER
from archive.client_address import forget_all_clients
from archive.models import DocumentVersion, Event, Participation, Person, StoredDocument
from tests.factories import approved, publish_change

# The response cache is what these tests watch, so they go through the views (`without_stored_answers`).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("without_stored_answers")]


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)
    caches["api"].clear()
    forget_all_clients()


def _get(path: str) -> Any:
    response = Client().get(path)
    assert response.status_code == 200, path
    return response


def _hit(path: str) -> bool:
    return _get(path).get(HIT_HEADER) == "hit"


def _built(path: str) -> bytes:
    with override_settings(API_CACHE_SECONDS=0):
        return bytes(_get(path).content)


@pytest.fixture
def world() -> dict[str, Any]:
    event = approved(Event(slug="retreat", title="撤退", kind="movement", date="1937-12-12"))
    other = approved(Event(slug="crossing", title="渡江", kind="movement", date="1937-12-13"))
    participant = approved(Person(slug="tang-shengzhi", name="唐生智"))
    unrelated = approved(Person(slug="song-xilian", name="宋希濂"))
    approved(Participation(slug="tang-retreat", event=event, person=participant, role="commander"))
    return {"event": event, "other": other, "participant": participant, "unrelated": unrelated}


PATHS = {
    "event": "/api/v1/events/retreat/",
    "events": "/api/v1/events/",
    "other event": "/api/v1/events/crossing/",
    "participant": "/api/v1/persons/tang-shengzhi/",
    "persons": "/api/v1/persons/",
    "unrelated person": "/api/v1/persons/song-xilian/",
}


def test_a_write_to_an_event_invalidates_its_documents_and_the_records_that_nest_it(world: dict[str, Any]) -> None:
    before = {name: _get(path).content for name, path in PATHS.items()}
    assert all(_hit(path) for path in PATHS.values())  # every one stored

    publish_change(world["event"], title="自南京撤退")

    stale = {name for name, path in PATHS.items() if not _hit(path)}
    # The event, its list, and the person whose participation shows its title (and the persons' list).
    assert stale == {"event", "events", "participant", "persons"}
    for name in stale:
        assert _get(PATHS[name]).content == _built(PATHS[name]) != before[name], name
    assert "自南京撤退" in _get(PATHS["participant"]).content.decode()
    # The unrelated person and the other event are still the stored answers.
    assert _get(PATHS["unrelated person"]).content == before["unrelated person"]
    assert _get(PATHS["other event"]).content == before["other event"]


def test_a_new_participation_reaches_the_event_and_the_person(world: dict[str, Any]) -> None:
    for path in PATHS.values():
        _get(path)
    approved(Participation(slug="song-retreat", event=world["event"], person=world["unrelated"], role="commander"))
    for name in ("event", "events", "unrelated person", "persons"):
        assert not _hit(PATHS[name]), name
        assert _get(PATHS[name]).content == _built(PATHS[name]), name
    assert _hit(PATHS["other event"])
    assert _hit(PATHS["participant"])


def test_a_deleted_event_leaves_its_participants_documents(world: dict[str, Any]) -> None:
    for path in PATHS.values():
        _get(path)
    Event.objects.filter(pk=world["other"].pk).get().delete()
    assert Client().get(PATHS["other event"]).status_code == 404
    assert not _hit(PATHS["events"])
    assert "渡江" not in _get(PATHS["events"]).content.decode()
    assert _hit(PATHS["participant"])


def test_a_committed_write_refreshes_the_stored_documents_it_touched(world: dict[str, Any]) -> None:
    """Once a change is published, the stored documents that show it are built again before anyone reads them."""
    with override_settings(API_CACHE_SECONDS=0):
        for path in PATHS.values():
            _get(path)
    stored_before = dict(StoredDocument.objects.values_list("tag", "tag_version"))
    assert {"event:retreat", "person:tang-shengzhi", "person:song-xilian"} <= set(stored_before)

    publish_change(world["event"], title="自南京撤退")

    current = DocumentVersion.objects.versions(["event:retreat", "person:tang-shengzhi", "person:song-xilian"])
    after = dict(StoredDocument.objects.values_list("tag", "tag_version"))
    # The event and its participant were built again under their new versions, by the write itself.
    for tag in ("event:retreat", "person:tang-shengzhi"):
        assert after[tag] == current[tag] != stored_before[tag], tag
    assert "自南京撤退" in StoredDocument.objects.get(tag="person:tang-shengzhi", variant="exclude").body
    # The unrelated person was left as it was.
    assert after["person:song-xilian"] == stored_before["person:song-xilian"]
    with override_settings(API_CACHE_SECONDS=0), CaptureQueriesContext(connection) as captured:
        _get(PATHS["participant"])
    assert not any("INSERT" in query["sql"] for query in captured.captured_queries)


def test_a_refresh_that_fails_after_the_commit_leaves_the_write_done(world: dict[str, Any],
                                                                     monkeypatch: Any) -> None:
    from archive.api import stored

    def broken(tags: Any, **kwargs: Any) -> int:
        raise RuntimeError("serializer broke")

    monkeypatch.setattr(stored, "refresh", broken)
    changed = publish_change(world["event"], title="自南京撤退")
    assert changed.title == "自南京撤退"
    # The stale document is never read: its reader builds it.
    with override_settings(API_CACHE_SECONDS=0):
        assert "自南京撤退" in _get(PATHS["event"]).content.decode()


def _versions() -> dict[str, int]:
    return dict(DocumentVersion.objects.values_list("tag", "version"))


def test_writes_that_change_nothing_public_bump_nothing(world: dict[str, Any]) -> None:
    """A draft, its submission, a pending revision and a draft source's passages are seen by no document."""
    from archive.services import records
    from tests.factories import in_status, source_with_text, user

    before = _versions()
    draft = in_status(Event(slug="draft-crossing", title="渡江", kind="movement", date="1937-12-13"), "in_review")
    in_status(Participation(slug="draft-song", event=world["event"], person=world["unrelated"], role="commander"),
              "draft")
    source_with_text("唐生智于12日傍晚5点召集会议。", status="draft")
    editor = user("invalidation-editor", role="curator")
    fresh = Event.objects.get(pk=world["event"].pk)
    fresh.title = "自南京撤退"
    assert records.record_update(record=fresh, by=editor) is not None  # a revision waits for review
    assert _versions() == before
    for path in PATHS.values():
        _get(path)
    assert all(_hit(path) for path in PATHS.values())

    # Publishing the draft is a public change: its list is stale, its neighbours are not.
    approved(draft)
    assert not _hit(PATHS["events"])
    assert _hit(PATHS["participant"])
    assert _versions() != before
