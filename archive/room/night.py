"""The night at a glance: who was where at one moment, by which account, and who commanded what.

A *span* is one person or unit at one place for as long as one dated account
of an event allows: the event's participations give who, its location
statements give where (each with the sources that say so), its date
statements give when (each account a span of its own). At a moment, a reader
sees the spans that cover it; of one source's spans for one person or unit,
the narrowest in time is the position, so that "left the pier at 9" is shown
rather than "left the city that evening". Two sources that disagree each keep
their own position, side by side. The script of the page applies the same
rule to the same spans as the reader moves the slider.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils.timezone import localtime

from archive import dating
from archive.models import Event, Participation
from archive.models.registry import FictionMode
from archive.room import battle, places
from archive.room import timeline as timelines
from archive.room.reading import NANJING, Window
from archive.room.records import MOST_EVENTS, Records
from archive.room.stated import stated_value

# 21:00 on 12 December: the headquarters' launch leaves 煤炭港.
DEFAULT_AT = dt.datetime(1937, 12, 12, 21, 0, tzinfo=NANJING)
# Without a window the slider runs half a day either side of the moment.
HALF_WINDOW = dt.timedelta(hours=12)
# The page carries at most this many spans; a wider window is refused as too wide, never cut silently.
MOST_SPANS = 4000
# The accounts narrower than this make a path: a whole day or a month places nobody at an hour.
TRAIL_SPAN = dt.timedelta(hours=23, minutes=59)


@dataclass
class Span:
    who: dict[str, str]
    role: str
    event: dict[str, str]
    place: dict[str, Any]
    earliest: dt.datetime
    latest: dt.datetime
    as_written: str
    sources: list[str]
    kind: str
    fictional: bool

    def covers(self, moment: dt.datetime) -> bool:
        return self.earliest <= moment <= self.latest


@dataclass
class Position:
    """One person or unit at one place at the moment, as one source (or set of sources) tells it."""

    who: dict[str, str]
    place: dict[str, Any]
    sources: list[str]
    spans: list[Span] = field(default_factory=list)


@dataclass
class Night:
    moment: dt.datetime
    window: Window
    spans: list[Span]
    positions: list[Position]
    trails: list[dict[str, Any]]
    commands: list[Command]
    truncated: bool


def default_window(moment: dt.datetime) -> Window:
    return Window(moment - HALF_WINDOW, moment + HALF_WINDOW)


def _who(participation: Participation, mode: FictionMode, records: Records) -> dict[str, str]:
    record: Any = participation.person or participation.unit
    kind = "person" if participation.person is not None else "unit"
    return {"key": f"{kind}:{record.slug}", "kind": kind, "slug": record.slug, "name": record.name,
            "url": records.link(record, mode), "side": record.side}


def _titles(citations: Iterable[Any]) -> list[str]:
    return sorted({citation.passage.source.title for citation in citations})


Place = dict[str, Any]


def _where(event: Event, mode: FictionMode, mapped: dict[str, Place]) -> list[tuple[Place, list[str]]]:
    """The event's mapped places, each with the sources of the statement that puts the event there."""
    accounts = stated_value(event, mode, "location")
    if accounts is None:
        return [(mapped[place.slug], []) for place in event.visible_places if place.slug in mapped]  # type: ignore[attr-defined]
    return [(mapped[account.value], _titles(account.citations)) for account in accounts if account.value in mapped]


def _mapped(events: list[Event], mode: FictionMode, records: Records) -> dict[str, dict[str, Any]]:
    among = {place.pk for event in events for place in event.visible_places}  # type: ignore[attr-defined]
    found = {}
    for place in records.mapped_places(mode, among):
        point = places.coordinates(place, mode)
        if point is not None:
            found[place.slug] = {"slug": place.slug, "name": place.name, "url": records.link(place, mode),
                                 "lat": point[0], "lon": point[1],
                                 "radius": places.radius_m(place.coordinate_precision)}
    return found


def spans_of(window: Window, mode: FictionMode, records: Records) -> tuple[list[Span], bool]:
    kinds = records.source_kinds()
    events = records.events(window, mode, {})
    truncated = len(events) > MOST_EVENTS
    events = events[:MOST_EVENTS]
    mapped = _mapped(events, mode, records)
    taking_part: dict[int, list[Participation]] = {}
    for participation in records.participations(mode, [event.pk for event in events], evidence=True):
        taking_part.setdefault(participation.event_id, []).append(participation)
    spans = []
    for event in events:
        whos = taking_part.get(event.pk, [])
        where = _where(event, mode, mapped) if whos else []
        said = {"slug": event.slug, "title": event.title, "url": records.link(event, mode)}
        dated = timelines.bars_of(event, mode, kinds) if where else []
        for participation in whos:
            who = _who(participation, mode, records)
            cited = _titles(getattr(participation, "visible_citations", ()))
            for bar in dated:
                for place, sources in where:
                    named = sorted({*sources, bar.source} - {""}) or cited
                    spans.append(Span(who, participation.get_role_display(), said, place, bar.earliest,
                                      bar.latest, bar.as_written, named, bar.kind, bar.fictional))
    if len(spans) > MOST_SPANS:
        return spans[:MOST_SPANS], True
    return spans, truncated


