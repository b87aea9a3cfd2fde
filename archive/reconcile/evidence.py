"""What the archive shows of each candidate, for scoring a query's properties.

Everything here is read through the API's visibility rules (`archive.selectors`):
approved records only, and in the query's fiction mode, so that a property
cannot match on a post, a part in an event or a place that the reader of the
API would not see. Dates are the records' own bounds, which hold the choice
of the record's own nature (`archive.statements`): a historical event never
carries a novel's date.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import QuerySet

from archive import selectors
from archive.models import Event, Location, Participation, Person, Post, Unit
from archive.models.registry import FictionMode

_DATE = re.compile(r"^\s*(-?\d{1,4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?\s*$")


@dataclass
class Evidence:
    """Related records (by type, their pks and every ancestor's), date spans, and plain fields."""

    related: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    spans: list[tuple[dt.date | None, dt.date | None]] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)


def date_span(text: str) -> tuple[dt.date, dt.date] | None:
    """The days a date written `YYYY`, `YYYY-MM` or `YYYY-MM-DD` covers, or None."""
    found = _DATE.match(text)
    if not found:
        return None
    year, month, day = (int(part) if part else None for part in found.groups())
    assert year is not None
    try:
        if month is None:
            return dt.date(year, 1, 1), dt.date(year, 12, 31)
        if day is None:
            first = dt.date(year, month, 1)
            following = dt.date(year + month // 12, month % 12 + 1, 1)
            return first, following - dt.timedelta(days=1)
        day_of = dt.date(year, month, day)
        return day_of, day_of
    except ValueError:
        return None


def _day(moment: dt.datetime | None) -> dt.date | None:
    return moment.date() if moment is not None else None


def _year_span(edtf: str) -> dt.date | None:
    span = date_span(edtf[:10]) if edtf else None
    return span[0] if span else None


def _ancestors(model: type[Location] | type[Unit] | type[Event]) -> dict[int, list[int]]:
    """Each approved record's chain: itself and every approved ancestor."""
    parents = dict(model.objects.approved().values_list("id", "parent_id"))
    chains: dict[int, list[int]] = {}
    for pk in parents:
        chain, at = [], pk
        while at is not None and at in parents and at not in chain:
            chain.append(at)
            at = parents[at]
        chains[pk] = chain
    return chains


def _with_ancestors(pks: Iterable[int], chains: dict[int, list[int]]) -> set[int]:
    return {ancestor for pk in pks for ancestor in chains.get(pk, [pk])}


def _event_places(event_ids: set[int], mode: FictionMode) -> dict[int, set[int]]:
    places = selectors.filter_fiction(Location.objects.approved(), mode.nested)
    through = Event.locations.through.objects.filter(event_id__in=event_ids, location__in=places)
    found: dict[int, set[int]] = defaultdict(set)
    for event_id, location_id in through.values_list("event_id", "location_id"):
        found[event_id].add(location_id)
    return found


def _participations(mode: FictionMode) -> QuerySet[Participation]:
    parts = Participation.objects.filter(selectors.visible_participation_q())
    if mode.nested is FictionMode.EXCLUDE:
        parts = parts.exclude(event__fictional=True)
    return selectors.filter_fiction(parts, mode.nested)


def of_persons(pks: set[int], mode: FictionMode) -> dict[int, Evidence]:
    found = {pk: Evidence() for pk in pks}
    units = _ancestors(Unit)
    posts = selectors.filter_fiction(Post.objects.filter(selectors.visible_post_q(), person_id__in=pks), mode.nested)
    for person_id, unit_id in posts.values_list("person_id", "unit_id"):
        found[person_id].related["unit"] |= _with_ancestors([unit_id], units)
    parts = _participations(mode).filter(person_id__in=pks)
    rows = list(parts.values_list("person_id", "event_id", "event__earliest", "event__latest"))
    places = _event_places({row[1] for row in rows}, mode)
    chains = _ancestors(Location)
    for person_id, event_id, earliest, latest in rows:
        evidence = found[person_id]
        evidence.spans.append((_day(earliest), _day(latest)))
        evidence.related["place"] |= _with_ancestors(places.get(event_id, ()), chains)
    for pk, birth, death, side in Person.objects.filter(pk__in=pks).values_list("pk", "birth", "death", "side"):
        if birth or death:
            found[pk].spans.append((_year_span(birth), _year_span(death)))
        found[pk].fields["side"] = side
    return found


def of_units(pks: set[int], mode: FictionMode) -> dict[int, Evidence]:
    found = {pk: Evidence() for pk in pks}
    chains = _ancestors(Unit)
    for pk, side, echelon in Unit.objects.filter(pk__in=pks).values_list("pk", "side", "echelon"):
        found[pk].related["parent"] = set(chains.get(pk, [pk])[1:])
        found[pk].fields.update(side=side, echelon=echelon)
    return found


def of_locations(pks: set[int], mode: FictionMode) -> dict[int, Evidence]:
    chains = _ancestors(Location)
    found = {pk: Evidence() for pk in pks}
    for pk in pks:
        found[pk].related["parent"] = set(chains.get(pk, [pk])[1:])
    return found


def of_events(pks: set[int], mode: FictionMode) -> dict[int, Evidence]:
    found = {pk: Evidence() for pk in pks}
    places = _event_places(pks, mode)
    locations, events = _ancestors(Location), _ancestors(Event)
    for pk, earliest, latest in Event.objects.filter(pk__in=pks).values_list("pk", "earliest", "latest"):
        evidence = found[pk]
        evidence.spans.append((_day(earliest), _day(latest)))
        evidence.related["place"] = _with_ancestors(places.get(pk, ()), locations)
        evidence.related["parent"] = set(events.get(pk, [pk])[1:])
    return found


READERS = {"person": of_persons, "unit": of_units, "location": of_locations, "event": of_events}
# The type of the records a related property names.
RELATED_TYPE = {
    ("person", "unit"): "unit", ("person", "place"): "location", ("unit", "parent"): "unit",
    ("location", "parent"): "location", ("event", "place"): "location", ("event", "parent"): "event",
}
