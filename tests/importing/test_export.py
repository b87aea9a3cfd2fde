"""`export_collection`: a round trip through an empty database, byte-exact texts, atomic replacement."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.importing import export as export_module
from archive.importing.fixture_check import fixture_files
from archive.models import (
    Citation,
    Event,
    Location,
    Participation,
    Passage,
    PassageRole,
    Person,
    PersonName,
    Post,
    Source,
    Unit,
    UnitAlias,
)
from archive.models.places import LocationAlias
from tests.factories import approved

from .helpers import ALT_HISTORY, HISTORY, import_file, run, small_collection

pytestmark = pytest.mark.django_db



@pytest.fixture
def filled(tmp_path: Path) -> None:
    """The small collection, two seed texts imported, a quotation passage and a citation on the history."""
    run("load_collection", "--dir", str(small_collection(tmp_path / "collection")))
    import_file(HISTORY, "history")
    import_file(ALT_HISTORY, "alt-history")
    memoir = Source.objects.create(slug="memoir", title="陷都血泪录", kind="memoir", language="zh-Hans", date="1938")
    Passage.objects.filter(source__slug="history", seq=72).update(role=PassageRole.QUOTATION, quotes=memoir)
    passage = Passage.objects.get(source__slug="history", seq=2)
    start = passage.text.index("挹江门")
    approved(Citation(slug="history-yijiangmen", passage=passage, quote="挹江门", start=start, end=start + 3,
                      claim="left through 挹江门", location=Location.objects.get(slug="nanjing")))


def _state() -> dict[str, Any]:
    """What must survive the round trip, read with the ORM."""
    return {
        "sources": sorted(Source.objects.values_list("slug", "title", "kind", "language", "date", "text", "length",
                                                     "sha256", "file_name", "status", "created_at", "updated_at")),
        "passages": sorted(Passage.objects.values_list("source__slug", "seq", "text", "start", "end", "sha256",
                                                       "role", "quotes__slug")),
        "citations": sorted(Citation.objects.values_list("slug", "passage__source__slug", "passage__seq", "quote",
                                                         "start", "end", "claim", "rank", "status", "location__slug",
                                                         "event__slug", "reviewed_at")),
        "people": sorted(Person.objects.values_list("slug", "name", "birth", "death", "status")),
        "names": sorted(PersonName.objects.values_list("person__slug", "name", "kind")),
        "units": sorted(UnitAlias.objects.values_list("unit__slug", "name")),
        "posts": sorted(Post.objects.values_list("slug", "person__slug", "unit__slug", "date_from", "date_to")),
        "places": sorted(LocationAlias.objects.values_list("location__slug", "name")),
        "events": sorted(Event.objects.values_list("slug", "date", "earliest", "latest", "locations__slug")),
        "participations": sorted(Participation.objects.values_list("slug", "event__slug", "person__slug", "role")),
    }


def _wipe() -> None:
    for model in (Citation, Participation, Post, Event, PersonName, Person, UnitAlias, Unit, LocationAlias, Location,
                  Passage, Source):
        model.objects.all().delete()
    for model in apps.get_app_config("archive").get_models():
        if model._meta.label_lower.startswith("archive.historical"):
            model.objects.all().delete()


def test_round_trip_through_an_empty_database(filled: None, tmp_path: Path) -> None:
    before = _state()
    target = tmp_path / "export"
    out = run("export_collection", str(target))
    assert "Exported" in out
    # Each text is a byte-exact file, named as it was imported.
    assert (target / "sources" / HISTORY.name).read_bytes() == HISTORY.read_bytes()
    assert (target / "sources" / ALT_HISTORY.name).read_bytes() == ALT_HISTORY.read_bytes()
    _wipe()
    assert not Source.objects.exists() and not Passage.history.exists()
    run("load_collection", "--dir", str(target))
    assert _state() == before
    for source in Source.objects.exclude(text=""):
        assert source.sha256 == hashlib.sha256((target / "sources" / source.file_name).read_bytes()).hexdigest()
    # Exporting the reloaded archive gives the same collection files. (Its backup/ differs: a load by
    # natural key gives new ids and history; restoring backup/ gives the same bytes, tests/importing/test_restore.py.)
    again = tmp_path / "again"
    run("export_collection", str(again))
    for path in sorted(target.rglob("*")):
        if path.is_file() and export_module.BACKUP_DIR not in path.relative_to(target).parts:
            assert (again / path.relative_to(target)).read_bytes() == path.read_bytes(), path.name


def test_export_follows_the_shipped_layout(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "10_all.json").write_text('[{"model": "archive.person", "fields": {}}, '
                                         '{"model": "archive.source", "fields": {}}]', encoding="utf-8")
    names = [name for name, _labels in export_module.layout(shipped)]
    assert names[0] == "10_all.json"
    labels = dict(export_module.layout(shipped))["10_all.json"]
    # Models keep their dependency order inside a file, and a model's companions join it.
    assert labels.index("archive.source") < labels.index("archive.passage") < labels.index("archive.person")
    assert "archive.personname" in labels
    real = Path(settings.BASE_DIR) / "fixtures"
    if fixture_files(real):
        assert [n for n, _ in export_module.layout(real)][: len(fixture_files(real))] == [
            p.name for p in fixture_files(real)
        ]


def test_export_queries_do_not_grow_with_rows(filled: None, tmp_path: Path) -> None:
    with CaptureQueriesContext(connection) as first:
        run("export_collection", str(tmp_path / "one"))
    event = Event.objects.get(slug="retreat-order")
    place = Location.objects.get(slug="nanjing")
    passage = Passage.objects.get(source__slug="web-novel", seq=3)
    for n in range(20):
        person = approved(Person(slug=f"extra-{n}", name=f"某{n}"))
        PersonName.objects.create(person=person, name=f"别名{n}")
        extra = approved(Event(slug=f"extra-event-{n}", title=f"事件{n}", kind="other", date="1937-12-13"))
        extra.locations.add(place)
        Participation.objects.create(slug=f"extra-part-{n}", event=event, person=person, role="participant")
        approved(Citation(slug=f"extra-cite-{n}", passage=passage, quote=passage.text[:2], start=0, end=2,
                          claim="more", person=person))
    with CaptureQueriesContext(connection) as second:
        run("export_collection", str(tmp_path / "two"))
    assert len(second) == len(first)


def test_a_failed_export_leaves_the_previous_one(filled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    target = tmp_path / "export"
    run("export_collection", str(target))
    previous = {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    Person.objects.filter(slug="tang-shengzhi").update(description="changed after the first export")
    real = export_module._records

    def failing(model: Any, *args: Any) -> Any:
        if model is Citation:
            raise OSError("disk full")
        return real(model, *args)

    monkeypatch.setattr(export_module, "_records", failing)
    with pytest.raises(CommandError, match="disk full"):
        run("export_collection", str(target))
    assert {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()} == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["collection", "export"]


def test_a_directory_that_is_not_an_export_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "notes"
    target.mkdir()
    (target / "todo.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(CommandError, match="not an export"):
        run("export_collection", str(target))
    assert (target / "todo.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]


def test_derived_columns_are_not_exported_and_are_derived_again(filled: None, tmp_path: Path) -> None:
    from archive import search

    target = tmp_path / "export"
    run("export_collection", str(target))
    written = "".join(path.read_text(encoding="utf-8") for path in sorted(target.rglob("*.json")))
    assert "\"archive.citation\"" in written
    assert '"folded"' not in written and '"fictional"' not in written
    _wipe()
    run("load_collection", "--dir", str(target))
    citation = Citation.objects.order_by("pk").first()
    assert citation is not None
    assert citation in search.filter_queryset(Citation.objects.all(), citation.quote)
