"""The places of the map: coordinates as the statements give them, precision as a radius, events at each."""

from __future__ import annotations

import re
from typing import Any

from archive.models import Event
from archive.models.registry import FictionMode
from archive.models.statements import parse_coordinates
from archive.room.records import Records
from archive.room.stated import stated_value

# "±200 m", "±1.5 km", "within 1 km": the curators write the precision for people; the map reads the figure.
_PRECISION = re.compile(r"(\d+(?:\.\d+)?)\s*(km|m)\b")
UNKNOWN_PRECISION_M = 1000.0
MOST_EVENTS_PER_PLACE = 30
# Beyond this many places the map keeps only those where something happened in the window.
MOST_PLACES = 1500


def radius_m(precision: str) -> float:
    match = _PRECISION.search(precision)
    if match is None:
        return UNKNOWN_PRECISION_M
    figure = float(match.group(1))
    return figure * 1000 if match.group(2) == "km" else figure


def coordinates(place: Any, mode: FictionMode) -> tuple[float, float] | None:
    accounts = stated_value(place, mode, "coordinates")
    if accounts:
        latitude, longitude = parse_coordinates(accounts[0].value)
        return float(latitude), float(longitude)
    if accounts is not None or place.latitude is None or place.longitude is None:
        return None
    return float(place.latitude), float(place.longitude)


def _events_by_place(events: list[Event], mode: FictionMode, records: Records) -> dict[int, list[dict[str, str]]]:
    found: dict[int, list[dict[str, str]]] = {}
    for event in events:
        for place in event.visible_places:  # type: ignore[attr-defined]  # set by the records
            found.setdefault(place.pk, []).append({"title": event.title, "url": records.link(event, mode)})
    return found


def map_data(mode: FictionMode, events: list[Event], records: Records) -> list[dict[str, Any]]:
    """Each mapped place with its radius and the events of the window that happened there."""
    at = _events_by_place(events, mode, records)
    places = []
    among = set(at) if records.mapped_count(mode) > MOST_PLACES else None
    for place in records.mapped_places(mode, among):
        point = coordinates(place, mode)
        if point is None:
            continue
        places.append({
            "slug": place.slug,
            "name": place.name,
            "url": records.link(place, mode),
            "lat": point[0],
            "lon": point[1],
            "radius": radius_m(place.coordinate_precision),
            "precision": place.coordinate_precision,
            "events": at.get(place.pk, [])[:MOST_EVENTS_PER_PLACE],
        })
    return places
