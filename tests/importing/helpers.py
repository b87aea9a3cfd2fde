"""Builders for the importing tests: seed files, small collections on disk, table snapshots."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.management import call_command

SEEDS = Path("/work/shared/seeds")
SEED_FILES = sorted(SEEDS.glob("*.txt"))
WEB_NOVEL = SEEDS / "001_be255aab189f7373.txt"
HISTORY = SEEDS / "002_af281e26cb975bf0.txt"
ALT_HISTORY = SEEDS / "000_b1b2728cd8d22041.txt"

KIND_OF = {HISTORY.name: ("history", "zh-Hans"), WEB_NOVEL.name: ("web-novel", "zh-Hans"),
           ALT_HISTORY.name: ("alternate-history", "zh-Hant")}


def run(name: str, *args: Any, **options: Any) -> str:
    """Run a management command and return what it wrote for people."""
    from io import StringIO

    out = StringIO()
    call_command(name, *args, stdout=out, **options)
    return out.getvalue()


def import_file(path: Path, slug: str, *extra: str) -> str:
    kind, language = KIND_OF.get(path.name, ("history", "zh-Hans"))
    return run("import_source", str(path), "--slug", slug, "--title", f"Title of {slug}", "--kind", kind,
               "--language", language, *extra)


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every archive table (history included), to prove that nothing was written."""
    tables: dict[str, list[tuple[Any, ...]]] = {}
    for model in apps.get_app_config("archive").get_models():
        tables[model._meta.label_lower] = sorted(
            (tuple(str(v) for v in row) for row in model._default_manager.values_list()), key=str
        )
    return tables


def read_fixture(directory: Path, name: str) -> list[dict[str, Any]]:
    return json.loads((directory / name).read_text(encoding="utf-8"))


def write_fixture(directory: Path, name: str, records: list[dict[str, Any]]) -> Path:
    path = directory / name
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def small_collection(directory: Path) -> Path:
    """A collection of the web novel: source text as a file, a person, a place, an event, citations."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sources").mkdir(exist_ok=True)
    shutil.copyfile(WEB_NOVEL, directory / "sources" / WEB_NOVEL.name)
    write_fixture(directory, "00_sources.json", [
        {"model": "archive.source", "fields": {
            "slug": "web-novel", "title": "诸天从长津湖开始", "kind": "web-novel", "language": "zh-Hans",
            "date": "2023", "file_name": WEB_NOVEL.name, "status": "approved"}},
    ])
    write_fixture(directory, "01_places.json", [
        {"model": "archive.location", "fields": {"slug": "nanjing", "name": "南京", "kind": "city",
                                                 "status": "approved", "marked_historical": True}},
        {"model": "archive.locationalias", "fields": {"location": ["nanjing"], "name": "金陵"}},
    ])
    write_fixture(directory, "02_people.json", [
        {"model": "archive.person", "fields": {"slug": "tang-shengzhi", "name": "唐生智", "side": "chinese",
                                               "birth": "1889-10-12", "death": "1970-04-06", "status": "approved"}},
        {"model": "archive.personname", "fields": {"person": ["tang-shengzhi"], "name": "唐司令", "kind": "title"}},
    ])
    write_fixture(directory, "03_units.json", [
        {"model": "archive.unit", "fields": {"slug": "nanjing-garrison", "name": "南京卫戍司令长官部",
                                             "echelon": "garrison", "side": "chinese", "status": "approved"}},
        {"model": "archive.unitalias", "fields": {"unit": ["nanjing-garrison"], "name": "卫戍司令部"}},
        {"model": "archive.post", "fields": {"slug": "tang-garrison-commander", "person": ["tang-shengzhi"],
                                             "unit": ["nanjing-garrison"], "title": "司令长官",
                                             "date_from": "1937-11", "date_to": "1937-12", "status": "approved"}},
    ])
    write_fixture(directory, "04_events.json", [
        {"model": "archive.event", "fields": {"slug": "retreat-order", "title": "撤退命令", "kind": "order",
                                              "date": "1937-12-12", "locations": [["nanjing"]],
                                              "status": "approved"}},
        {"model": "archive.participation", "fields": {"slug": "retreat-order-tang", "event": ["retreat-order"],
                                                      "person": ["tang-shengzhi"], "role": "commander",
                                                      "status": "approved"}},
    ])
    write_fixture(directory, "05_citations.json", [
        {"model": "archive.citation", "fields": {"slug": "web-retreat-order", "passage": ["web-novel", 1],
                                                 "quote": "随着撤退的命令下达", "claim": "the retreat was ordered",
                                                 "event": ["retreat-order"], "status": "approved"}},
        {"model": "archive.citation", "fields": {"slug": "web-jinling", "passage": ["web-novel", 1],
                                                 "quote": "金陵城防线开始崩溃", "start": 10, "end": 19,
                                                 "claim": "the defence of 金陵 collapsed",
                                                 "location": ["nanjing"], "status": "approved"}},
    ])
    return directory


def cite_somewhere(passage: Any, quote: str) -> Any:
    """An approved citation of ``quote`` in ``passage``, as evidence for a new place."""
    from archive.models import Location
    from tests.factories import approved, cite

    place = approved(Location(slug=f"place-{Location.objects.count() + 1}", name=quote[:20], kind="other"))
    return cite(passage, quote, location=place)
