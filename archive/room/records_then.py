"""The records the pictures draw, as published at a moment or as a release holds them.

Read from the history (`archive.mementos`), as the record pages then are:
each kind's published states become unsaved model instances carrying what
the pictures read (`archive.room.records`), so the timeline, the map, the
night and the order of battle draw the past with the code that draws the
present. What a picture shows is filtered here as the selectors filter it
now: approved then, on a source published then, fiction as the reader chose.

Only what a picture can show is read: every place, unit and post published
then (the map and the order of battle show them all), but events only if
they stood in the window (or undated) at some moment up to then, and people,
statements, citations and passages only of the records drawn. Whether a
record is fiction is derived and not kept in its history: its current flag
decides, as on the record pages then.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Model

from archive import mementos, selectors
from archive.models import Citation, Event, Location, Participation, Passage, Person, Post, Source, Statement, Unit
from archive.models.registry import FictionMode
from archive.room.links import citation_url, record_url
from archive.room.reading import Window
from archive.room.records import MOST_EVENTS


def _instance(model: type[Model], row: Any) -> Any:
    """An unsaved instance of ``model`` with the fields a history row kept."""
    return model(**{f.attname: getattr(row, f.attname) for f in model._meta.concrete_fields if hasattr(row, f.attname)})


class Then:
    """The archive as published at ``read.read_at``, or as ``read.release`` holds it."""

    def __init__(self, read: mementos.Listing) -> None:
        self.read = read
        release = read.release.number if read.release is not None else None
        self.held = {"release": str(release)} if release is not None else {"as_of": mementos.moment_text(read.read_at)}
        self._kinds: dict[type[Model], dict[int, Any]] = {}  # the records read, by kind and id
        self._whole: set[type[Model]] = set()  # the kinds read whole
        self._absent: dict[type[Model], set[int]] = {}  # ids read and found not published then
        self._history_ids: dict[int, int] = {}  # event id → the history row of its state then (its places)

    # --- links -----------------------------------------------------------------------

    def link(self, record: Model, mode: FictionMode) -> str:
        return record_url(record, mode, self.held)

    def citation_link(self, citation: Citation, mode: FictionMode) -> str:
        return citation_url(citation, mode, self.held)

    # --- each kind's published states --------------------------------------------------

    def _all(self, model: type[Model]) -> dict[int, Any]:
        """Every record of ``model`` published then, by id (for the kinds a picture shows whole: places, units)."""
        if model not in self._whole:
            self._whole.add(model)
            self._keep(model, mementos.published_states(model, self.read))  # type: ignore[arg-type]  # curated
        return self._kinds.setdefault(model, {})

    def _some(self, model: type[Model], ids: Iterable[int]) -> dict[int, Any]:
        """The records ``ids`` of ``model`` that were published then, by id (each read once per page)."""
        known = self._kinds.setdefault(model, {})
        asked = set(ids) - {None}  # a link that names no record
        missing = asked - known.keys() - self._absent.setdefault(model, set())
        if missing and model not in self._whole:
            self._keep(model, mementos.published_states(model, self.read, missing))  # type: ignore[arg-type]
            self._absent[model].update(missing - known.keys())
        return {pk: known[pk] for pk in asked if pk in known}

    def _keep(self, model: type[Model], states: list[Any]) -> None:
        made = self._made(model, states)
        self._kinds.setdefault(model, {}).update(made)
        if model is Event:
            self._history_ids.update((state.id, state.history_id) for state in states)

    def _made(self, model: type[Model], states: list[Any]) -> dict[int, Any]:
        """Instances of the states, each with its current fiction flag (the history does not keep it)."""
        made = {state.id: _instance(model, state) for state in states}
        if any(f.name == "fictional" for f in model._meta.concrete_fields):
            fiction = {pk for chunk in mementos.chunks(made) for pk in model._default_manager.filter(
                pk__in=chunk, fictional=True).values_list("pk", flat=True)}
            for pk, record in made.items():
                record.fictional = pk in fiction
        return made

    def _stood(self, model: type[Model], **lookup: Any) -> set[int]:
        """The ids of the records of ``model`` that had a state matching ``lookup`` at or before the moment.

        Only these can match it then: their state then is read and tested again.
        """
        history = model.history.model._default_manager  # type: ignore[attr-defined]  # simple-history adds it
        stood = history.filter(history_date__lte=self.read.read_at, **lookup)
        return set(stood.order_by().values_list("id", flat=True).distinct())

    def _of(self, model: type[Model], field: str, targets: Iterable[int]) -> list[Any]:
        """The history rows of the records of ``model`` published then whose ``field`` then was one of ``targets``."""
        targets = set(targets)
        ids = {pk for chunk in mementos.chunks(targets) for pk in self._stood(model, **{f"{field}_id__in": chunk})}
        states = mementos.published_states(model, self.read, ids) if ids else []  # type: ignore[arg-type]
        return [state for state in states if getattr(state, f"{field}_id") in targets]

    # --- evidence ------------------------------------------------------------------------

    def _on_passages(self, states: list[Any]) -> list[Citation]:
        """Citations then, each on its passage then, of a source published then (the others are not shown)."""
        sources = self._all(Source)
        history = Passage.history.model._default_manager
        passages: dict[int, Passage] = {}
        for chunk in mementos.chunks(state.passage_id for state in states):
            for row in mementos.latest(history.filter(id__in=chunk, history_date__lte=self.read.read_at)):
                if row.source_id in sources:
                    passage = _instance(Passage, row)
                    passage.source = sources[row.source_id]
                    passages[row.id] = passage
        cited = []
        for citation in self._made(Citation, states).values():
            if citation.passage_id in passages:
                citation.passage = passages[citation.passage_id]
                cited.append(citation)
        return sorted(cited, key=lambda c: (c.passage.source.slug, c.passage.seq, c.start, c.pk))

    def _citations(self, records: list[Any], field: str, mode: FictionMode) -> dict[int, list[Citation]]:
        """The citations then of ``records`` (the records their ``field`` names), fiction's as the mode keeps it."""
        by_record: dict[int, list[Citation]] = {}
        for citation in self._on_passages(self._of(Citation, field, [r.pk for r in records])):
            if mode.nested.shows(citation.passage.source.is_fiction):
                by_record.setdefault(getattr(citation, f"{field}_id"), []).append(citation)
        return by_record

    def _statements(self, records: list[Any], field: str, mode: FictionMode) -> dict[int, list[Statement]]:
        """The approved statements then of ``records``, each with its visible citations then.

        An account whose approved citations all come from fiction is fictional,
        and left out when fiction is (as `selectors` annotates it now).
        """
        states = self._of(Statement, field, [r.pk for r in records])
        links = Statement.history.model.citations.model._default_manager  # simple-history's links of each row
        of_row = {state.history_id: state.id for state in states}
        cited_by: dict[int, set[int]] = {}
        for chunk in mementos.chunks(of_row):
            for history_id, citation_id in links.filter(history_id__in=chunk).values_list("history_id", "citation_id"):
                cited_by.setdefault(of_row[history_id], set()).add(citation_id)
        wanted = {pk for ids in cited_by.values() for pk in ids}
        citations = {c.pk: c for c in self._on_passages(
            mementos.published_states(Citation, self.read, wanted) if wanted else [])}
        by_record: dict[int, list[Statement]] = {}
        in_order = sorted(states, key=lambda s: (s.field, s.position is None, s.position or 0, s.id))
        for statement in self._made(Statement, in_order).values():
            cited = sorted((citations[pk] for pk in cited_by.get(statement.pk, ()) if pk in citations),
                           key=lambda c: (c.passage.source.slug, c.passage.seq, c.start, c.pk))
            fictional = bool(cited) and all(c.passage.source.is_fiction for c in cited)
            if fictional and mode.nested is FictionMode.EXCLUDE:
                continue
            statement.fictional = fictional
            statement.visible_citations = [c for c in cited if mode.nested.shows(c.passage.source.is_fiction)]
            by_record.setdefault(getattr(statement, f"{field}_id"), []).append(statement)
        return by_record

    # --- what the pictures ask -------------------------------------------------------------

    def source_kinds(self) -> dict[str, str]:
        return {source.slug: source.kind for source in self._all(Source).values()}

    def find(self, model: type[Model], slug: str, mode: FictionMode) -> Any:
        return next((record for record in self._some(model, self._stood(model, slug=slug)).values()
                     if record.slug == slug and mode.nested.shows(record.fictional)), None)

    def _places_then(self, events: list[Event]) -> dict[int, set[int]]:
        """Each event's places as its state then linked them (the history keeps an event's links per row)."""
        links = Event.history.model.locations.model._default_manager  # simple-history's links of each row
        of_row = {self._history_ids[event.pk]: event.pk for event in events}
        found: dict[int, set[int]] = {}
        for chunk in mementos.chunks(of_row):
            for history_id, place in links.filter(history_id__in=chunk).values_list("history_id", "location_id"):
                found.setdefault(of_row[history_id], set()).add(place)
        return found

    def _narrowed(self, candidates: set[int], mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        """Of the ``candidates``, the events shown in ``mode`` that the reader's narrowing keeps."""
        events = [event for event in self._some(Event, candidates).values() if mode.shows(event.fictional)]
        for name in ("person", "unit"):
            if (record := narrow.get(name)) is not None:
                taking_part = self._of(Participation, name, [record.pk])
                parts = self._made(Participation, taking_part).values()
                ids = {p.event_id for p in parts if mode.nested.shows(p.fictional)}
                events = [event for event in events if event.pk in ids]
        if (place := narrow.get("place")) is not None:
            pairs = [(p.pk, p.parent_id) for p in self._all(Location).values()]
            inside = selectors.descendants(pairs, place.pk)
            located = self._places_then(events)
            events = [event for event in events if located.get(event.pk, set()) & inside]
        return events

    def _decorate(self, events: list[Any], mode: FictionMode) -> list[Event]:
        """The events with what a picture reads of them: places, statements and citations then."""
        located = self._places_then(events)
        places = self._some(Location, {pk for linked in located.values() for pk in linked})
        statements = self._statements(events, "event", mode)
        citations = self._citations(events, "event", mode)
        for event in events:
            event.visible_places = sorted(
                (places[pk] for pk in located.get(event.pk, ())
                 if pk in places and mode.nested.shows(places[pk].fictional)), key=lambda p: (p.name, p.slug))
            event.visible_statements = statements.get(event.pk, [])
            event.visible_citations = citations.get(event.pk, [])
        return events

    def events(self, window: Window, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        candidates = self._stood(Event, earliest__lt=window.end, latest__gte=window.start)
        dated = [e for e in self._narrowed(candidates, mode, narrow) if e.earliest is not None
                 and e.latest is not None and e.earliest < window.end and e.latest >= window.start]
        dated.sort(key=lambda e: (e.earliest, e.latest, e.slug))
        return self._decorate(dated[: MOST_EVENTS + 1], mode)

    def invented(self, mode: FictionMode, narrow: dict[str, Any]) -> list[Event]:
        candidates = self._stood(Event, earliest__isnull=True)
        undated = [e for e in self._narrowed(candidates, mode, narrow) if e.earliest is None and e.fictional]
        undated.sort(key=lambda e: (e.date, e.slug))
        return self._decorate(undated[:MOST_EVENTS], mode)

    def participations(self, mode: FictionMode, events: list[int], *, evidence: bool) -> list[Participation]:
        parts = self._made(Participation, self._of(Participation, "event", events)).values()
        shown_events = self._some(Event, {part.event_id for part in parts})
        people = self._some(Person, {part.person_id for part in parts})
        units = self._some(Unit, {part.unit_id for part in parts})
        found = []
        for part in parts:
            event = shown_events.get(part.event_id)
            if event is None or not mode.nested.shows(part.fictional):
                continue
            if mode.nested is FictionMode.EXCLUDE and event.fictional:
                continue  # a real person's part in an invented event is itself invented
            part.event = event
            part.person = people.get(part.person_id)
            part.unit = units.get(part.unit_id)
            if part.person is not None or part.unit is not None:
                found.append(part)
        if evidence:
            citations = self._citations(found, "participation", mode)
            for part in found:
                part.visible_citations = citations.get(part.pk, [])
        return sorted(found, key=lambda p: (p.event_id, p.position is None, p.position or 0, p.pk))

    def _mapped(self, mode: FictionMode) -> list[Location]:
        return [place for place in self._all(Location).values() if mode.shows(place.fictional)
                and place.latitude is not None and place.longitude is not None]

    def mapped_count(self, mode: FictionMode) -> int:
        return len(self._mapped(mode))

    def mapped_places(self, mode: FictionMode, among: set[int] | None = None) -> list[Location]:
        places: list[Any] = [place for place in self._mapped(mode) if among is None or place.pk in among]
        statements = self._statements(places, "location", mode)
        for place in places:
            place.visible_statements = statements.get(place.pk, [])
        return sorted(places, key=lambda p: (p.name, p.slug))

    def units(self, mode: FictionMode) -> list[Unit]:
        units = sorted((u for u in self._all(Unit).values() if mode.shows(u.fictional)),
                       key=lambda u: (u.name, u.slug))
        all_units, all_posts = self._all(Unit), self._all(Post).values()
        people = self._some(Person, {post.person_id for post in all_posts})
        posts = [post for post in all_posts if post.person_id in people
                 and post.unit_id in all_units and mode.nested.shows(post.fictional)]
        citations = self._citations(posts, "post", mode)
        statements = self._statements(posts, "post", mode)
        by_unit: dict[int, list[Post]] = {}
        for post in sorted(posts, key=lambda p: (p.title, p.slug)):
            post.person, post.unit = people[post.person_id], all_units[post.unit_id]
            post.visible_citations = citations.get(post.pk, [])
            post.visible_statements = statements.get(post.pk, [])
            by_unit.setdefault(post.unit_id, []).append(post)
        for unit in units:
            unit.visible_posts = by_unit.get(unit.pk, [])
        return units