def positions_at(spans: list[Span], moment: dt.datetime) -> list[Position]:
    """Of the spans covering the moment, each source's narrowest for each person or unit, grouped by place."""
    narrowest: dict[tuple[str, tuple[str, ...]], dt.timedelta] = {}
    covering = [span for span in spans if span.covers(moment)]
    for span in covering:
        key = (span.who["key"], tuple(span.sources))
        length = span.latest - span.earliest
        narrowest[key] = min(length, narrowest.get(key, length))
    grouped: dict[tuple[str, str, tuple[str, ...]], Position] = {}
    for span in covering:
        if span.latest - span.earliest != narrowest[(span.who["key"], tuple(span.sources))]:
            continue
        place = (span.who["key"], span.place["slug"], tuple(span.sources))
        grouped.setdefault(place, Position(span.who, span.place, span.sources)).spans.append(span)
    return sorted(grouped.values(), key=lambda p: (p.who["name"], p.who["key"], p.place["name"], p.sources))


def trails(spans: list[Span], positions: list[Position]) -> list[dict[str, Any]]:
    """Each positioned person's or unit's path through the window: one point per event, its most precise place."""
    shown = {position.who["key"] for position in positions}
    by_event: dict[tuple[str, str, dt.datetime, dt.datetime], Span] = {}
    for span in spans:
        # An account a day or more wide ("in December") says nothing of the night's movements.
        if span.who["key"] not in shown or span.latest - span.earliest >= TRAIL_SPAN:
            continue
        key = (span.who["key"], span.event["slug"], span.earliest, span.latest)
        best = by_event.get(key)
        if best is None or (span.place["radius"], span.place["name"]) < (best.place["radius"], best.place["name"]):
            by_event[key] = span
    paths: dict[str, list[Span]] = {}
    for span in sorted(by_event.values(), key=lambda s: (s.earliest, s.latest, s.event["slug"])):
        path = paths.setdefault(span.who["key"], [])
        if not path or path[-1].place["slug"] != span.place["slug"]:
            path.append(span)
    return [{"who": path[0].who, "points": [{"place": s.place["name"], "time": _clock(s.earliest)} for s in path]}
            for path in paths.values() if len(path) > 1]


def _clock(moment: dt.datetime) -> str:
    return localtime(moment).strftime("%m-%d %H:%M")


def _bounds(value_from: str, value_to: str) -> tuple[dt.datetime | None, dt.datetime | None]:
    """A post's EDTF dates as the first and last moment they allow; a missing or unreadable end is open."""
    try:
        start = dating.bounds(value_from)[0] if value_from else None
    except dating.BadDate:
        start = None
    try:
        end = dating.bounds(value_to)[1] if value_to else None
    except dating.BadDate:
        end = None
    return start, end


@dataclass
class Command:
    """A unit of the order of battle with its posts, each marked held or not at the moment."""

    line: battle.Line
    posts: list[dict[str, Any]]


def commands_at(mode: FictionMode, moment: dt.datetime, records: Records) -> list[Command]:
    """Every unit with commanders; a post whose dates exclude the moment is marked, an undated post stays."""
    commands = []
    for line in battle.lines(battle.tree(mode, records)):
        posts = []
        for post in line.node.posts:
            start, end = _bounds(post.date_from, post.date_to)
            sources = sorted({(c["citation"].passage.source.slug, c["citation"].passage.source.title)
                              for c in post.citations})
            posts.append({"post": post.post, "title": post.title, "sources": sources,
                          "start": start.isoformat() if start else "",
                          "end": end.isoformat() if end else "", "dated": bool(post.date_from or post.date_to),
                          "when": post.when,
                          "held": (start is None or start <= moment) and (end is None or moment <= end)})
        if posts:
            commands.append(Command(line, posts))
    return commands


def night(moment: dt.datetime, window: Window, mode: FictionMode, records: Records) -> Night:
    """The night as ``records`` hold it: the archive now, or as published then."""
    spans, truncated = spans_of(window, mode, records)
    shown = positions_at(spans, moment)
    return Night(moment, window, spans, shown, trails(spans, shown), commands_at(mode, moment, records), truncated)


def span_data(spans: list[Span]) -> dict[str, Any]:
    """The spans as the page's script reads them: who, places, events and sources written once, spans as rows
    of references to them (the same person at the same place in many accounts would repeat them otherwise)."""
    who: dict[str, dict[str, str]] = {}
    where: dict[str, dict[str, Any]] = {}
    what: dict[str, dict[str, str]] = {}
    sources: dict[str, int] = {}
    rows = []
    for span in spans:
        who.setdefault(span.who["key"], span.who)
        where.setdefault(span.place["slug"], span.place)
        what.setdefault(span.event["slug"], span.event)
        named = sources.setdefault("\n".join(span.sources), len(sources))
        rows.append([span.who["key"], span.role, span.event["slug"], span.place["slug"],
                     localtime(span.earliest).isoformat(), localtime(span.latest).isoformat(),
                     span.as_written, named, span.kind, span.fictional])
    return {"who": who, "places": where, "events": what,
            "sources": [named.split("\n") if named else [] for named in sources], "spans": rows}
