"""The audit's checks: one small function each, registered in `CHECKS`.

A check is a generator decorated with `@check(code, level, summary)`; it
yields `(record, message, passages)` for every case it finds, and the
decorator makes the `Finding`. A new check is one more such function.

The audit reads what is published: approved records and approved citations.
Drafts are reported apart, once per model, by `drafts`.

Longer than most modules because it holds every check, each a few lines:
the list of what the archive verifies about itself reads in one place.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from django.db import models
from django.db.models import Exists, OuterRef, Prefetch

from archive.dating import NANJING
from archive.models import (
    TARGET_FIELDS,
    Citation,
    Curated,
    CuratorNote,
    Event,
    Location,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Rank,
    Statement,
    Status,
    Unit,
    UnitAlias,
)
from archive.models.registry import CITED_MODELS
from archive.models.statements import MULTI_VALUED, STATEMENT_TARGETS
from archive.services.support import bounds_problem, support_problems
from archive.text.normalize import fold

from .findings import Finding, Level


@dataclass(frozen=True)
class Seen:
    """A finding that also names the field and the words it is about (what the audit prints beside the record)."""

    record: models.Model | None
    message: str
    passages: list[Passage]
    field: str = ""
    quote: str = ""
    explained: str = ""


# (record, message, passages), or with a fourth item: the note stored with the value that explains it; or a `Seen`.
Found = (
    tuple[models.Model | None, str, list[Passage]] | tuple[models.Model | None, str, list[Passage], str] | Seen
)

APPROVED = Status.APPROVED


@dataclass(frozen=True)
class Check:
    code: str
    level: Level
    summary: str
    find: Callable[[], Iterable[Found]]

    def run(self) -> Iterator[Finding]:
        for found in self.find():
            if isinstance(found, Seen):
                yield Finding(
                    level=self.level,
                    code=self.code,
                    record=found.record,
                    message=found.message,
                    passages=found.passages,
                    explained_by=found.explained,
                    field=found.field,
                    quote=found.quote,
                )
                continue
            record, message, passages, *explained = found
            yield Finding(
                level=self.level,
                code=self.code,
                record=record,
                message=message,
                passages=passages,
                explained_by=explained[0] if explained else "",
            )


CHECKS: list[Check] = []


Finder = Callable[[], Iterable[Found]]


def check(code: str, level: Level, summary: str) -> Callable[[Finder], Finder]:
    def register(find: Finder) -> Finder:
        CHECKS.append(Check(code=code, level=level, summary=summary, find=find))
        return find

    return register


def approved_citations() -> models.QuerySet[Citation]:
    return Citation.objects.filter(status=APPROVED).select_related("passage__source")


def _field(model: type[models.Model]) -> str:
    return model._meta.label_lower.split(".")[1]


# The records a curator's note or the drafts count may be about.
_RECORD_MODELS: tuple[type[Curated], ...] = (*CITED_MODELS, Citation)


def _bounds(event: Event) -> tuple[dt.datetime, dt.datetime]:
    """The bounds of an event of `_published_events()`, which has both."""
    assert event.earliest is not None and event.latest is not None
    return event.earliest, event.latest


# --------------------------------------------------------------------------- evidence


@check("no-evidence", Level.ERROR, "a published record that no approved citation supports")
def no_evidence() -> Iterator[Found]:
    for model in CITED_MODELS:
        cited = Citation.objects.filter(status=APPROVED, **{_field(model): OuterRef("pk")})
        for record in model.objects.filter(status=APPROVED).exclude(Exists(cited)).order_by("slug"):
            yield record, "no approved citation supports this record", []


@check("duplicate-citation", Level.ERROR, "two approved citations of the same quote for the same record")
def duplicate_citations() -> Iterator[Found]:
    groups: dict[tuple, list[Citation]] = defaultdict(list)
    for citation in approved_citations().order_by("pk"):
        target = tuple(getattr(citation, f"{name}_id") for name in TARGET_FIELDS)
        groups[(citation.passage_id, citation.start, citation.end, target)].append(citation)
    for citations in groups.values():
        if len(citations) > 1:
            first = citations[0]
            slugs = ", ".join(c.slug for c in citations)
            yield first.target, f"the quote «{first.quote}» is cited {len(citations)} times: {slugs}", [first.passage]


# --------------------------------------------------------------------------- names in quotes


def _forms(names: Iterable[str]) -> set[str]:
    forms = set()
    for name in names:
        folded = fold(name)
        forms.add(folded)
        if folded.startswith("第") and len(folded) > 2:
            forms.add(folded[1:])  # 第51师 is also written 51师
    return {form for form in forms if form}


def person_forms() -> dict[int, set[str]]:
    names: dict[int, list[str]] = defaultdict(list)
    for pk, name in Person.objects.values_list("pk", "name"):
        names[pk].append(name)
    for pk, name in PersonName.objects.values_list("person_id", "name"):
        names[pk].append(name)
    return {pk: _forms(values) for pk, values in names.items()}


def unit_forms() -> dict[int, set[str]]:
    names: dict[int, list[str]] = defaultdict(list)
    for pk, name in Unit.objects.values_list("pk", "name"):
        names[pk].append(name)
    for pk, name in UnitAlias.objects.values_list("unit_id", "name"):
        names[pk].append(name)
    return {pk: _forms(values) for pk, values in names.items()}


# Quotation marks inside a name (英国“瓢虫”号) do not make it another name.
_MARKS = re.compile(r"[“”‘’「」『』《》〈〉（）()\"'·・\s]")


def _plain(text: str) -> str:
    return _MARKS.sub("", fold(text))


def _names(forms: set[str], quote: str) -> bool:
    folded = _plain(quote)
    return any(_MARKS.sub("", form) in folded for form in forms)


@check("quote-does-not-name", Level.WARNING, "a participation or post none of whose quotes names its person or unit")
def quote_does_not_name() -> Iterator[Found]:
    people, units = person_forms(), unit_forms()
    citations = (
        approved_citations()
        .filter(models.Q(participation__status=APPROVED) | models.Q(post__status=APPROVED))
        .select_related("participation__person", "participation__unit", "post__person")
    )
    # One quote that names who it is about is enough; the others may go on with 他.
    unnamed: dict[tuple[str, int], list[Citation]] = defaultdict(list)
    named: set[tuple[str, int]] = set()
    records: dict[tuple[str, int], tuple[Participation | Post, object]] = {}
    for citation in citations.order_by("pk"):
        record: Participation | Post
        if (participation := citation.participation) is not None:
            record = participation
            who: object = participation.person or participation.unit
            if participation.person_id is not None:
                forms = people.get(participation.person_id, set())
            else:
                forms = units.get(participation.unit_id or 0, set())
        else:
            assert citation.post is not None  # the query keeps citations of a participation or a post
            record = citation.post
            who, forms = record.person, people.get(record.person_id, set())
        key = (_field(type(record)), record.pk)
        records[key] = (record, who)
        if _names(forms, citation.quote):
            named.add(key)
        else:
            unnamed[key].append(citation)
    for key, missing in unnamed.items():
        if key in named:
            continue
        noted, who = records[key]
        quotes = "; ".join(f"«{c.quote}»" for c in missing)
        yield noted, f"no quote names {who}: {quotes}", [c.passage for c in missing]


# --------------------------------------------------------------------------- time


def _published_events() -> models.QuerySet[Event]:
    return Event.objects.filter(status=APPROVED, fictional=False, earliest__isnull=False)


@check("sub-event-outside-parent", Level.ERROR, "a sub-event whose bounds reach outside its parent's")
def sub_event_outside_parent() -> Iterator[Found]:
    events = _published_events().filter(parent__isnull=False, parent__earliest__isnull=False).select_related("parent")
    for event in events.order_by("slug"):
        parent = event.parent
        assert parent is not None  # the query keeps events with a parent
        (start, end), (parent_start, parent_end) = _bounds(event), _bounds(parent)
        if start < parent_start or end > parent_end:
            yield (
                event,
                f"{when(event.earliest)}–{when(event.latest)} lies outside its parent "
                f"{parent.slug} ({when(parent.earliest)}–{when(parent.latest)})",
                [],
            )


@check("effect-before-cause", Level.ERROR, "an event that may begin before the event it follows from")
def effect_before_cause() -> Iterator[Found]:
    events = _published_events().filter(follows__isnull=False, follows__earliest__isnull=False)
    events = events.select_related("follows")
    for event in events.order_by("slug"):
        cause = event.follows
        assert cause is not None  # the query keeps events that follow another
        if _bounds(event)[0] < _bounds(cause)[0]:
            yield (
                event,
                f"begins at {when(event.earliest)}, before {cause.slug} it follows from ({when(cause.earliest)})",
                [],
            )


# Bounds that overlap say little when they are wide (an evening); two events
# conflict only when both are dated to within two hours.
PRECISE = 2 * 3600


def when(moment: object) -> str:
    """A bound in Nanjing time, as the sources give it."""
    return f"{moment.astimezone(NANJING):%Y-%m-%d %H:%M}"  # type: ignore[attr-defined]  # given a bound, never None


def _ancestors(event_id: int | None, parents: dict[int, int | None]) -> set[int]:
    seen: set[int] = set()
    while event_id is not None and event_id not in seen:
        seen.add(event_id)
        event_id = parents.get(event_id)
    return seen


def _place_lineage(location_id: int, parents: dict[int, int | None]) -> set[int]:
    return _ancestors(location_id, parents)


def _apart(first: set[int], second: set[int], places: dict[int, int | None]) -> bool:
    """No place of one event is, contains or lies in a place of the other."""
    for a, b in itertools.product(first, second):
        if a in _place_lineage(b, places) or b in _place_lineage(a, places):
            return False
    return True


@check("person-in-two-places", Level.ERROR, "one person at two places in overlapping bounds")
def person_in_two_places() -> Iterator[Found]:
    events = {e.pk: e for e in _published_events()}
    precise = {pk for pk, e in events.items() if (_bounds(e)[1] - _bounds(e)[0]).total_seconds() <= PRECISE}
    parents = dict(Event.objects.values_list("pk", "parent_id"))
    places = dict(Location.objects.values_list("pk", "parent_id"))
    located: dict[int, set[int]] = defaultdict(set)
    for event_id, location_id in Event.locations.through.objects.filter(event_id__in=precise).values_list(
        "event_id", "location_id"
    ):
        located[event_id].add(location_id)
    attended: dict[int, list[Participation]] = defaultdict(list)
    participations = Participation.objects.filter(
        status=APPROVED, fictional=False, person__isnull=False, event_id__in=precise
    ).select_related("person")
    for participation in participations.order_by("event__earliest", "pk"):
        attended[participation.person_id].append(participation)
    for entries in attended.values():
        for one, two in itertools.combinations(entries, 2):
            a, b = events[one.event_id], events[two.event_id]
            (a_start, a_end), (b_start, b_end) = _bounds(a), _bounds(b)
            if a.pk == b.pk or a_end < b_start or b_end < a_start:
                continue
            if a.pk in _ancestors(b.pk, parents) or b.pk in _ancestors(a.pk, parents):
                continue
            if not located[a.pk] or not located[b.pk] or not _apart(located[a.pk], located[b.pk], places):
                continue
            yield (
                two,
                f"{one.person} is at {a.slug} ({when(a.earliest)}–{when(a.latest)}) and at {b.slug} "
                f"({when(b.earliest)}–{when(b.latest)}), in places apart",
                [],
            )


# --------------------------------------------------------------------------- places

# How far a place may lie from its parent's point, by the parent's kind (km).
RADIUS_KM = {
    "country": 3000,
    "province": 600,
    "city": 40,
    "county": 60,
    "district": 15,
    "town": 10,
    "village": 5,
    "wall": 10,
    "hill": 10,
    "island": 10,
    "river": 1500,
    "road": 10,
    "building": 1,
    "fort": 5,
    "gate": 1,
    "pier": 2,
}
DEFAULT_RADIUS_KM = 60


def distance_km(lat1: Decimal, lon1: Decimal, lat2: Decimal, lon2: Decimal) -> float:
    """Great-circle distance (haversine, mean Earth radius)."""
    p1, p2 = math.radians(float(lat1)), math.radians(float(lat2))
    dp, dl = p2 - p1, math.radians(float(lon2) - float(lon1))
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


@check("coordinates-outside-parent", Level.ERROR, "a place whose coordinates lie outside its parent place")
def coordinates_outside_parent() -> Iterator[Found]:
    places = Location.objects.filter(
        status=APPROVED, latitude__isnull=False, parent__latitude__isnull=False
    ).select_related("parent")
    for place in places.order_by("slug"):
        parent = place.parent
        radius = RADIUS_KM.get(parent.kind, DEFAULT_RADIUS_KM)
        distance = distance_km(place.latitude, place.longitude, parent.latitude, parent.longitude)
        if distance > radius:
            yield (
                place,
                f"lies {distance:.0f} km from its parent {parent.slug} ({parent.get_kind_display()}, "
                f"at most {radius} km)",
                [],
            )


# --------------------------------------------------------------------------- fiction

# How a curator's text says that it repeats fiction.
FICTION_MARKERS = re.compile(r"\b(?:web novel|the novel|novel's|alternate[- ]history|the chapter)\b|小说|小說", re.I)


def _fiction_evidence(record: models.Model) -> list[Passage]:
    cited = Citation.objects.filter(status=APPROVED, passage__source__is_fiction=True, **{_field(type(record)): record})
    return [c.passage for c in cited.select_related("passage__source").order_by("passage__seq")[:3]]


# Words of a source copied into a curator's text: four Chinese characters or more.
_CJK_RUN = re.compile(r"[\u3400-\u9fff\U00020000-\U0003134f]{4,}")


def _quoted_from_fiction(text: str, passages: list[tuple[str, bool]]) -> str | None:
    """A run of the text's Chinese that the record's fiction passages hold and its other passages do not."""
    runs = [fold(run) for run in _CJK_RUN.findall(text)]
    fiction = "\n".join(folded for folded, is_fiction in passages if is_fiction)
    history = "\n".join(folded for folded, is_fiction in passages if not is_fiction)
    for run in runs:
        if run in fiction and run not in history:
            return run
    return None


def _cited_passages(model: type[models.Model]) -> dict[int, list[tuple[str, bool]]]:
    """Each record's approved passages, folded once, with whether they are fiction."""
    field = _field(model)
    folded: dict[int, str] = {}
    cited: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    rows = Citation.objects.filter(status=APPROVED, **{f"{field}__isnull": False}).values_list(
        field, "passage_id", "passage__text", "passage__source__is_fiction"
    )
    for record_id, passage_id, text, is_fiction in rows.distinct():
        if passage_id not in folded:
            folded[passage_id] = fold(text)
        cited[record_id].append((folded[passage_id], is_fiction))
    return cited


