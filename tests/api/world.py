"""A small archive for the API tests: the public record, fiction, and planted secrets.

Everything that must never be seen through the API carries the marker
`SECRET` in its slug, name, title, quote or claim, so a test can walk every
endpoint in every format and assert the marker never appears in a body.
Planted for each kind (source, person, unit, post, location, event,
participation, citation) in each unapproved status (draft, in review,
rejected), plus approved records that hang on an unapproved one.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from archive.dating import NANJING
from archive.models import (
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Source,
    Status,
    Unit,
    UnitAlias,
)
from tests.factories import approved, in_status, source_with_text
from tests.factories import cite as _cite

MARK = "SECRET"
HIDDEN = (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED)

HISTORY_TEXT = (
    "十二月十二日傍晚五点，唐生智在南京下令撤退。\n"
    "第七十四军自挹江门出城，拥向下关码头。\n"
    "唐生智于二十点到达煤炭港，比预定晚两小时。\n"
    "=HYPERLINK(\"x\") 这是一行以等号开头的文字。\n"
)
NOVEL_TEXT = (
    "一月二十二日夜，松井石根在幕府山下令。\n"
    "孫百里带着残部从挹江门突围。\n"
)
SECRET_TEXT = "SECRET 秘密来源的文字，唐生智在此出现。\n"


@dataclass
class World:
    history: Source
    novel: Source
    tang: Person
    matsui: Person
    sun: Person
    army74: Unit
    div51: Unit
    nanjing: Location
    gate: Location
    xiaguan: Location
    order: Event
    crossing: Event
    breakout: Event
    undated: Event
    tang_post: Post
    tang_order: Participation
    history_cite: Citation
    novel_cite: Citation
    secret_ids: dict[str, list[int]] = field(default_factory=dict)
    secret_passages: list[Passage] = field(default_factory=list)

    def passage(self, source: Source, seq: int) -> Passage:
        return source.passages.get(seq=seq)


_citations = itertools.count(1)


def cite(passage: Passage, quote: str, **kwargs: Any) -> Citation:
    """`tests.factories.cite` with a slug of its own, so one quote can be cited for several records."""
    return _cite(passage, quote, slug=f"cite-{next(_citations)}", **kwargs)


def _moment(day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(1937, 12, day, hour, minute, tzinfo=NANJING)


def build_world() -> World:
    history = source_with_text(HISTORY_TEXT, slug="history", kind="history", status="draft")
    history.author = "Rabe, John"
    history.date = "1997"
    history.publisher = "江苏人民出版社"
    history.publisher_place = "南京"
    history.url = "https://example.org/history"
    history.save()
    approved(history)
    novel = source_with_text(NOVEL_TEXT, slug="novel", kind="alternate-history", status="draft")
    novel.author = "无名氏"
    novel.save()
    approved(novel)
    h1, h2, h3, h4 = (history.passages.get(seq=n) for n in (1, 2, 3, 4))
    n1, n2 = (novel.passages.get(seq=n) for n in (1, 2))

    tang = approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese", birth="1889", death="1970"))
    PersonName.objects.create(person=tang, name="Tang Shengzhi", kind="romanisation", script="Latn")
    PersonName.objects.create(person=tang, name="唐司令", kind="title")
    matsui = approved(Person(slug="matsui-iwane", name="松井石根", side="japanese", marked_historical=True))
    sun = approved(Person(slug="sun-baili", name="孫百里", side="chinese"))

    army74 = approved(Unit(slug="army-74", name="第七十四军", echelon="army", side="chinese"))
    UnitAlias.objects.create(unit=army74, name="74军")
    div51 = approved(Unit(slug="div-51", name="第五十一师", echelon="division", side="chinese", parent=army74))
    tang_post = approved(Post(slug="tang-garrison", person=tang, unit=army74, title="司令长官"))

    nanjing = approved(Location(slug="nanjing", name="南京", kind="city", latitude=Decimal("32.06"),
                                longitude=Decimal("118.79")))
    LocationAlias.objects.create(location=nanjing, name="金陵", language="zh-Hans")
    gate = approved(Location(slug="yijiang-gate", name="挹江门", kind="gate", parent=nanjing,
                             latitude=Decimal("32.0905"), longitude=Decimal("118.7522"),
                             coordinate_precision="gate, within 50 m"))
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district", parent=nanjing))
    wharf = approved(Location(slug="meitan-wharf", name="煤炭港", kind="pier", parent=xiaguan))

    order = approved(Event(slug="retreat-order", title="唐生智下令撤退", kind="order", date="1937-12-12",
                           date_text="12日傍晚5点", earliest=_moment(12, 17), latest=_moment(12, 17, 59)))
    order.locations.add(nanjing)
    crossing = approved(Event(slug="crossing", title="过江", kind="crossing", date="1937-12-12",
                              earliest=_moment(12, 20), latest=_moment(12, 23, 59), parent=order))
    crossing.locations.add(wharf)
    breakout = approved(Event(slug="breakout", title="孫百里突围", kind="escape", date="XXXX-01-22"))
    breakout.locations.add(gate)
    undated = approved(Event(slug="undated", title="无日期之事", kind="other"))
    tang_order = approved(Participation(slug="tang-orders", event=order, person=tang, role="commander"))
    sun_breakout = approved(Participation(slug="sun-breaks-out", event=breakout, person=sun, role="escaped"))

    history_cite = cite(h1, "唐生智在南京下令撤退", person=tang, claim="ordered the retreat")
    cite(h1, "唐生智在南京下令撤退", event=order, claim="the order was given at 17:00")
    cite(h1, "唐生智", participation=tang_order, claim="gave the order")
    cite(h1, "南京", location=nanjing, claim="in Nanjing")
    cite(h2, "第七十四军", unit=army74, claim="left through the gate")
    cite(h2, "挹江门", location=gate, claim="a gate of Nanjing")
    cite(h3, "唐生智于二十点到达煤炭港", event=crossing, claim="arrived at the dock at 20:00, two hours late")
    cite(h3, "煤炭港", location=wharf, claim="the dock")
    cite(h4, "=HYPERLINK", post=tang_post, claim="=cmd|' /C calc'!A0")
    novel_cite = cite(n1, "松井石根", person=matsui, claim="gave an order in the novel")
    cite(n2, "孫百里", person=sun, claim="broke out")
    cite(n2, "孫百里带着残部从挹江门突围", event=breakout, claim="broke out through the gate")
    cite(n2, "挹江门", participation=sun_breakout, claim="by the gate")

    world = World(history=history, novel=novel, tang=tang, matsui=matsui, sun=sun, army74=army74, div51=div51,
                  nanjing=nanjing, gate=gate, xiaguan=xiaguan, order=order, crossing=crossing, breakout=breakout,
                  undated=undated, tang_post=tang_post, tang_order=tang_order, history_cite=history_cite,
                  novel_cite=novel_cite)
    plant_secrets(world, h1)
    return world


def _secret(world: World, kind: str, record: Any) -> Any:
    world.secret_ids.setdefault(kind, []).append(record.pk)
    return record


def plant_secrets(world: World, passage: Passage) -> None:
    """Each kind of record in each unapproved status, and approved records hanging on them."""
    for status in HIDDEN:
        tag = f"secret-{status.replace('_', '-')}"
        source = _secret(world, "source", source_with_text(SECRET_TEXT, slug=f"{tag}-source", status=status))
        secret_passage = source.passages.get(seq=1)
        world.secret_passages.append(secret_passage)
        # An approved citation on an unapproved source.
        cite(secret_passage, "唐生智", person=world.tang, claim=f"{MARK} claim on a {status} source")

        person = _secret(world, "person", in_status(Person(slug=f"{tag}-person", name=f"{MARK} person"), status))
        unit = _secret(world, "unit", in_status(
            Unit(slug=f"{tag}-unit", name=f"{MARK} unit", echelon="division", parent=world.army74), status))
        place = _secret(world, "location", in_status(
            Location(slug=f"{tag}-location", name=f"{MARK} place", kind="building", parent=world.nanjing), status))
        event = _secret(world, "event", in_status(
            Event(slug=f"{tag}-event", title=f"{MARK} event", kind="battle", parent=world.order,
                  date="1937-12-12", earliest=_moment(12), latest=_moment(12, 23, 59)), status))
        event.locations.add(world.nanjing)
        # Unapproved posts and participations of approved records.
        post = _secret(world, "post", in_status(
            Post(slug=f"{tag}-post", person=world.tang, unit=world.army74, title=f"{MARK} post"), status))
        part = _secret(world, "participation", in_status(
            Participation(slug=f"{tag}-participation", event=world.order, person=world.tang, role="witness",
                          note=f"{MARK} participation"), status))
        # Approved posts and participations that hang on an unapproved record.
        approved(Post(slug=f"{tag}-approved-post-of-hidden-unit", person=world.tang, unit=unit, title=f"{MARK} p"))
        approved(Post(slug=f"{tag}-approved-post-of-hidden-person", person=person, unit=world.army74, title="x"))
        approved(Participation(slug=f"{tag}-approved-part-of-hidden-person", event=world.order, person=person,
                               role="participant", note=f"{MARK}"))
        approved(Participation(slug=f"{tag}-approved-part-in-hidden-event", event=event, person=world.tang,
                               role="participant", note=f"{MARK}"))
        # Approved citations for each hidden record, and a hidden citation for a public one.
        for target in ({"person": person}, {"unit": unit}, {"location": place}, {"event": event},
                       {"post": post}, {"participation": part}):
            cite(passage, "唐生智", claim=f"{MARK} approved claim about a {status} record", **target)
        _secret(world, "citation", cite(passage, "唐生智", status=status, person=world.tang,
                                        claim=f"{MARK} {status} claim"))
