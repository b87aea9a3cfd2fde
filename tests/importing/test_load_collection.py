"""`load_collection`: checked first, all or nothing, harmless to repeat; errors name file, record and field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management.base import CommandError
from django.test import Client

from archive.importing import collection as collection_module
from archive.importing.fixture_check import check_collection
from archive.importing.fixture_prepare import prepare_collection, read_collection
from archive.models import (
    Citation,
    Event,
    Location,
    Passage,
    PassageRole,
    PassageSearchEntry,
    Person,
    PersonName,
    Post,
    Source,
    Status,
)
from archive.services import decisions, revisions
from archive.services import review as curation
from tests.factories import user

from .helpers import WEB_NOVEL, read_fixture, run, small_collection, snapshot, write_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def coll(tmp_path: Path) -> Path:
    return small_collection(tmp_path / "collection")


def test_nothing_to_load(tmp_path: Path) -> None:
    before = snapshot()
    out = run("load_collection", "--dir", str(tmp_path))
    assert "Nothing to load" in out
    assert snapshot() == before


def test_loads_the_collection(coll: Path) -> None:
    out = run("load_collection", "--dir", str(coll))
    assert "50 passages made" in out
    source = Source.objects.get(slug="web-novel")
    assert source.text.encode("utf-8") == WEB_NOVEL.read_bytes()
    assert source.status == Status.APPROVED and source.is_fiction
    assert source.passages.count() == 50
    assert PassageSearchEntry.objects.filter(source=source).count() == 50
    assert source.passages.order_by("seq").last().role == PassageRole.BOILERPLATE
    # Derived fields are filled in: the citation's offsets, the event's bounds.
    citation = Citation.objects.get(slug="web-retreat-order")
    assert citation.passage.text[citation.start : citation.end] == citation.quote
    event = Event.objects.get(slug="retreat-order")
    assert event.earliest is not None and event.earliest.isoformat().startswith("1937-12-11T16:00")
    assert list(event.locations.values_list("slug", flat=True)) == ["nanjing"]
    assert PersonName.objects.get(name="唐司令").person.slug == "tang-shengzhi"
    # Every record has its history, written in bulk.
    assert Person.history.filter(slug="tang-shengzhi", history_type="+").count() == 1
    assert Citation.history.count() == 2


def test_loading_twice_changes_nothing(coll: Path) -> None:
    run("load_collection", "--dir", str(coll))
    before = snapshot()
    out = run("load_collection", "--dir", str(coll))
    assert "0 new, 0 changed" in out
    assert snapshot() == before


def test_a_changed_fixture_of_a_published_record_is_proposed_for_review(coll: Path) -> None:
    run("load_collection", "--dir", str(coll))
    person = Person.objects.get(slug="tang-shengzhi")
    assert person.status == "approved"
    records = read_fixture(coll, "02_people.json")
    records[0]["fields"]["description"] = "南京卫戍司令长官"
    records[1]["fields"]["note"] = "the novel calls him so"
    write_fixture(coll, "02_people.json", records)
    before = snapshot()
    with pytest.raises(CommandError, match="needs an author"):
        run("load_collection", "--dir", str(coll))
    assert snapshot() == before  # refused whole: nothing loaded, nothing proposed
    author = user("collection-editor", role="reviewer")
    out = run("load_collection", "--dir", str(coll), "--as", "collection-editor")
    assert "2 change(s) of published records went to review" in out
    # The published version stays served, unchanged.
    published = Person.objects.get(pk=person.pk)
    assert published.description != "南京卫戍司令长官"
    assert not PersonName.objects.filter(person=person, note="the novel calls him so").exists()
    pending = revisions.pending_revision(published)
    assert pending is not None
    assert pending.changes["fields"] == {"description": "南京卫戍司令长官"}
    assert list(pending.changes["children"]) == ["archive.personname"]
    assert pending.created_by == author and revisions.contributors(pending) == {author.pk}
    with pytest.raises(PermissionDenied):  # four eyes: the load's author does not approve it
        revisions.approve_revision(revision=pending, by=author, shown=decisions.revision_pin(pending))
    # Loading the same files again adds nothing to the pending change, and needs no author.
    run("load_collection", "--dir", str(coll))
    assert revisions.pending_revision(published).changes == pending.changes
    revisions.approve_revision(
        revision=pending, by=user("collection-reviewer", role="reviewer"), shown=decisions.revision_pin(pending)
    )
    assert Person.objects.get(pk=person.pk).description == "南京卫戍司令长官"
    assert PersonName.objects.filter(person=person, note="the novel calls him so").count() == 1
    assert PersonName.objects.filter(person=person).count() == 1


def test_into_an_empty_archive_the_collection_is_published_as_its_release(coll: Path) -> None:
    user("release-manager", role="curator")
    out = run("load_collection", "--dir", str(coll), "--as", "release-manager")
    assert "published as its release" in out
    entry = Person.history.get(slug="tang-shengzhi", history_type="+")
    assert entry.history_change_reason == "published as the collection's release, loaded from 02_people.json"
    assert entry.history_user.username == "release-manager"
    assert Person.objects.get(slug="tang-shengzhi").status == Status.APPROVED


def test_into_an_archive_with_data_new_records_enter_review_in_the_authors_name(coll: Path) -> None:
    run("load_collection", "--dir", str(coll))
    added = {"model": "archive.person", "fields": {"slug": "sun-yuanliang", "name": "孙元良", "status": "approved"}}
    write_fixture(coll, "02_people.json", [*read_fixture(coll, "02_people.json"), added])
    before = snapshot()
    with pytest.raises(CommandError, match="1 new record"):
        run("load_collection", "--dir", str(coll))
    assert snapshot() == before
    with pytest.raises(CommandError, match="no active account"):
        run("load_collection", "--dir", str(coll), "--as", "nobody")
    author = user("collection-author", role="reviewer")
    out = run("load_collection", "--dir", str(coll), "--as", "collection-author")
    assert "entered review in the name of collection-author" in out
    sun = Person.objects.get(slug="sun-yuanliang")
    assert sun.status == Status.IN_REVIEW and sun.created_by == author and sun.reviewed_by is None
    assert Client().get("/api/v1/persons/sun-yuanliang/").status_code == 404
    with pytest.raises(PermissionDenied):
        curation.approve(sun, by=author, without_evidence="试", shown=decisions.record_pin(sun))
    curation.approve(
        sun, by=user("other-reviewer", role="reviewer"), without_evidence="见档案", shown=decisions.record_pin(sun)
    )
    assert Client().get("/api/v1/persons/sun-yuanliang/").status_code == 200
    # The same files again: as stored, no author needed.
    out = run("load_collection", "--dir", str(coll))
    assert "0 new, 0 changed" in out


def _set(name: str, index: int, **fields: Any) -> Callable[[Path], None]:
    def change(directory: Path) -> None:
        records = read_fixture(directory, name)
        records[index]["fields"].update(fields)
        write_fixture(directory, name, records)

    return change


def _add(name: str, record: dict[str, Any]) -> Callable[[Path], None]:
    def change(directory: Path) -> None:
        write_fixture(directory, name, [*read_fixture(directory, name), record])

    return change


def _both(*changes: Callable[[Path], None]) -> Callable[[Path], None]:
    def change(directory: Path) -> None:
        for one in changes:
            one(directory)

    return change


def _remove_text_file(directory: Path) -> None:
    (directory / "sources" / WEB_NOVEL.name).unlink()


BROKEN = [
    ("bad-quote", _set("05_citations.json", 1, quote="金陵城防线全面崩溃"),
     "05_citations.json", "record 1 (archive.citation web-jinling), field quote",
     "Closest match: “金陵城防线开始崩溃” at 10–19"),
    ("quote-elsewhere", _set("05_citations.json", 1, start=11, end=20),
     "05_citations.json", "record 1 (archive.citation web-jinling), field start",
     "the record says 11; the model's rules make it 10"),
    ("ambiguous-quote", _set("05_citations.json", 0, quote="金陵"),
     "05_citations.json", "record 0 (archive.citation web-retreat-order), field quote", "occurs 2 times in passage"),
    ("quote-not-found", _set("05_citations.json", 0, quote="挹江门"),
     "05_citations.json", "record 0 (archive.citation web-retreat-order), field quote", "is not in passage"),
    ("unknown-location", _set("04_events.json", 0, locations=[["nowhere"]]),
     "04_events.json", "record 0 (archive.event retreat-order), field locations", "[\"nowhere\"] resolves to nothing"),
    ("unknown-person", _set("02_people.json", 1, person=["nobody"]),
     "02_people.json", "record 1 (archive.personname nobody/唐司令), field person", "resolves to nothing"),
    ("unknown-passage", _set("05_citations.json", 0, passage=["web-novel", 99]),
     "05_citations.json", "record 0 (archive.citation web-retreat-order), field passage", "resolves to nothing"),
    ("later-file", _both(_set("02_people.json", 1, person=["later-person"]),
                         _add("04_events.json", {"model": "archive.person", "fields": {"slug": "later-person",
                                                                                       "name": "后来者"}})),
     "02_people.json", "record 1 (archive.personname later-person/唐司令), field person", "resolves to nothing"),
    ("source-date", _set("00_sources.json", 0, date="2023-13"),
     "00_sources.json", "record 0 (archive.source web-novel), field date", "not a valid EDTF date"),
    ("birth", _set("02_people.json", 0, birth="1889-02-30"),
     "02_people.json", "record 0 (archive.person tang-shengzhi), field birth", "not a valid EDTF date"),
    ("death", _set("02_people.json", 0, death="1970/04/06"),
     "02_people.json", "record 0 (archive.person tang-shengzhi), field death", "not a valid EDTF date"),
    ("post-from", _set("03_units.json", 2, date_from="late 1937"),
     "03_units.json", "record 2 (archive.post tang-garrison-commander), field date_from", "not a valid EDTF"),
    ("post-to", _set("03_units.json", 2, date_to="1937-12-12T25:00"),
     "03_units.json", "record 2 (archive.post tang-garrison-commander), field date_to", "not a valid EDTF"),
    ("event-date", _set("04_events.json", 0, date="1937-12-32"),
     "04_events.json", "record 0 (archive.event retreat-order), field date", "not a valid EDTF date"),
    ("duplicate-slug", _add("03_units.json", {"model": "archive.person", "fields": {"slug": "tang-shengzhi",
                                                                                    "name": "唐孟潇"}}),
     "03_units.json", "record 3 (archive.person tang-shengzhi), field slug", "used twice: also by record 0 of"),
    ("missing-slug", _add("02_people.json", {"model": "archive.person", "fields": {"name": "无名"}}),
     "02_people.json", "record 2 (archive.person ?), field slug", "missing"),
    ("unknown-field", _set("01_places.json", 0, height=12),
     "01_places.json", "record 0 (archive.location nanjing), field height", "has no field height"),
    ("text-file-gone", _remove_text_file, "00_sources.json", "record 0 (archive.source web-novel), field text",
     "passages in the database"),
    ("sha256", _set("00_sources.json", 0, sha256="0" * 64),
     "00_sources.json", "record 0 (archive.source web-novel), field sha256", "the record says 000"),
]


@pytest.mark.parametrize(("change", "file", "where", "message"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_a_broken_collection_is_refused_and_nothing_changes(
    coll: Path, change: Callable[[Path], None], file: str, where: str, message: str
) -> None:
    run("load_collection", "--dir", str(coll))
    # A change that loading would make, to prove that nothing of the load survives.
    _set("02_people.json", 0, description="changed")(coll)
    change(coll)
    before = snapshot()
    with pytest.raises(CommandError) as info:
        run("load_collection", "--dir", str(coll))
    text = str(info.value)
    assert str(coll / file) in text
    assert where in text
    assert message in text
    assert snapshot() == before


def test_every_problem_is_reported_at_once(coll: Path) -> None:
    _set("02_people.json", 0, birth="never")(coll)
    _set("04_events.json", 0, date="someday")(coll)
    with pytest.raises(CommandError, match="2 problem") as info:
        run("load_collection", "--dir", str(coll))
    assert "field birth" in str(info.value) and "field date" in str(info.value)
    assert not Source.objects.exists()


def test_a_check_of_a_sound_collection_writes_nothing(coll: Path) -> None:
    run("load_collection", "--dir", str(coll))
    _set("02_people.json", 0, description="changed")(coll)
    collection = read_collection(coll)
    before = snapshot()
    assert prepare_collection(collection) == []
    assert check_collection(collection) == []
    assert snapshot() == before
    # What the models' clean() derives is handed to the load: the citation's offsets.
    assert collection.records[coll / "05_citations.json"][0].fields["start"] == 0


def test_a_database_check_failure_names_the_file(coll: Path) -> None:
    run("load_collection", "--dir", str(coll))
    _set("02_people.json", 0, description="changed")(coll)
    # Latitude without longitude breaks a CHECK constraint: the database refuses the check's save, and the
    # problem gives the model's words for it (Django's "Constraint … is violated"), not the database's.
    _set("01_places.json", 0, latitude="32.06")(coll)
    before = snapshot()
    with pytest.raises(CommandError) as info:
        run("load_collection", "--dir", str(coll))
    assert str(coll / "01_places.json") in str(info.value)
    assert "location_coordinates_both_or_neither” is violated" in str(info.value)
    assert snapshot() == before


def test_a_deserialization_error_names_the_file(coll: Path) -> None:
    _set("01_places.json", 0, latitude="north", longitude="east")(coll)
    with pytest.raises(CommandError) as info:
        run("load_collection", "--dir", str(coll))
    assert str(coll / "01_places.json") in str(info.value)
    assert not Source.objects.exists() and not Location.objects.exists()


def test_a_trigger_failure_names_the_file(coll: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # With the check out of the way, the database trigger is the last line of defence.
    monkeypatch.setattr(collection_module, "check_collection", lambda collection, using: [])
    _set("05_citations.json", 1, quote="金陵城防线全面崩溃")(coll)
    with pytest.raises(CommandError) as info:
        run("load_collection", "--dir", str(coll))
    assert str(coll / "05_citations.json") in str(info.value)
    assert "citation" in str(info.value)
    assert not Source.objects.exists() and not Post.objects.exists()


def test_text_in_the_record_needs_no_file(coll: Path) -> None:
    text = WEB_NOVEL.read_bytes().decode("utf-8")
    _set("00_sources.json", 0, text=text, file_name="")(coll)
    _remove_text_file(coll)
    run("load_collection", "--dir", str(coll))
    assert Source.objects.get(slug="web-novel").text == text
    assert Passage.objects.filter(source__slug="web-novel").count() == 50


def test_a_source_without_text_is_allowed(coll: Path) -> None:
    _add("00_sources.json", {"model": "archive.source", "fields": {
        "slug": "memoir-guo-qi", "title": "陷都血泪录", "kind": "memoir", "language": "zh-Hans", "date": "1938"}})(coll)
    run("load_collection", "--dir", str(coll))
    memoir = Source.objects.get(slug="memoir-guo-qi")
    assert memoir.text == "" and not memoir.passages.exists()


def test_the_text_of_a_published_source_is_not_replaced_in_place(coll: Path, tmp_path: Path) -> None:
    run("load_collection", "--dir", str(coll))
    edited = tmp_path / "edited.txt"
    edited.write_bytes("编者按：新加的一行。\n".encode() + WEB_NOVEL.read_bytes())
    before = snapshot()
    with pytest.raises(CommandError, match="is published: its text is not replaced in place"):
        run("import_source", str(edited), "--slug", "web-novel", "--title", "诸天从长津湖开始", "--kind",
            "web-novel", "--language", "zh-Hans", "--replace")
    assert snapshot() == before