@check("fiction-in-text", Level.ERROR, "a historical record whose own text repeats what fiction says")
def fiction_in_text() -> Iterator[Found]:
    texts = {
        Person: ("description",),
        Unit: ("description",),
        Location: ("description",),
        Event: ("description", "date_text"),
        Post: ("note",),
        Participation: ("note",),
    }
    for model, fields in texts.items():
        passages = _cited_passages(model)
        for record in model.objects.filter(status=APPROVED, fictional=False).order_by("slug"):
            for name in fields:
                text = getattr(record, name)
                match = FICTION_MARKERS.search(text)
                quoted = None if match else _quoted_from_fiction(text, passages.get(record.pk, []))
                if match or quoted:
                    said = f"speaks of fiction («…{match.group(0)}…»)" if match else f"quotes fiction («{quoted}»)"
                    yield (
                        record,
                        f"its {name} {said} in the default view; what only fiction says belongs on the fiction's "
                        "citations",
                        _fiction_evidence(record),
                    )
                    break


@check("fiction-only-value", Level.ERROR, "a historical event shown at a place that only fiction names")
def fiction_only_value() -> Iterator[Found]:
    events = Event.objects.filter(status=APPROVED, fictional=False).prefetch_related("locations")
    for event in events.order_by("slug"):
        for place in event.locations.all():
            if place.fictional:
                yield event, f"its place {place.slug} is fictional: only fiction names it", []


