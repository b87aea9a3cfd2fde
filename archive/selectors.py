"""Read queries that span relations, shared by the API and the admin.

Two rules govern every read that leaves the curators' hands:

* **Approved only, all the way down.** A record is visible when it is approved
  and so is every record it shows: a post needs its person and unit approved,
  a participation its event and its person or unit, a citation its passage's
  source and the record it is evidence for. The `visible_*` Q objects spell
  this out once; every queryset here is built from them.
* **Fiction is a mode of reading.** `FictionMode.EXCLUDE` hides fictional
  records and the citations of fiction; `INCLUDE` shows everything approved;
  `ONLY` lists fictional records alone. Nested data (posts, participations,
  related records, citations) follows `exclude` or `include`, never `only`:
  a fictional event keeps its real places and its full evidence.

Each selector owns its `select_related`/`prefetch_related`, built from
`Prefetch` objects with filtered querysets, so that a page of 200 records
costs the same number of queries as a page of 5.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Prefetch, Q, QuerySet

from archive.models import (
    Citation,
    Curated,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Revision,
    Source,
    Statement,
    Status,
    Unit,
    UnitAlias,
)
from archive.models.registry import TARGET_FIELDS, FictionMode

APPROVED = Status.APPROVED


# Review bookkeeping that nested data never shows; not loading it halves the
# rows' conversion time on a page of events.
BOOKKEEPING = (
    "created_by", "modified_by", "reviewed_by", "reviewed_at", "review_note", "created_at", "updated_at", "version",
)


def _nested(queryset: QuerySet) -> QuerySet:
    return queryset.defer(*BOOKKEEPING)


def _approved(prefix: str = "") -> Q:
    return Q(**{f"{prefix}status": APPROVED})


def visible_post_q(prefix: str = "") -> Q:
    return _approved(prefix) & _approved(f"{prefix}person__") & _approved(f"{prefix}unit__")


def visible_participation_q(prefix: str = "") -> Q:
    return (
        _approved(prefix)
        & _approved(f"{prefix}event__")
        & (_approved(f"{prefix}person__") | _approved(f"{prefix}unit__"))
    )


def visible_citation_q() -> Q:
    """An approved citation on an approved source, evidence for a visible record."""
    target = (
        _approved("person__")
        | _approved("unit__")
        | _approved("location__")
        | _approved("event__")
        | visible_post_q("post__")
        | visible_participation_q("participation__")
    )
    return _approved() & _approved("passage__source__") & target


def filter_fiction(queryset: QuerySet, mode: FictionMode, field: str = "fictional") -> QuerySet:
    """Keep the records a list shows in `mode`; `field` holds their fiction flag."""
    if mode is FictionMode.EXCLUDE:
        return queryset.filter(**{field: False})
    if mode is FictionMode.ONLY:
        return queryset.filter(**{field: True})
    return queryset


# --- citations ---------------------------------------------------------------


def citations() -> QuerySet[Citation]:
    """Visible citations with what a nested citation shows (source, passage)."""
    return (
        Citation.objects.filter(visible_citation_q())
        .select_related("passage__source")
        .defer("passage__source__text")
        .order_by("passage__source__slug", "passage__seq", "start", "id")
    )


def citations_with_targets() -> QuerySet[Citation]:
    """Citations as records of their own, with the record each is evidence for."""
    return citations().select_related(
        "person",
        "unit",
        "location",
        "event",
        "post__person",
        "post__unit",
        "participation__event",
        "participation__person",
        "participation__unit",
    )


def _nested_citations() -> QuerySet[Citation]:
    """Approved citations on approved sources, for nesting under a record already known to be visible.

    The record they rest on is the one being shown, so the test of every
    possible target that `visible_citation_q` makes is left out: its dozen
    joins cost PostgreSQL more to plan (15 ms) than the query takes to run.
    """
    return (
        Citation.objects.filter(_approved() & _approved("passage__source__"))
        .select_related("passage__source")
        # What a nested citation shows, and the keys the prefetch matches on: nothing else is read.
        .only(
            "id", "quote", "claim", "rank", "passage__id", "passage__seq",
            "passage__source__id", "passage__source__slug", "passage__source__title",
            "passage__source__is_fiction",
            *(f"{target}_id" for target in TARGET_FIELDS),
        )
        .order_by("passage__source__slug", "passage__seq", "start", "id")
    )


def _citations_prefetch(mode: FictionMode, to: str = "citations", *, of_parent: bool = True) -> Prefetch:
    """The visible citations of each record fetched; `of_parent` when they are evidence for that record."""
    base = _nested_citations() if of_parent else citations()
    queryset = filter_fiction(_nested(base), mode.nested, "passage__source__is_fiction")
    return Prefetch(to, queryset=queryset, to_attr="visible_citations")


# --- statements ------------------------------------------------------------------


def _statement_fictional() -> Q:
    """A statement whose approved citations all come from fiction (`archive.statements`)."""
    cited = Citation.objects.filter(statements=OuterRef("pk"), status=APPROVED, passage__source__status=APPROVED)
    return Q(Exists(cited.filter(passage__source__is_fiction=True))) & ~Q(
        Exists(cited.filter(passage__source__is_fiction=False))
    )


def _statements_prefetch(mode: FictionMode) -> Prefetch:
    """The record's approved statements visible in `mode`, each with its visible citations.

    With fiction excluded, a fictional account is left out and an account's
    fiction citations with it; the serializer chooses among what is left.
    """
    cited = (
        Citation.objects.filter(_approved() & _approved("passage__source__"))
        .select_related("passage__source")
        .only("id", "quote", "claim", "rank", "passage__id", "passage__seq", "passage__source__id",
              "passage__source__slug", "passage__source__title", "passage__source__is_fiction")
        .order_by("passage__source__slug", "passage__seq", "start", "id")
    )
    cited = filter_fiction(cited, mode.nested, "passage__source__is_fiction")
    queryset = _nested(Statement.objects.approved()).annotate(
        fictional=ExpressionWrapper(_statement_fictional(), output_field=BooleanField())
    )
    if mode.nested is FictionMode.EXCLUDE:
        queryset = queryset.filter(fictional=False)
    queryset = queryset.prefetch_related(Prefetch("citations", queryset=cited, to_attr="visible_citations"))
    return Prefetch("statements", queryset=queryset, to_attr="visible_statements")


# --- related records -----------------------------------------------------------


def _locations(mode: FictionMode) -> QuerySet[Location]:
    return filter_fiction(Location.objects.approved(), mode)


def _nested_locations(mode: FictionMode) -> QuerySet[Location]:
    return _nested(_locations(mode)).defer("description")


def place_refs(mode: FictionMode, to: str, to_attr: str | None = None) -> Prefetch:
    """Places shown as references, each with its (visible) parent; as a list ``to_attr`` if named."""
    queryset = _nested_locations(mode.nested).prefetch_related(
        Prefetch("parent", queryset=_nested_locations(mode.nested))
    )
    return Prefetch(to, queryset=queryset, to_attr=to_attr)


def _ref(model: type[Curated], mode: FictionMode, to: str) -> Prefetch:
    """A related record shown as `{slug, name, url}`: visible or absent."""
    return Prefetch(to, queryset=filter_fiction(_nested(model.objects.approved()).defer("description"), mode.nested))


def _posts(mode: FictionMode) -> QuerySet[Post]:
    queryset = (
        _nested(Post.objects.filter(visible_post_q())).select_related("person", "unit")
        .prefetch_related(_citations_prefetch(mode), _statements_prefetch(mode))
    )
    return filter_fiction(queryset, mode.nested)


def _participations(mode: FictionMode) -> QuerySet[Participation]:
    queryset = (
        _nested(Participation.objects.filter(visible_participation_q()))
        .select_related("event", "person", "unit")
        .prefetch_related(_citations_prefetch(mode), _statements_prefetch(mode))
    )
    if mode.nested is FictionMode.EXCLUDE:
        # A real person's part in an invented event is itself invented.
        queryset = queryset.exclude(event__fictional=True)
    return filter_fiction(queryset, mode.nested)


# --- top-level records -------------------------------------------------------------
# Each takes the mode that governs its nested data; a list narrows the records
# themselves with `filter_fiction`, a detail shows the record whatever it is.


def sources() -> QuerySet[Source]:
    return Source.objects.approved().defer("text")


def passage_rows() -> QuerySet[Passage]:
    """The passages shown, in archive order, with nothing of what their documents show (a page's keys)."""
    return Passage.objects.filter(source__status=APPROVED).order_by("source__slug", "seq")


def passages(mode: FictionMode = FictionMode.INCLUDE) -> QuerySet[Passage]:
    return (
        passage_rows()
        .select_related("source", "quotes")
        .defer("source__text", "quotes__text")
        # A passage's citations are evidence for other records, whose visibility must be tested.
        .prefetch_related(_citations_prefetch(mode, of_parent=False))
    )


def persons(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Person]:
    return Person.objects.approved().prefetch_related(
        Prefetch("names", queryset=PersonName.objects.order_by("id")),
        Prefetch("posts", queryset=_posts(mode), to_attr="visible_posts"),
        Prefetch(
            "participations",
            queryset=_participations(mode).order_by("event__earliest", "event__slug", "id"),
            to_attr="visible_participations",
        ),
        _citations_prefetch(mode),
        _statements_prefetch(mode),
    )


def units(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Unit]:
    return Unit.objects.approved().prefetch_related(
        # In the order they were entered, on every engine and after a restore (the table's order is none).
        Prefetch("aliases", queryset=UnitAlias.objects.order_by("id")),
        _ref(Unit, mode, "parent"),
        Prefetch(
            "children",
            queryset=filter_fiction(_nested(Unit.objects.approved()).defer("description"), mode.nested),
            to_attr="visible_children",
        ),
        Prefetch("posts", queryset=_posts(mode), to_attr="visible_posts"),
        _citations_prefetch(mode),
    )


def battle_units(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Unit]:
    """Units as the order of battle draws them: each with its visible posts (person, statements, citations).

    Not `units()`: the tree is built from `parent_id`, and its pages show neither a unit's aliases nor
    its own citations, which `units()` reads for a unit's document (hundreds of citations with their
    passages and sources, on every order of battle and every night).
    """
    return Unit.objects.approved().defer("description").prefetch_related(
        Prefetch("posts", queryset=_posts(mode), to_attr="visible_posts"),
    )


def locations(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Location]:
    return _locations(FictionMode.INCLUDE).prefetch_related(
        Prefetch("aliases", queryset=LocationAlias.objects.order_by("id")),
        place_refs(mode, "parent"),
        _citations_prefetch(mode),
        _statements_prefetch(mode),
    )


def events(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Event]:
    return Event.objects.approved().prefetch_related(
        place_refs(mode, "locations"),
        _ref(Event, mode, "parent"),
        Prefetch(
            "children",
            queryset=filter_fiction(_nested(Event.objects.approved()).defer("description"), mode.nested),
            to_attr="visible_children",
        ),
        Prefetch("participations", queryset=_participations(mode), to_attr="visible_participations"),
        _citations_prefetch(mode),
        _statements_prefetch(mode),
    )


# --- helpers of filters -----------------------------------------------------------------


def descendants(pairs: Iterable[tuple[int, int | None]], root: int) -> set[int]:
    """The ids of `root` and of every place inside it, from (id, parent_id) pairs.

    Done in Python from one query rather than a recursive CTE, so that both
    engines run the same code; a cycle (refused by `clean()`) cannot loop.
    """
    children: dict[int | None, list[int]] = defaultdict(list)
    for pk, parent in pairs:
        children[parent].append(pk)
    found = {root}
    stack = [root]
    while stack:
        for child in children[stack.pop()]:
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def location_and_descendants(location: Location) -> set[int]:
    pairs = Location.objects.approved().values_list("id", "parent_id")
    return descendants(pairs, location.pk)


def citations_of_source(source: Source) -> QuerySet[Citation]:
    """The visible citations of one source's passages (for the `source` filters)."""
    return Citation.objects.filter(visible_citation_q(), passage__source=source)


# --- the reading room's pictures ----------------------------------------------------------
# The timeline and the map draw many events at once: each event with its dated
# accounts and its places, and none of what only its own page shows.


def timeline_events(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Event]:
    """Visible events in `mode` with their places (`visible_places`), statements (dates, places) and citations."""
    queryset = _nested(Event.objects.approved()).defer("description").prefetch_related(
        place_refs(mode, "locations", "visible_places"),
        _citations_prefetch(mode),
        _statements_prefetch(mode),
    )
    return filter_fiction(queryset, mode)


def mapped_places(mode: FictionMode = FictionMode.EXCLUDE) -> QuerySet[Location]:
    """Visible places in `mode` that have coordinates, with their coordinate statements."""
    queryset = _nested(_locations(FictionMode.INCLUDE)).defer("description").filter(
        latitude__isnull=False, longitude__isnull=False
    ).prefetch_related(_statements_prefetch(mode))
    return filter_fiction(queryset, mode)


def my_drafts_of_source(source: Source, user: Any) -> QuerySet[Citation]:
    """The draft citations `user` made in the passages of `source` (what "submit my drafts" sends)."""
    return Citation.objects.filter(passage__source=source, created_by=user, status=Status.DRAFT)


def pending_review_key(record: Curated) -> str | None:
    """What of `record` waits for review, as the review queue names it (``?item=``): itself, or its change."""
    if record.status == Status.IN_REVIEW:
        return f"{record._meta.model_name}-{record.pk}"
    if record.status != Status.APPROVED:
        return None
    pending = Revision.objects.pending().of(record).values_list("pk", flat=True).first()
    return f"revision-{pending}" if pending is not None else None


def participations_in(mode: FictionMode, events: Iterable[int]) -> QuerySet[Participation]:
    """The visible participations of the given events, each with who took part and the citations that say so."""
    # Unplaced participations last on every engine (SQLite would put NULL first, PostgreSQL last).
    return _participations(mode).filter(event_id__in=list(events)).order_by(
        "event_id", F("position").asc(nulls_last=True), "id")
