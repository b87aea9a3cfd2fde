"""A backup restores: export, restore into an empty database, export again gives the same bytes and documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from archive.importing import restore as restore_module
from archive.importing.backup import BACKUP_DIR
from archive.models import Comment, CuratorNote, Event, Person, Revision, RevisionState, Status, Unit
from archive.search import snapshot
from archive.services import decisions, discussion, merges, records, review, revisions
from tests.factories import user
from tests.shipped import collection_loaded

pytestmark = pytest.mark.django_db

DOCUMENTS = [
    "/api/v1/persons/",
    "/api/v1/units/",
    "/api/v1/events/",
    "/api/v1/locations/",
    "/api/v1/citations/",
    "/api/v1/sources/",
]


def _tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _documents(paths: list[str]) -> dict[str, Any]:
    snapshot.clear()
    client = Client()
    answers = {}
    for path in paths:
        response = client.get(path, HTTP_ACCEPT="application/json")
        assert response.status_code == 200, path
        answers[path] = json.loads(response.content)
    return answers


def _curate() -> list[str]:
    """Curated changes through the services; the detail paths of the records they touched."""
    curator, reviewer = user("restore-curator", role="curator"), user("restore-reviewer", role="reviewer")
    user("restore-admin", is_superuser=True, email="admin@example.org")
    # A new record, published by another person.
    added = records.record_create(record=Person(slug="restore-new", name="新人物", description="added"), by=curator)
    review.submit(added, by=curator)
    review.approve(added, by=reviewer, without_evidence="a test of the backup", shown=decisions.record_pin(added))
    # A draft, and a record rejected in review.
    records.record_create(record=Person(slug="restore-draft", name="草稿"), by=curator)
    refused = records.record_create(record=Person(slug="restore-refused", name="退回"), by=curator)
    review.submit(refused, by=curator)
    review.reject(refused, by=reviewer, note="no source names him", shown=decisions.record_pin(refused))
    # A pending revision of a published record.
    changed = Person.objects.approved().order_by("slug").first()
    assert changed is not None
    changed.description = "a pending change"
    assert records.record_update(record=changed, by=curator) is not None
    # A revision rejected.
    unit = Unit.objects.approved().order_by("slug").first()
    assert unit is not None
    unit.description = "refused change"
    refused_change = records.record_update(record=unit, by=curator)
    revisions.reject_revision(
        revision=refused_change, by=reviewer, note="wrong", shown=decisions.revision_pin(refused_change)
    )
    # A merge of two published records, approved.
    twin = records.record_create(record=Person(slug="restore-twin", name="双胞胎"), by=curator)
    review.submit(twin, by=curator)
    review.approve(twin, by=reviewer, without_evidence="a test of the backup", shown=decisions.record_pin(twin))
    revision = merges.merge(survivor=added, duplicate=twin, by=curator)
    assert isinstance(revision, Revision)
    revisions.approve_revision(
        revision=revision, by=reviewer, note="same person", shown=decisions.revision_pin(revision)
    )
    CuratorNote.objects.create(slug="restore-note", model="person", note="checked", created_by=curator)
    # Threads: a comment edited, a record and a change returned with changes requested.
    asked = records.record_create(record=Person(slug="restore-asked", name="待改"), by=curator)
    review.submit(asked, by=curator)
    comment = discussion.comment_add(subject=asked, by=curator, text="named in §3")
    discussion.comment_edit(comment=comment, by=curator, text="named in §4")
    review.request_changes(asked, by=reviewer, note="give his courtesy name", shown=decisions.record_pin(asked))
    other = Unit.objects.approved().order_by("-slug").first()
    assert other is not None and other != unit
    other.description = "a change sent back"
    returned = records.record_update(record=other, by=curator)
    assert returned is not None
    revisions.request_revision_changes(
        revision=returned, by=reviewer, note="which source?", shown=decisions.revision_pin(returned)
    )
    event = Event.objects.approved().order_by("slug").first()
    assert event is not None
    return [f"/api/v1/persons/{added.slug}/", f"/api/v1/persons/{changed.slug}/", f"/api/v1/units/{unit.slug}/",
            f"/api/v1/events/{event.slug}/", "/api/v1/persons/restore-twin/"]


def _empty_database() -> None:
    restore_module._empty_archive("default")
    User.objects.all().delete()
    assert restore_module.present("default") == {}


def test_a_restored_backup_exports_the_same_bytes_and_answers_the_same_documents(tmp_path: Path) -> None:
    with collection_loaded():
        _round_trip(tmp_path)


def _round_trip(tmp_path: Path) -> None:
    details = _curate()
    before = _documents(DOCUMENTS + details[:-1])
    first, second = tmp_path / "first", tmp_path / "second"
    call_command("export_collection", str(first), verbosity=0)
    revisions_before = Revision.objects.count()
    history_before = Person.history.count()
    threads_before = list(Comment.objects.order_by("pk").values_list("pk", "author__username", "kind", "text"))
    comment_history_before = Comment.history.count()
    _empty_database()

    call_command("restore", str(first), verbosity=0)

    call_command("export_collection", str(second), verbosity=0)
    assert _tree(first) == _tree(second)
    assert _documents(DOCUMENTS + details[:-1]) == before
    # The merged duplicate's address still leads to its survivor.
    assert Client().get(details[-1]).status_code == 301
    assert Revision.objects.count() == revisions_before and Person.history.count() == history_before
    assert Revision.objects.filter(state="pending").count() == 1
    assert Revision.objects.filter(state=RevisionState.RETURNED).count() == 1
    assert list(Comment.objects.order_by("pk").values_list("pk", "author__username", "kind", "text")) == threads_before
    assert len(threads_before) == 3 and Comment.history.count() == comment_history_before
    assert Person.objects.get(slug="restore-refused").status == Status.REJECTED
    restored = User.objects.get(username="restore-reviewer")
    assert list(restored.groups.values_list("name", flat=True)) == ["reviewer"]
    assert not restored.has_usable_password()  # passwords never leave the archive
    assert User.objects.get(username="restore-admin").is_superuser
    assert "password" not in (first / BACKUP_DIR / "accounts.jsonl").read_text(encoding="utf-8")
    assert Person.objects.get(slug="restore-new").created_by == User.objects.get(username="restore-curator")


def test_a_restore_into_a_database_with_records_is_refused_unless_asked(tmp_path: Path) -> None:
    curator = user("only-curator", role="curator")
    records.record_create(record=Person(slug="kept", name="留下"), by=curator)
    call_command("export_collection", str(tmp_path / "export"), verbosity=0)
    records.record_create(record=Person(slug="later", name="后来"), by=curator)

    with pytest.raises(CommandError, match=r"already holds records \(2 persons\).*--replace"):
        call_command("restore", str(tmp_path / "export"), verbosity=0)
    assert set(Person.objects.values_list("slug", flat=True)) == {"kept", "later"}

    call_command("restore", str(tmp_path / "export"), "--replace", verbosity=0)
    assert list(Person.objects.values_list("slug", flat=True)) == ["kept"]


def test_a_damaged_backup_is_refused_naming_the_file(tmp_path: Path) -> None:
    curator = user("damage-curator", role="curator")
    records.record_create(record=Person(slug="kept", name="留下"), by=curator)
    call_command("export_collection", str(tmp_path / "export"), verbosity=0)
    damaged = tmp_path / "export" / BACKUP_DIR / "archive.person.jsonl"
    damaged.write_text(damaged.read_text(encoding="utf-8").replace("留下", "改了"), encoding="utf-8")
    _empty_database()

    with pytest.raises(CommandError, match=r"archive\.person\.jsonl is missing or not the file the manifest names"):
        call_command("restore", str(tmp_path / "export"), verbosity=0)
    manifest = tmp_path / "export" / BACKUP_DIR / "manifest.json"
    listed = json.loads(manifest.read_text(encoding="utf-8"))
    listed["files"][0]["file"] = "../../elsewhere.jsonl"
    manifest.write_text(json.dumps(listed), encoding="utf-8")
    with pytest.raises(CommandError, match=r"manifest\.json does not list the backup's files"):
        call_command("restore", str(tmp_path / "export"), verbosity=0)
    assert not Person.objects.exists()
