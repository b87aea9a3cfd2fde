"""Releases: numbered snapshots of what is published, a changelog of what changed, files that prove themselves."""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from archive.db import release_triggers
from archive.importing import restore
from archive.importing.releases import make_release
from archive.models import Location, Person, Release, ReleaseFile
from archive.services import decisions, records, revisions
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

BASE = "https://testserver"  # a host the tests' archive answers to


def _file(release: Release, name: str) -> bytes:
    return bytes(ReleaseFile.objects.get(release=release, name=name).content)


@pytest.fixture
def published() -> dict[str, object]:
    author = user("rel-author", role="curator", first_name="Lin", last_name="Wang")
    reviewer = user("rel-reviewer", role="reviewer", first_name="Mei", last_name="Chen")
    tang = approved(Person(slug="tang", name="唐生智", side="chinese"), author=author, reviewer=reviewer)
    place = approved(Location(slug="yijiangmen", name="挹江门", kind="gate", latitude=32.08, longitude=118.75),
                     author=author, reviewer=reviewer)
    source = source_with_text("唐生智离开司令部。\n\n部队向挹江门撤退。\n", slug="hist")
    cite(source.passages.get(seq=2), "挹江门", location=place)
    records.record_create(record=Person(slug="draft-only", name="草稿"), by=author)
    return {"author": author, "reviewer": reviewer, "tang": tang}


def test_a_release_holds_what_is_published_with_checksums_and_its_contributors(published: dict) -> None:
    release = make_release(by="operator", base_url=BASE)

    assert release.number == 1
    sums = _file(release, "SHA256SUMS").decode()
    names = set(ReleaseFile.objects.filter(release=release).values_list("name", flat=True))
    assert names == {"collection.zip", "sources.csl.json", "locations.geojson", "tei/hist.xml", "CHANGELOG.md",
                     "CITATION.cff", "SHA256SUMS"}
    for stored in ReleaseFile.objects.filter(release=release):
        assert hashlib.sha256(bytes(stored.content)).hexdigest() == stored.sha256
        if stored.name != "SHA256SUMS":
            assert f"{stored.sha256}  {stored.name}\n" in sums
    collection = zipfile.ZipFile(io.BytesIO(_file(release, "collection.zip")))
    people = json.loads(collection.read("02_people.json"))
    assert [row["fields"]["slug"] for row in people if row["model"] == "archive.person"] == ["tang"]
    assert "backup/manifest.json" not in collection.namelist()  # a release publishes, it is not a backup
    features = json.loads(_file(release, "locations.geojson"))["features"]
    assert [f["id"] for f in features] == ["yijiangmen"]
    assert features[0]["properties"]["url"].startswith(BASE)
    assert json.loads(_file(release, "sources.csl.json"))[0]["id"]
    cff = _file(release, "CITATION.cff").decode()
    assert 'family-names: "Chen"' in cff and 'family-names: "Wang"' in cff and 'version: "1"' in cff
    added = {(e["record"], e["label"]) for e in release.changelog if e["change"] == "added"}
    assert ("archive.person", "唐生智") in added and not any("草稿" in label for _r, label in added)


def test_the_next_release_lists_only_what_changed_since_with_the_reasons(published: dict) -> None:
    first = make_release(by="operator", base_url=BASE)
    tang = Person.objects.get(slug="tang")
    tang.description = "卫戍司令长官"
    revision = records.record_update(record=tang, by=published["author"])
    revisions.approve_revision(
        revision=revision, by=published["reviewer"], note="the order names him so",
        shown=decisions.revision_pin(revision),
    )
    twin = approved(Person(slug="tang-twin", name="唐孟潇"))
    merge = revisions.propose_merge(survivor=Person.objects.get(slug="tang"), duplicate=twin,
                                    by=published["author"])
    revisions.approve_revision(
        revision=merge, by=published["reviewer"], note="the same man", shown=decisions.revision_pin(merge)
    )

    second = make_release(by="operator", base_url=BASE)

    assert second.number == first.number + 1
    changes = [(e["change"], e["reason"]) for e in second.changelog if e["change"] != "added"]
    assert changes == [("changed", "the order names him so"), ("merged", "the same man")]
    assert not any(e["label"] == "唐生智" for e in second.changelog if e["change"] == "added")
    text = _file(second, "CHANGELOG.md").decode()
    assert "merged person" in text and "the same man" in text


def test_the_database_refuses_to_change_or_delete_a_release(published: dict) -> None:
    release = make_release(by="operator", base_url=BASE)
    files, releases = (connection.ops.quote_name(t) for t in ("archive_releasefile", "archive_release"))
    attempts = [
        lambda: Release.objects.filter(pk=release.pk).update(note="rewritten"),
        lambda: ReleaseFile.objects.filter(release=release).update(content=b"forged"),
        lambda: ReleaseFile.objects.filter(release=release).delete(),
        lambda: connection.cursor().execute(f"DELETE FROM {files}"),
        lambda: connection.cursor().execute(f"DELETE FROM {releases}"),
    ]
    for attempt in attempts:
        with pytest.raises(DatabaseError, match="never changed"), transaction.atomic():
            attempt()
    assert bytes(ReleaseFile.objects.get(release=release, name="CHANGELOG.md").content).startswith(b"# Release 1")
    assert Release.objects.get(pk=release.pk).note == ""


