"""Each stated value as a reader reads it: a place by its name and page, a role by its label, never a stored code.

A statement keeps its value in canonical form (`Statement.value`: a place's
slug, a role's code, EDTF for a date); the room turns the values of one whole
page into words at once, with one query for all the places it names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.utils.translation import gettext as _

from archive import selectors
from archive.models import Location, ParticipationRole
from archive.models.registry import FictionMode
from archive.models.statements import StatementField
from archive.room.links import record_url


def _entries(context: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every account shown on a page: the record's own and those of its posts and participations."""
    blocks: list[Iterable[dict[str, Any]]] = [context.get("stated", [])]
    for key in ("posts", "participations"):
        blocks += [item["stated"] for item in context.get(key, [])]
    for block in blocks:
        for field in block:
            for entry in field["accounts"]:
                yield field["field"].name, entry


def _role(value: str) -> str:
    try:
        return str(ParticipationRole(value).label)
    except ValueError:
        return value


def label_values(context: dict[str, Any], mode: FictionMode) -> None:
    """Give every account of the page its `shown` words and, for a place, the `url` of its page."""
    entries = list(_entries(context))
    slugs = {entry["account"].value for name, entry in entries if name == StatementField.LOCATION}
    places: dict[str, Location] = {}
    if slugs:
        visible = selectors.filter_fiction(Location.objects.approved(), mode.nested)
        places = {p.slug: p for p in visible.filter(slug__in=slugs).only("slug", "name", "fictional")}
    for name, entry in entries:
        value = entry["account"].value
        entry["url"] = None
        if name == StatementField.LOCATION:
            place = places.get(value)
            entry["shown"] = place.name if place is not None else _("a place not shown in this reading")
            entry["url"] = record_url(place, mode) if place is not None else None
        elif name == StatementField.ROLE:
            entry["shown"] = _role(value)
        else:
            entry["shown"] = value
