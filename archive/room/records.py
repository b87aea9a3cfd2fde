"""The records the reading room's pictures are drawn from: the archive now, or as published then.

The timeline, the map, the night and the order of battle ask one of these
for their events, places, participations and units, already carrying what a
picture reads (an event's places as ``visible_places``, statements as
``visible_statements``, citations as ``visible_citations``; a unit's
``visible_posts``), and for the link of each record. `Now` reads the current
rows through `archive.selectors`; `archive.room.records_then.Then` reads the
history, so that ``?as_of=`` and ``?release=`` draw the same pictures of the
archive as it was published then.
"""

from __future__ import annotations

from typing import Any, Protocol

from django.db.models import F, Model

from archive import selectors
from archive.models import Citation, Event, Location, Participation, Status, Unit
from archive.models.registry import FictionMode
from archive.room.links import citation_url, record_url
from archive.room.reading import Window

# A window holds at most this many events; the reader narrows it for more.
MOST_EVENTS = 400


class Records(Protocol):
    """What the pictures read; every list is in the order the pictures show it."""

    held: dict[str, str]  # the query that keeps a link in the same reading ({} now; as_of or release then)

    def link(self, record: Model, mode: FictionMode) -> str: ...

    def citation_link(self, citation: Citation, mode: FictionMode) -> str: ...

    def source_kinds(self) -> dict[str, str]: ...

    def find(self, model: type[Model], slug: str, mode: FictionMode) -> Any: ...

    def events(self, window: Window, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        """Events dated in the window, by earliest, latest and slug: at most `MOST_EVENTS` + 1 (one more says cut)."""

    def invented(self, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        """Fictional events with no place on the real timeline, by date and slug, at most `MOST_EVENTS`."""

    def participations(self, mode: FictionMode, events: list[int], *, evidence: bool) -> list[Participation]:
        """The visible participations of ``events`` with who took part; with ``evidence``, their citations too."""

    def mapped_count(self, mode: FictionMode) -> int: ...

    def mapped_places(self, mode: FictionMode, among: set[int] | None = None) -> list[Location]:
        """Visible places with coordinates (only those of ``among`` if given), by name, with their statements."""

    def units(self, mode: FictionMode) -> list[Unit]:
        """Visible units by name, each with its visible posts (person, statements, citations)."""


class Now:
    """The archive as it is now, read through the selectors (the database narrows and orders)."""

    held: dict[str, str] = {}

    def link(self, record: Model, mode: FictionMode) -> str:
        return record_url(record, mode)

    def citation_link(self, citation: Citation, mode: FictionMode) -> str:
        return citation_url(citation, mode)

    def source_kinds(self) -> dict[str, str]:
        """Source slug → kind, for colouring bars; the archive holds few sources."""
        return dict(selectors.sources().values_list("slug", "kind"))

    def find(self, model: type[Model], slug: str, mode: FictionMode) -> Any:
        approved = model._default_manager.filter(status=Status.APPROVED)
        return selectors.filter_fiction(approved, mode.nested).filter(slug=slug).first()

    def _narrowed(self, mode: FictionMode, narrow: dict[str, Any]) -> Any:
        """Events one person or one unit took part in, or that happened at one place or inside it."""
        queryset = selectors.timeline_events(mode)
        visible = Participation.objects.filter(selectors.visible_participation_q())
        taking_part = selectors.filter_fiction(visible, mode.nested)
        if (person := narrow.get("person")) is not None:
            queryset = queryset.filter(pk__in=taking_part.filter(person=person).values("event_id"))
        if (unit := narrow.get("unit")) is not None:
            queryset = queryset.filter(pk__in=taking_part.filter(unit=unit).values("event_id"))
        if (place := narrow.get("place")) is not None:
            inside = selectors.location_and_descendants(place)
            queryset = queryset.filter(pk__in=Event.locations.through.objects.filter(location_id__in=inside)
                                       .values("event_id"))
        return queryset

    def events(self, window: Window, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        queryset = self._narrowed(mode, narrow).filter(earliest__lt=window.end, latest__gte=window.start)
        return list(queryset.order_by("earliest", "latest", "slug")[: MOST_EVENTS + 1])

    def invented(self, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        queryset = self._narrowed(mode, narrow).filter(earliest__isnull=True, fictional=True)
        return list(queryset.order_by("date", "slug")[:MOST_EVENTS])

    def participations(self, mode: FictionMode, events: list[int], *, evidence: bool) -> list[Participation]:
        if evidence:
            return list(selectors.participations_in(mode, events))
        visible = selectors.filter_fiction(
            Participation.objects.filter(selectors.visible_participation_q(), event__in=events), mode.nested,
        )
        return list(visible.select_related("person", "unit").only(
            "event_id", "role", "person__slug", "person__name", "person__side",
            "unit__slug", "unit__name", "unit__side").order_by("event_id", F("position").asc(nulls_last=True), "id"))

    def mapped_count(self, mode: FictionMode) -> int:
        return selectors.mapped_places(mode).count()

    def mapped_places(self, mode: FictionMode, among: set[int] | None = None) -> list[Location]:
        queryset = selectors.mapped_places(mode)
        if among is not None:
            queryset = queryset.filter(pk__in=among)
        return list(queryset.order_by("name", "slug"))

    def units(self, mode: FictionMode) -> list[Unit]:
        return list(selectors.filter_fiction(selectors.battle_units(mode), mode).order_by("name", "slug"))