def test_releases_are_listed_in_the_api_and_the_reading_room(published: dict) -> None:
    release = make_release(by="operator", base_url=BASE, note="first")
    client = Client()
    listing = client.get("/api/v1/releases/").json()
    assert listing["count"] == 1 and listing["results"][0]["number"] == 1
    detail = client.get("/api/v1/releases/1/")
    assert detail.status_code == 200 and detail["Cache-Control"].endswith("immutable")
    assert detail.json()["changelog"] == release.changelog
    download = client.get("/api/v1/releases/1/files/tei/hist.xml")
    assert download.status_code == 200 and download["ETag"].strip('"') == hashlib.sha256(download.content).hexdigest()
    assert client.get("/api/v1/releases/2/").status_code == 404
    assert client.get("/api/v1/releases/1/files/nothing").status_code == 404
    assert client.get("/api/v1/releases/99999999999999999999999/").status_code == 404
    page = client.get(reverse("room:releases"))
    assert page.status_code == 200
    assert ReleaseFile.objects.get(release=release, name="collection.zip").sha256 in page.content.decode()

    # As of a moment, or as a release holds the archive: the releases made by then, marked as a memento.
    time.sleep(0.01)
    between = timezone.now()
    time.sleep(0.01)
    make_release(by="operator", base_url=BASE, note="second")
    at = between.isoformat().replace("+00:00", "Z")
    for query in (f"as_of={at}", "release=1"):
        then = client.get(f"/api/v1/releases/?{query}")
        assert then.status_code == 200 and then["Memento-Datetime"].endswith("GMT"), query
        assert [r["number"] for r in then.json()["results"]] == [1] and then.json()["memento"]["read_as_of"]
        room = client.get(f"{reverse('room:releases')}?{query}").content.decode()
        assert 'id="release-1"' in room and 'id="release-2"' not in room and "memento-notice" in room, query
    assert [r["number"] for r in client.get("/api/v1/releases/").json()["results"]] == [2, 1]
    assert [r["number"] for r in client.get("/api/v1/releases/?release=2").json()["results"]] == [2, 1]
    for query, name in (("as_of=1937-13-45", "as_of"), ("version=1", "version"), ("release=0", "release")):
        refused = client.get(f"/api/v1/releases/?{query}")
        assert refused.status_code == 400 and name in refused.json(), query


def test_a_reviewer_makes_a_release_in_the_admin_and_a_curator_cannot(published: dict) -> None:
    curator_client, reviewer_client = Client(), Client()
    curator_client.force_login(published["author"])
    reviewer_client.force_login(published["reviewer"])
    url = reverse("release_make")

    curator_client.post(url, {"note": "mine"})
    assert not Release.objects.exists()
    assert "Make a release" not in curator_client.get(reverse("admin:archive_release_changelist")).content.decode()

    assert "Make a release" in reviewer_client.get(reverse("admin:archive_release_changelist")).content.decode()
    response = reviewer_client.post(url, {"note": "for the conference"})
    assert response.status_code == 302
    release = Release.objects.get()
    assert release.made_by == "rel-reviewer" and release.note == "for the conference"


def test_the_release_command_needs_an_address(published: dict) -> None:
    with pytest.raises(CommandError, match="not an http"):
        call_command("release", "--by", "operator", "--base-url", "testserver")
    with pytest.raises(CommandError, match="not one the archive answers to"):
        call_command("release", "--by", "operator", "--base-url", "https://elsewhere.example.org")
    assert not Release.objects.exists()
    call_command("release", "--by", "operator", "--base-url", BASE, verbosity=0)
    assert Release.objects.get().made_by == "operator"


def test_a_backup_restores_the_releases_byte_for_byte(published: dict, tmp_path: Path) -> None:
    release = make_release(by="operator", base_url=BASE)
    files = {f.name: (bytes(f.content), f.sha256) for f in release.files.all()}
    call_command("export_collection", str(tmp_path / "export"), verbosity=0)
    with pytest.raises(CommandError, match="holds releases, which are never deleted"):
        call_command("restore", str(tmp_path / "export"), "--replace", verbosity=0)
    # A new database is where a backup with releases goes; here the test's own rows are cleared, the
    # triggers lifted for that alone (inside the test's transaction, rolled back after it).
    postgres = connection.vendor == "postgresql"
    drop = release_triggers.POSTGRES_DROP if postgres else release_triggers.SQLITE_DROP
    create = release_triggers.POSTGRES_CREATE if postgres else release_triggers.SQLITE_CREATE
    with connection.cursor() as cursor:
        for statement in drop:
            cursor.execute(statement)
        restore._empty_archive("default")
        for statement in create:
            cursor.execute(statement)
    User.objects.all().delete()

    call_command("restore", str(tmp_path / "export"), verbosity=0)

    restored = Release.objects.get()
    assert {f.name: (bytes(f.content), f.sha256) for f in restored.files.all()} == files
    assert restored.changelog == release.changelog and restored.made_at == release.made_at
    with pytest.raises(DatabaseError, match="never changed"), transaction.atomic():
        Release.objects.filter(pk=restored.pk).update(note="rewritten")


def test_the_changelog_and_contributors_read_a_fixed_number_of_queries_however_many_records(published: dict
                                                                                                   ) -> None:
    from django.test.utils import CaptureQueriesContext

    from archive.importing import releases
    from archive.models import Passage

    def queries() -> tuple[int, int]:
        versions = releases._published_versions("default")
        with CaptureQueriesContext(connection) as changelog:
            entries = releases._changelog(None, versions, "default")
        with CaptureQueriesContext(connection) as contributors:
            releases._contributors(versions, "default")
        assert {entry["label"] for entry in entries} >= {"唐生智", "挹江门"}
        return len(changelog.captured_queries), len(contributors.captured_queries)

    few = queries()
    source = source_with_text("".join(f"唐生智第{n}次下令。\n\n" for n in range(6)), slug="more")
    for passage in Passage.objects.filter(source=source):
        cite(passage, "唐生智", person=published["tang"])  # a citation's label names its passage and source
    assert queries() == few
