"""The entity types the service reconciles against, and the properties each is scored and extended by."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class EntityType:
    id: str
    name: Promise
    api_path: str  # the API's collection, e.g. `persons`


@dataclass(frozen=True)
class Property:
    id: str
    name: Promise
    description: Promise
    scored: bool  # compared with a query's value when given in `properties`
    extended: bool = True  # offered by data extension


TYPES: dict[str, EntityType] = {
    "person": EntityType("person", _("Person"), "persons"),
    "unit": EntityType("unit", _("Unit"), "units"),
    "location": EntityType("location", _("Place"), "locations"),
    "event": EntityType("event", _("Event"), "events"),
}

# `fiction` is not a field of a record but the reading a query asks for.
FICTION = Property("fiction", _("Fiction"), _("exclude (default), include or only"), scored=False, extended=False)

PROPERTIES: dict[str, tuple[Property, ...]] = {
    "person": (
        Property("unit", _("Unit"), _("a unit the person held a post in (name or id)"), scored=True),
        Property("date", _("Date"), _("a date (YYYY, YYYY-MM or YYYY-MM-DD) the person was alive or took part in"),
                 scored=True, extended=False),
        Property("place", _("Place"), _("a place of an event the person took part in (name or id)"), scored=True,
                 extended=False),
        Property("side", _("Side"), _("chinese, japanese, third_country or unknown"), scored=True),
        Property("birth", _("Birth"), _("date of birth (EDTF)"), scored=False),
        Property("death", _("Death"), _("date of death (EDTF)"), scored=False),
    ),
    "unit": (
        Property("parent", _("Parent unit"), _("the unit it belonged to (name or id)"), scored=True),
        Property("side", _("Side"), _("chinese, japanese, third_country or unknown"), scored=True),
        Property("echelon", _("Echelon"), _("army, corps, division, brigade, regiment …"), scored=True),
    ),
    "location": (
        Property("parent", _("Parent place"), _("a place it lies in (name or id)"), scored=True),
        Property("coordinates", _("Coordinates"), _("latitude,longitude"), scored=False),
        Property("latitude", _("Latitude"), _("decimal degrees north"), scored=False),
        Property("longitude", _("Longitude"), _("decimal degrees east"), scored=False),
    ),
    "event": (
        Property("date", _("Date"), _("a date (YYYY, YYYY-MM or YYYY-MM-DD) within the event"), scored=True),
        Property("place", _("Place"), _("a place of the event (name or id)"), scored=True),
        Property("parent", _("Parent event"), _("the event it is part of (name or id)"), scored=True),
        Property("earliest", _("Earliest"), _("the earliest moment it can have happened"), scored=False),
        Property("latest", _("Latest"), _("the latest moment it can have happened"), scored=False),
    ),
}


def properties_of(type_id: str | None) -> tuple[Property, ...]:
    """The properties of one type, or of every type (each id once) when none is given."""
    if type_id is not None:
        return PROPERTIES[type_id]
    seen: dict[str, Property] = {}
    for properties in PROPERTIES.values():
        for prop in properties:
            seen.setdefault(prop.id, prop)
    return tuple(seen.values())


def entity_id(type_id: str, slug: str) -> str:
    """The identifier of a record in this service: its type and slug, e.g. `person:tang-shengzhi`."""
    return f"{type_id}:{slug}"


def parse_entity_id(value: str) -> tuple[str, str] | None:
    type_id, colon, slug = value.partition(":")
    # A NUL names no record, and PostgreSQL refuses it in a query.
    if not colon or type_id not in TYPES or not slug or "\x00" in slug:
        return None
    return type_id, slug
