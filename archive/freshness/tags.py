"""The tags of the API documents that show a row, worked out when the row is written.

A record's document nests other records: an event shows its participants'
names, its places with their parents, its parent and children; a person shows
the events and units of their participations and posts; every document shows
its citations, and a citation shows its target. A write to a row therefore
touches the row's own document and lists and those of every record that
nests it, and nothing else. Sources and passages appear in nearly every
document (a source's title in every citation), so writing one touches `*`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.db import models

from archive.models import (
    TARGET_FIELDS,
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    SlugRedirect,
    Source,
    Statement,
    Unit,
    UnitAlias,
)
from archive.models.curation import Curated, Status
from archive.models.document_versions import EVERYTHING
from archive.models.statements import STATEMENT_TARGETS

RECORD_KINDS = ("person", "unit", "location", "event")
RECORD_MODELS = (Person, Unit, Location, Event)


def own(kind: str, slugs: Iterable[str | None]) -> set[str]:
    """The detail documents of `slugs` of `kind` and every list of that kind."""
    found = {f"{kind}:{slug}" for slug in slugs if slug}
    return found | {f"{kind}:list"} if found else found


def list_tag(kind: str) -> str:
    return f"{kind}:list"


def _slugs(queryset: models.QuerySet) -> list[str]:
    return list(queryset.values_list("slug", flat=True))


def _citations(**lookup: object) -> set[str]:
    """The citations of a record: whether a passage shows them depends on the record, so their passages too."""
    rows = list(Citation.objects.filter(**lookup).values_list("pk", "passage_id", "passage__source__slug"))
    found = {f"citation:{pk}" for pk, _, _ in rows} | ({list_tag("citation")} if rows else set())
    for _, passage, source in rows:
        found |= {f"passage:{passage}", f"source:{source}:passages"}
    return found


def _citations_of(field: str, pks: Iterable[int]) -> set[str]:
    wanted = [pk for pk in pks if pk is not None]
    return _citations(**{f"{field}__in": wanted}) if wanted else set()


def nesting_person(person: Person) -> set[str]:
    participations = Participation.objects.filter(person_id=person.pk)
    posts = Post.objects.filter(person_id=person.pk)
    return (
        own("event", _slugs(Event.objects.filter(participations__person_id=person.pk)))
        | own("unit", _slugs(Unit.objects.filter(posts__person_id=person.pk)))
        | _citations(person_id=person.pk)
        | _citations_of("participation", participations.values_list("pk", flat=True))
        | _citations_of("post", posts.values_list("pk", flat=True))
    )


def nesting_unit(unit: Unit) -> set[str]:
    participations = Participation.objects.filter(unit_id=unit.pk)
    posts = Post.objects.filter(unit_id=unit.pk)
    return (
        own("unit", _slugs(Unit.objects.filter(models.Q(pk=unit.parent_id) | models.Q(parent_id=unit.pk))))
        | own("person", _slugs(Person.objects.filter(posts__unit_id=unit.pk)))
        | own("event", _slugs(Event.objects.filter(participations__unit_id=unit.pk)))
        | _citations(unit_id=unit.pk)
        | _citations_of("participation", participations.values_list("pk", flat=True))
        | _citations_of("post", posts.values_list("pk", flat=True))
    )


def nesting_location(location: Location) -> set[str]:
    # A place is shown with its parent, so its name reaches its children's and grandchildren's documents.
    children = Location.objects.filter(parent_id=location.pk)
    grandchildren = Location.objects.filter(parent__parent_id=location.pk)
    places = Event.objects.filter(models.Q(locations=location.pk) | models.Q(locations__parent_id=location.pk))
    return (
        own("location", _slugs(children) + _slugs(grandchildren))
        | own("event", _slugs(places.distinct()))
        | _citations(location_id=location.pk)
    )


def nesting_event(event: Event) -> set[str]:
    participations = Participation.objects.filter(event_id=event.pk)
    return (
        own("event", _slugs(Event.objects.filter(models.Q(pk=event.parent_id) | models.Q(parent_id=event.pk))))
        | own("person", _slugs(Person.objects.filter(participations__event_id=event.pk)))
        | own("unit", _slugs(Unit.objects.filter(participations__event_id=event.pk)))
        | _citations(event_id=event.pk)
        | _citations_of("participation", participations.values_list("pk", flat=True))
    )


# What nests a record of each kind; each is called with a record of its own kind.
_NESTING: dict[str, Callable[[Any], set[str]]] = {
    "person": nesting_person, "unit": nesting_unit, "location": nesting_location, "event": nesting_event}


def record(instance: Person | Unit | Location | Event) -> set[str]:
    """A record's own documents and those of everything that nests it."""
    kind = instance._meta.model_name
    assert kind in RECORD_KINDS
    return own(kind, [instance.slug]) | _NESTING[kind](instance)


def saved(stored: models.Model | None, instance: models.Model | None) -> set[str]:
    """The tags a save touches: of the row as it was stored and as it is now (None where no document shows it).

    Another record's document shows a record only by reference: its slug, its
    name (an event's title) and, for a place, its parent's. A save of a
    published record that keeps those, its parent and whether it is marked
    historical changes only its own documents (its detail and its kind's list). One that changes them touches
    what nests it too, read once for both states: a save of the record's own
    row changes no other table, and its key and parent decide what nests it.
    """
    if (isinstance(stored, RECORD_MODELS) and type(stored) is type(instance)
            and _place(stored) == _place(instance)):
        kind = str(stored._meta.model_name)
        if _shown_by_reference(stored) == _shown_by_reference(instance):
            return own(kind, [stored.slug])
        return own(kind, [stored.slug, instance.slug]) | _NESTING[kind](instance)  # type: ignore[union-attr]
    return (touched(stored) if stored is not None else set()) | (touched(instance) if instance is not None else set())