@check("marked-historical", Level.ERROR, "a record that only fiction cites, marked historical without a reason")
def marked_historical() -> Iterator[Found]:
    for model in (Person, Unit, Location):
        field = _field(model)
        cited = Citation.objects.filter(status=APPROVED, **{field: OuterRef("pk")})
        only_fiction = Exists(cited.filter(passage__source__is_fiction=True)) & ~Exists(
            cited.filter(passage__source__is_fiction=False)
        )
        for record in model.objects.filter(only_fiction, status=APPROVED, marked_historical=True).order_by("slug"):
            yield (
                record,
                "only fiction cites it, yet it is marked historical: a curator's note must give the reason",
                _fiction_evidence(record),
            )


# --------------------------------------------------------------------------- statements


def _published_statements() -> models.QuerySet[Statement]:
    return Statement.objects.filter(status=APPROVED).select_related(*STATEMENT_TARGETS)


def accounts_by_field() -> list[list[Statement]]:
    """The published accounts of each single-valued field of each record, in the order they were made."""
    fields: dict[tuple[str, int, str], list[Statement]] = defaultdict(list)
    for statement in _published_statements().exclude(field__in=list(MULTI_VALUED)).order_by("pk"):
        name = statement.target_field
        assert name is not None  # a CHECK constraint: every statement is about one record
        fields[(name, getattr(statement, f"{name}_id"), statement.field)].append(statement)
    return list(fields.values())


