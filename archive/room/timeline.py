"""The events of a window as rows of a timeline: each account a bar from `earliest` to `latest`.

An event whose visible date statements disagree gets one bar per account,
side by side in its row; its sub-events follow it, indented. Events of an
invented calendar (alternate history: no bounds on the real timeline) go to
a track of their own, which only a reader who asked for fiction sees.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils.timezone import localtime

from archive.models import Event
from archive.models.registry import FictionMode
from archive.room.reading import Window
from archive.room.records import MOST_EVENTS, Records
from archive.room.stated import stated_fields, stated_value


@dataclass
class Bar:
    earliest: dt.datetime
    latest: dt.datetime
    as_written: str
    kind: str
    source: str
    fictional: bool


@dataclass
class Row:
    event: Event
    url: str
    depth: int
    bars: list[Bar]
    places: list[str]
    date_text: str = ""
    date: str = ""


@dataclass
class Timeline:
    rows: list[Row]
    invented: list[Row] = field(default_factory=list)
    truncated: bool = False


def _kind(citations: Iterable[Any], kinds: dict[str, str]) -> tuple[str, str]:
    for citation in citations:
        source = citation.passage.source
        return kinds.get(source.slug, ""), source.title
    return "", ""


def bars_of(event: Event, mode: FictionMode, kinds: dict[str, str]) -> list[Bar]:
    dated = next((stated for stated in stated_fields(event, mode) if stated.name == "date"), None)
    if dated is None:
        # No visible statement dates it: the column holds the choice of the event's own nature.
        if event.earliest is None or event.latest is None:
            return []
        kind, title = _kind(getattr(event, "visible_citations", ()), kinds)
        return [Bar(event.earliest, event.latest, event.date_text, kind, title, event.fictional)]
    # Every live account is drawn, side by side, the chosen one first.
    live = dated.shown + [a for a in dated.accounts if a.rank != "deprecated" and a not in dated.shown]
    bars = []
    for account in live:
        statement = account.statement
        if statement.earliest is None or statement.latest is None:
            continue
        kind, title = _kind(account.citations, kinds)
        bars.append(Bar(statement.earliest, statement.latest, statement.as_written, kind, title, account.fictional))
    return bars


def _places(event: Event) -> list[str]:
    return [place.name for place in event.visible_places]  # type: ignore[attr-defined]  # set by the records


def _ordered(events: list[Event]) -> list[tuple[Event, int]]:
    """Each parent followed by its sub-events; a sub-event whose parent is not shown stands alone."""
    shown = {event.pk for event in events}
    children: dict[int, list[Event]] = {}
    roots = []
    for event in events:
        if event.parent_id in shown:
            children.setdefault(event.parent_id, []).append(event)
        else:
            roots.append(event)
    ordered: list[tuple[Event, int]] = []
    # Walked with a stack, not recursion: sub-events may nest as deep as the window holds events.
    stack = [(root, 0) for root in reversed(roots)]
    while stack:
        event, depth = stack.pop()
        ordered.append((event, depth))
        stack.extend((child, depth + 1) for child in reversed(children.get(event.pk, [])))
    return ordered


def timeline(window: Window, mode: FictionMode, records: Records, **narrow: Any) -> Timeline:
    """The events of the window as ``records`` hold them (now, or as published then), narrowed as asked."""
    kinds = records.source_kinds()
    events = records.events(window, mode, narrow)
    truncated = len(events) > MOST_EVENTS
    rows = []
    for event, depth in _ordered(events[:MOST_EVENTS]):
        bars = bars_of(event, mode, kinds)
        if bars:
            rows.append(Row(event, records.link(event, mode), depth, bars, _places(event),
                            bars[0].as_written, event.date))
    invented = []
    if mode is not FictionMode.EXCLUDE:
        for event in records.invented(mode, narrow):
            accounts = stated_value(event, mode, "date")
            written = accounts[0].statement.as_written if accounts else event.date_text
            value = accounts[0].value if accounts else event.date
            invented.append(Row(event, records.link(event, mode), 0, [], _places(event), written, value))
    return Timeline(rows, invented, truncated)


GROUPS = ("event", "unit", "place")


def taking_part(line: Timeline, mode: FictionMode, records: Records) -> dict[int, tuple[str, list[str]]]:
    """Each shown event's side (one side, `mixed`, or `unknown`) and the units that took part, in one query."""
    visible = records.participations(mode, [row.event.pk for row in line.rows], evidence=False)
    sides: dict[int, set[str]] = {}
    units: dict[int, list[str]] = {}
    for participation in visible:
        who: Any = participation.person or participation.unit  # a visible participation names one of them
        if who.side != "unknown":
            sides.setdefault(participation.event_id, set()).add(who.side)
        if participation.unit is not None and participation.unit.name not in units.get(participation.event_id, []):
            units.setdefault(participation.event_id, []).append(participation.unit.name)
    found = {}
    for row in line.rows:
        seen = sides.get(row.event.pk, set())
        side = next(iter(seen)) if len(seen) == 1 else ("mixed" if seen else "unknown")
        found[row.event.pk] = (side, sorted(units.get(row.event.pk, [])))
    return found


def bar_data(line: Timeline, parts: dict[int, tuple[str, list[str]]] | None = None) -> list[dict[str, Any]]:
    """The rows as the timeline's script draws them (the table beside it shows the same)."""
    parts = parts or {}
    return [
        {
            "slug": row.event.slug,
            "title": row.event.title,
            "url": row.url,
            "depth": row.depth,
            "places": row.places,
            "side": parts.get(row.event.pk, ("unknown", []))[0],
            "units": parts.get(row.event.pk, ("unknown", []))[1],
            "bars": [
                {
                    "earliest": localtime(bar.earliest).isoformat(),
                    "latest": localtime(bar.latest).isoformat(),
                    "as_written": bar.as_written,
                    "kind": bar.kind,
                    "source": bar.source,
                    "fictional": bar.fictional,
                }
                for bar in row.bars
            ],
        }
        for row in line.rows
    ]


def narrowing_choices(line: Timeline, mode: FictionMode, records: Records) -> dict[str, list[tuple[str, str]]]:
    """The people, units and places of the events shown: what the reader may narrow the timeline to."""
    visible = records.participations(mode, [row.event.pk for row in line.rows], evidence=False)
    people: dict[str, str] = {}
    units: dict[str, str] = {}
    for participation in visible:
        if participation.person is not None:
            people[participation.person.slug] = participation.person.name
        if participation.unit is not None:
            units[participation.unit.slug] = participation.unit.name
    places = {place.slug: place.name for row in line.rows for place in row.event.visible_places}  # type: ignore[attr-defined]
    return {name: sorted(found.items(), key=lambda pair: (pair[1], pair[0]))
            for name, found in (("person", people), ("unit", units), ("place", places))}