def _place(record: models.Model | None) -> tuple[object, object]:
    return (getattr(record, "pk", None), getattr(record, "parent_id", None))


def _shown_by_reference(record: models.Model | None) -> tuple[object, object, object]:
    """What a reference to the record shows in the documents of others (`serializers.ref`), and what may hide it.

    `marked_historical` decides the stored `fictional` flag (`archive.fiction`, written without signals
    after the save), by which a document left in one fiction mode may show the record or not.
    """
    name = getattr(record, "title" if isinstance(record, Event) else "name", None)
    return (getattr(record, "slug", None), name, getattr(record, "marked_historical", None))


def _slug_of(model: type[models.Model], pk: int | None) -> str | None:
    if pk is None:
        return None
    return model._default_manager.filter(pk=pk).values_list("slug", flat=True).first()


def participation(instance: Participation) -> set[str]:
    return (
        own("event", [_slug_of(Event, instance.event_id)])
        | own("person", [_slug_of(Person, instance.person_id)])
        | own("unit", [_slug_of(Unit, instance.unit_id)])
        | _citations(participation_id=instance.pk)
    )


def post(instance: Post) -> set[str]:
    return (
        own("person", [_slug_of(Person, instance.person_id)])
        | own("unit", [_slug_of(Unit, instance.unit_id)])
        | _citations(post_id=instance.pk)
    )


def _target(instance: Citation | Statement, flags: Mapping[tuple[str, int], bool | None] | None = None) -> set[str]:
    """What a citation or a statement is about, as if it had been written itself.

    Either may change the record's stored fields and its `fictional` flag
    (written with `update()`, which sends no signal), and with them whether
    other documents show the record at all. Given the `flags` a person, unit,
    place or event had before a citation's save (`record_flags`), one whose
    flag is still the same touches only its own documents: the others show it
    by reference, which a citation does not change.
    """
    fields = TARGET_FIELDS if isinstance(instance, Citation) else STATEMENT_TARGETS
    for field in fields:
        pk = getattr(instance, f"{field}_id")
        if pk is not None:
            model = instance._meta.get_field(field).related_model
            assert isinstance(model, type) and issubclass(model, models.Model)
            # Read again: during a cascading delete the target may already be gone (its own signal tells).
            target = model._default_manager.filter(pk=pk).order_by().first()
            if target is None:
                return set()
            if flags is not None and isinstance(target, RECORD_MODELS) and flags.get((field, pk)) == target.fictional:
                return own(field, [target.slug])
            return touched(target)
    return set()


def citation(instance: Citation, flags: Mapping[tuple[str, int], bool | None] | None = None) -> set[str]:
    """A citation's documents, its passage's, and its record's (with what nests the record: see `_target`)."""
    passage_tags = {f"passage:{instance.passage_id}"}
    source = Source.objects.filter(passages=instance.passage_id).values_list("slug", flat=True).first()
    if source:
        passage_tags.add(f"source:{source}:passages")
    return {f"citation:{instance.pk}", list_tag("citation")} | passage_tags | _target(instance, flags)


def record_flags(citations: Iterable[Citation]) -> dict[tuple[str, int], bool | None]:
    """The stored `fictional` flag of each person, unit, place or event the citations are evidence for."""
    found: dict[tuple[str, int], bool | None] = {}
    for instance in citations:
        field = instance.target_field
        if field in RECORD_KINDS:
            pk = getattr(instance, f"{field}_id")
            model = instance._meta.get_field(field).related_model
            assert isinstance(model, type) and issubclass(model, models.Model)
            found[(field, pk)] = model._default_manager.filter(pk=pk).values_list("fictional", flat=True).first()
    return found


def is_public(instance: models.Model) -> bool:
    """Whether a document of the API may show `instance`: only published rows are shown.

    A curated row is public when approved; a name, an alias or a passage when
    the record or source it belongs to is. A rejected or withdrawn row that was
    published before is caught by the caller, which reads the row as stored.
    """
    if isinstance(instance, Curated):
        return instance.status == Status.APPROVED
    owner = {PersonName: (Person, "person_id"), UnitAlias: (Unit, "unit_id"),
             LocationAlias: (Location, "location_id"), Passage: (Source, "source_id")}.get(type(instance))
    if owner is None:
        return True
    model, field = owner
    return model._default_manager.filter(pk=getattr(instance, field), status=Status.APPROVED).exists()


def touched(instance: models.Model) -> set[str]:
    """Every tag whose documents may show `instance` as it is now (an empty set for rows the API never shows)."""
    if isinstance(instance, Person | Unit | Location | Event):
        return record(instance)
    if isinstance(instance, Participation):
        return participation(instance)
    if isinstance(instance, Post):
        return post(instance)
    if isinstance(instance, Citation):
        return citation(instance)
    if isinstance(instance, Statement):
        return _target(instance)
    if isinstance(instance, PersonName):
        return own("person", [_slug_of(Person, instance.person_id)])
    if isinstance(instance, UnitAlias):
        return own("unit", [_slug_of(Unit, instance.unit_id)])
    if isinstance(instance, LocationAlias):
        return own("location", [_slug_of(Location, instance.location_id)])
    if isinstance(instance, Source | Passage | SlugRedirect):
        return {EVERYTHING}
    return set()


WATCHED: tuple[type[models.Model], ...] = (
    Person, Unit, Location, Event, Participation, Post, Citation, Statement,
    PersonName, UnitAlias, LocationAlias, Source, Passage, SlugRedirect,
)