@check("statement-without-citation", Level.ERROR, "a published value of a field that no approved citation gives")
def statement_without_citation() -> Iterator[Found]:
    """A value no text gives (coordinates read off a map, a birth year) is explained by its own note."""
    cited = Citation.objects.filter(status=APPROVED, statements=OuterRef("pk"))
    for statement in _published_statements().exclude(Exists(cited)).order_by("slug"):
        message = f"its {statement.field} “{statement.value}” ({statement.slug}) rests on no approved citation"
        yield statement.target, message, [], statement.note.strip()


@check("unranked-conflict", Level.ERROR, "a field with conflicting values and none of them preferred")
def unranked_conflict() -> Iterator[Found]:
    for values in accounts_by_field():
        distinct = {(s.value, s.earliest, s.latest) for s in values if s.rank != Rank.DEPRECATED}
        if len(distinct) > 1 and not any(s.rank == Rank.PREFERRED for s in values):
            first = values[0]
            listed = "; ".join(f"“{s.value}” ({s.get_rank_display()})" for s in values)
            cited = [c for s in values for c in s.citations.filter(status=APPROVED).select_related("passage__source")]
            yield Seen(
                first.target,
                f"its {first.field} has {len(distinct)} values and none is preferred: {listed}",
                list({c.passage_id: c.passage for c in cited}.values()),
                field=first.field,
                quote=" / ".join(s.as_written or s.value for s in values),
            )


