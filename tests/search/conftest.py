"""A small collection that exercises every rule of search.

Approved records and sources, a fiction source, and planted records in every
other status that must never be found. Passages are indexed with
`archive.search.reindex`, as the importer does after writing them. Building it
goes through the review transitions, which is slow: it is built once for each
module, and each test changes it only inside a savepoint of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from archive import search
from archive.models import (
    Event,
    Location,
    LocationAlias,
    NameKind,
    Passage,
    Person,
    PersonName,
    Script,
    Source,
    Status,
    Unit,
    UnitAlias,
)
from tests.built_once import BuiltOnce
from tests.factories import approved, cite, in_status, source_with_text

HISTORY = "\n".join(
    [
        "十二日傍晚五时，唐生智在百子亭召开会议，决定撤退。",  # §1
        "部队向下关撤退，经挹江门出城，渡江北去。",  # §2
        "金陵城内一片混乱，周斓奉命传达撤退命令。",  # §3
        "第三十六师守卫挹江门，不许部队出城。",  # §4
    ]
)
MEMOIR = "\n".join(
    [
        "蕪湖失守後，金陵危急。",  # §1 Traditional characters
        "唐生智將軍下令各部撤退至江北。",  # §2
    ]
)
NOVEL = "\n".join(
    [
        "孫百里在挹江門外看見松井石根的車隊。",  # §1
        "那一夜，長江上全是逃難的船。",  # §2
    ]
)
DRAFT_TEXT = "草稿里也写着撤退和唐生智，但不该被找到。"


@dataclass
class World:
    history: Source
    memoir: Source
    novel: Source
    draft_source: Source
    tang: Person
    zhou: Person
    sun: Person
    matsui: Person
    nanjing: Location
    wuhu: Location
    xiaguan: Location
    yijiang: Location
    division: Unit
    retreat: Event
    planted: list[Any]

    def passage(self, source: Source, seq: int) -> Passage:
        return source.passages.get(seq=seq)


@pytest.fixture(scope="module")
def _module_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    """Built once for a module, in a transaction rolled back at its end; each test runs in a savepoint of it.

    A module whose tests use the world therefore has no transactional test (those are in modules of their own).
    """
    with django_db_blocker.unblock(), transaction.atomic():
        yield _shared_world()
        transaction.set_rollback(True)


@pytest.fixture
def world(_module_world: World, db: Any) -> World:
    return _module_world


def build_world() -> World:
    """The search world, through the review services (`_shared_world` keeps it for later modules)."""
    history = source_with_text(HISTORY, slug="history", kind="history")
    memoir = source_with_text(MEMOIR, slug="memoir", kind="memoir", language="zh-Hant")
    novel = source_with_text(NOVEL, slug="novel", kind="alternate-history", language="zh-Hant")
    draft_source = source_with_text(DRAFT_TEXT, slug="draft-source", status=Status.DRAFT)
    Source.objects.filter(pk=history.pk).update(title="南京保卫战史")
    history.refresh_from_db()

    tang = approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    PersonName.objects.create(person=tang, name="Tang Shengzhi", kind=NameKind.ROMANISATION, script=Script.LATN)
    PersonName.objects.create(person=tang, name="T'ang Sheng-chih", kind=NameKind.ROMANISATION, script=Script.LATN)
    PersonName.objects.create(person=tang, name="孟潇", kind=NameKind.COURTESY)
    zhou = approved(Person(slug="zhou-lan", name="周斓", side="chinese"))
    sun = approved(Person(slug="sun-baili", name="孫百里", side="chinese"))
    matsui = approved(Person(slug="matsui-iwane", name="松井石根", side="japanese", marked_historical=True))

    nanjing = approved(Location(slug="nanjing", name="南京", kind="city"))
    LocationAlias.objects.create(location=nanjing, name="金陵")
    LocationAlias.objects.create(location=nanjing, name="Nanking", language="en")
    wuhu = approved(Location(slug="wuhu", name="蕪湖", kind="city"))
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district", parent=nanjing))
    yijiang = approved(Location(slug="yijiangmen", name="挹江门", kind="gate", parent=nanjing))
    division = approved(Unit(slug="36th-division", name="第三十六师", echelon="division", side="chinese"))
    UnitAlias.objects.create(unit=division, name="36师")
    retreat = approved(Event(slug="retreat-from-nanjing", title="南京撤退", kind="retreat"))

    cite(novel.passages.get(seq=1), "孫百里", person=sun)
    cite(novel.passages.get(seq=1), "松井石根", person=matsui)
    cite(history.passages.get(seq=1), "唐生智", person=tang)
    cite(history.passages.get(seq=3), "周斓", person=zhou)

    planted = [
        in_status(Person(slug=f"planted-person-{status}", name="唐生智"), status)
        for status in (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED)
    ] + [
        in_status(Location(slug=f"planted-place-{status}", name="下关码头", kind="pier"), status)
        for status in (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED)
    ] + [
        in_status(Event(slug=f"planted-event-{status}", title="撤退会议", kind="meeting"), status)
        for status in (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED)
    ]
    search.reindex([history, memoir, novel, draft_source])
    return World(history, memoir, novel, draft_source, tang, zhou, sun, matsui, nanjing, wuhu, xiaguan, yijiang,
                 division, retreat, planted)


# Built once per test process; later modules get its rows inserted again (`tests/built_once.py`).
_shared_world = BuiltOnce(build_world)


def keys_of(hits: list[search.Hit]) -> list[tuple[str, str | int]]:
    """Hits as (type, slug) for records and (type, passage id) for passages."""
    return [(hit.type, hit.slug if hit.slug is not None else hit.id) for hit in hits]


def queries_of_a_search(text: str) -> int:
    """The queries one search of every kind of record costs."""
    with CaptureQueriesContext(connection) as captured:
        search.search(text, types=["person", "unit", "location", "event", "source"])
    return len(captured)