# --------------------------------------------------------------------------- curation


@check("stale-note", Level.WARNING, "a curator's note about a record that does not exist")
def stale_note() -> Iterator[Found]:
    notes = list(CuratorNote.objects.order_by("model", "record", "code"))
    existing: set[tuple[str, str]] = set()
    for model in _RECORD_MODELS:
        named = {note.record for note in notes if note.model == _field(model)}
        if named:
            slugs = model.objects.filter(slug__in=named).values_list("slug", flat=True)
            existing |= {(_field(model), slug) for slug in slugs}
    passage_notes = {note.record for note in notes if note.model == "passage"}
    if passage_notes:
        rows = Passage.objects.filter(source__slug__in={key.rsplit("-", 1)[0] for key in passage_notes})
        existing |= {("passage", f"{slug}-{seq}") for slug, seq in rows.values_list("source__slug", "seq")}
    for note in notes:
        if (note.model, note.record) not in existing:
            yield note, f"the note names {note.model} {note.record}, which does not exist", []


@check("drafts", Level.INFO, "records not yet approved, which the audit leaves out")
def drafts() -> Iterator[Found]:
    for model in _RECORD_MODELS:
        count = model.objects.exclude(status=APPROVED).count()
        if count:
            yield None, f"{count} {model._meta.verbose_name_plural} not approved (draft, in review or rejected)", []


# --------------------------------------------------------------------------- what the quotes say


def _accounts_with_quotes() -> Iterator[tuple[Statement, list[Citation]]]:
    """Every published account, with its approved citations (the quotes a reader sees)."""
    cited = Prefetch("citations", queryset=approved_citations().order_by("slug"), to_attr="approved_quotes")
    for statement in _published_statements().prefetch_related(cited).order_by("slug"):
        yield statement, list(statement.approved_quotes)  # set by the Prefetch


@check("stated-not-said", Level.ERROR, "a stated value none of its quotes says; an inference without premises")
def stated_not_said() -> Iterator[Found]:
    for statement, citations in _accounts_with_quotes():
        for problem in support_problems(statement, citations):
            passages = [problem.citation.passage] if problem.citation else [c.passage for c in citations]
            message = f"its {statement.field} “{statement.value}” ({statement.slug}, {statement.basis}): {problem}"
            yield statement.target, message, passages


@check("bounds-contradict-words", Level.ERROR, "an event date whose bounds contradict its own words as written")
def bounds_contradict_words() -> Iterator[Found]:
    for statement, citations in _accounts_with_quotes():
        problem = bounds_problem(statement)
        if problem is not None:
            message = f"its date “{statement.value}” ({statement.slug}): {problem.message}"
            yield statement.target, message, [c.passage for c in citations]
