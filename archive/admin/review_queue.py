"""What waits for review, as a light index: filtered, counted, sorted and paged before anything is rendered.

A queue of a thousand items cannot be rendered whole (each item shows its
evidence in whole passages). So the queue first reads one line per item —
its kind of record, kind of change, source, author, age, batch, version —
from one `.values()` query per model and one for the pending revisions;
filters, counts per filter value, sorting, grouping of batches and paging
happen on those lines in Python; only the page's items are then read whole
(`archive.admin.review`). Patrol tools work the same way: the list is cheap,
the diff is read when opened.

A facet's counts are those of the items matching every other filter, so a
count says what choosing that value would show.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.paginator import Page, Paginator
from django.db.models import CharField, F, IntegerField, QuerySet, Value
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from archive.models import Batch, Citation, Curated, Revision, RevisionKind, Source, Status
from archive.models.registry import CURATED_MODELS
from archive.services import decisions
from archive.services import review as curation
from archive.text.numbers import whole_number

PAGE_SIZE = 20

CHANGES = {
    "new": _("new record"),
    "revision": _("revision"),
    "merge": _("merge"),
    "deletion": _("deletion"),
}
_CHANGE_OF_KIND: dict[str, str] = {
    RevisionKind.CHANGE: "revision",
    RevisionKind.REVERT: "revision",
    RevisionKind.MERGE: "merge",
    RevisionKind.DELETE: "deletion",
}
AGES = {
    "day": (_("today"), 0, 1),
    "week": (_("this week"), 1, 7),
    "month": (_("this month"), 7, 30),
    "older": (_("older"), 30, None),
}
SORTS = {
    "kind": _("kind of record"),
    "oldest": _("oldest first"),
    "newest": _("newest first"),
    "author": _("author"),
}
FACETS = ("kind", "change", "source", "author", "age")

_ORDER = {model._meta.model_name: n for n, model in enumerate(CURATED_MODELS)}
_MODELS = {str(model._meta.model_name): model for model in CURATED_MODELS}


@dataclass
class Item:
    """One thing waiting for review: a record in review (`record-…`) or a pending revision (`revision-…`)."""

    key: str
    model: str
    pk: int
    change: str
    author: str
    waiting_since: dt.datetime
    version: int = 0
    source: str = ""
    source_title: str = ""
    batch: int | None = None
    order: tuple[Any, ...] = ()
    mine: bool = False  # whether the reader contributed to it (or may not review its kind)

    @property
    def is_revision(self) -> bool:
        return self.change != "new"

    def age(self, now: dt.datetime) -> str:
        days = (now - self.waiting_since).total_seconds() / 86400
        for name, (_label, low, high) in AGES.items():
            if days >= low and (high is None or days < high):
                return name
        return "older"


@dataclass
class Filters:
    kind: str = ""
    change: str = ""
    source: str = ""
    author: str = ""
    age: str = ""
    batch: int | None = None
    item: str = ""
    sort: str = "kind"
    errors: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> Filters:
        found = cls()
        for name, allowed in (("kind", _MODELS), ("change", CHANGES), ("age", AGES), ("sort", SORTS)):
            value = str(query.get(name, "") or "")
            if value and value not in allowed:
                unknown = _("Unknown %(name)s “%(value)s”: shown unfiltered.")
                found.errors.append(str(unknown % {"name": name, "value": value}))
                continue
            if value:
                setattr(found, name, value)
        found.source = str(query.get("source", "") or "")[:150]
        found.author = str(query.get("author", "") or "")[:150]
        found.item = str(query.get("item", "") or "")[:80]
        batch = str(query.get("batch", "") or "")
        if batch:
            number = whole_number(batch, max_digits=12)
            if number is None:
                found.errors.append(str(_("Unknown batch “%(value)s”: shown unfiltered.") % {"value": batch}))
            found.batch = number
        return found

    def matches(self, item: Item, now: dt.datetime, *, leave_out: str = "") -> bool:
        if self.item and item.key != self.item:
            return False
        if self.batch is not None and item.batch != self.batch:
            return False
        checks = {
            "kind": (self.kind, item.model),
            "change": (self.change, item.change),
            "source": (self.source, item.source),
            "author": (self.author, item.author),
            "age": (self.age, item.age(now)),
        }
        return all(not wanted or name == leave_out or wanted == value for name, (wanted, value) in checks.items())

    def query(self, **changed: Any) -> str:
        """The query string of these filters with `changed` applied (empty values dropped)."""
        values = {
            "kind": self.kind, "change": self.change, "source": self.source, "author": self.author, "age": self.age,
            "batch": self.batch if self.batch is not None else "", "item": self.item,
            "sort": "" if self.sort == "kind" else self.sort,
        }
        values.update(changed)
        query = QueryDict(mutable=True)
        for name, value in values.items():
            if value not in ("", None):
                query[name] = str(value)
        return query.urlencode()


def _user_name(value: str | None) -> str:
    return value or "—"


_COLUMNS = ("q_model", "q_pk", "q_created", "q_modified", "q_author", "q_at", "q_version", "q_slug", "q_title",
            "q_seq", "q_start")


def _waiting(model: type[Curated]) -> QuerySet[Any]:
    """The index lines of `model`'s records in review, in the columns every model shares (`_COLUMNS`)."""
    text: CharField[str, str] = CharField()
    number: IntegerField[int, int] = IntegerField()
    if model is Citation:
        where: dict[str, Any] = {"q_slug": F("passage__source__slug"), "q_title": F("passage__source__title"),
                                 "q_seq": F("passage__seq"), "q_start": F("start")}
    elif model is Source:
        where = {"q_slug": F("slug"), "q_title": F("title"), "q_seq": Value(0, number), "q_start": Value(0, number)}
    else:
        where = {"q_slug": Value("", text), "q_title": Value("", text), "q_seq": Value(0, number),
                 "q_start": Value(0, number)}
    return (
        model._default_manager.filter(status=Status.IN_REVIEW)
        .order_by()
        .annotate(
            q_model=Value(str(model._meta.model_name), text), q_pk=F("pk"), q_created=F("created_by_id"),
            q_modified=F("modified_by_id"), q_author=F("created_by__username"), q_at=F("updated_at"),
            q_version=F("version"), **where,
        )
        .values_list(*_COLUMNS)
    )


def _records(user: Any) -> list[Item]:
    """The records in review of every curated model, read in one query (a union of one select per model)."""
    first, *rest = [_waiting(model) for model in CURATED_MODELS]
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in first.union(*rest, all=True):
        row = dict(zip(_COLUMNS, line, strict=True))
        by_model[row["q_model"]].append(row)
    items: list[Item] = []
    for model in CURATED_MODELS:
        name = str(model._meta.model_name)
        rows = by_model.get(name)
        if not rows:
            continue
        mine = _contributed(model, rows, user)
        for row in rows:
            order: tuple[Any, ...]
            if model is Citation:
                source, order = row["q_slug"], (row["q_title"], row["q_seq"], row["q_start"], row["q_pk"])
            elif model is Source:
                source, order = row["q_slug"], (row["q_title"], row["q_pk"])
            else:
                source, order = "", (row["q_pk"],)
            items.append(
                Item(
                    key=f"{name}-{row['q_pk']}", model=name, pk=row["q_pk"], change="new",
                    author=_user_name(row["q_author"]), waiting_since=row["q_at"],
                    version=row["q_version"], source=source, source_title=row["q_title"] if source else "",
                    order=(0, _ORDER[name], *order),
                    mine=row["q_pk"] in mine,
                )
            )
    return items


class _Light:
    """What `review.contributors_of_many` reads of a record, from a `.values()` row."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.pk = row["q_pk"]
        self.created_by_id = row["q_created"]
        self.modified_by_id = row["q_modified"]


def _contributed(model: type[Curated], rows: list[dict[str, Any]], user: Any) -> set[int]:
    """The records of `rows` the user may not decide on: of a kind they do not review, or theirs."""
    opts = model._meta
    if not (user.is_superuser or user.has_perm(f"{opts.app_label}.review_{opts.model_name}")):
        return {row["q_pk"] for row in rows}
    waiting = model._default_manager.filter(status=Status.IN_REVIEW).values("pk")
    # Read like records; the history is chosen by a subquery, not by hundreds of parameters.
    light: list[Any] = [_Light(row) for row in rows]
    found = curation.contributors_of_many(model, light, among=waiting)
    return {pk for pk, people in found.items() if user.pk in people}


def _revisions(user: Any) -> list[Item]:
    rows = list(
        Revision.objects.pending().values(
            "pk", "record_type_id", "record_id", "record_label", "kind", "created_by_id", "created_by__username",
            "updated_at", "version",
        )
    )
    if not rows:
        return []
    contributors: dict[int, set[int]] = defaultdict(set)
    for revision_id, user_id in Revision.contributors.through.objects.filter(
        revision_id__in=[row["pk"] for row in rows]
    ).values_list("revision_id", "user_id"):
        contributors[revision_id].add(user_id)
    cited = [row["record_id"] for row in rows if _model_of(row["record_type_id"]) is Citation]
    sources = {
        pk: (slug, title)
        for pk, slug, title in Citation.objects.filter(pk__in=cited).values_list(
            "pk", "passage__source__slug", "passage__source__title"
        )
    } if cited else {}
    items = []
    may_review: dict[type[Curated], bool] = {}
    for row in rows:
        model = _model_of(row["record_type_id"])
        name = str(model._meta.model_name)
        if model not in may_review:
            may_review[model] = user.is_superuser or user.has_perm(f"{model._meta.app_label}.review_{name}")
        may = may_review[model]
        source, title = sources.get(row["record_id"], ("", "")) if model is Citation else ("", "")
        people = contributors[row["pk"]] | {row["created_by_id"]}
        items.append(
            Item(
                key=f"revision-{row['pk']}", model=name, pk=row["pk"], change=_CHANGE_OF_KIND[row["kind"]],
                author=_user_name(row["created_by__username"]), waiting_since=row["updated_at"],
                version=row["version"], source=source, source_title=title,
                order=(1, _ORDER.get(name, len(_ORDER)), row["record_label"], row["pk"]),
                mine=not may or user.pk in people,
            )
        )
    return items


def _model_of(content_type_id: int) -> type[Curated]:
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    assert model is not None and issubclass(model, Curated), "a revision's record is a curated model"
    return model


def _batches_of(items: list[Item]) -> None:
    cited = {item.pk: item for item in items if item.model == "citation" and not item.is_revision}
    if not cited:
        return
    through = Batch.citations.through.objects.filter(citation__status=Status.IN_REVIEW)
    for citation_id, batch_id in through.values_list("citation_id", "batch_id"):
        if citation_id in cited:
            cited[citation_id].batch = batch_id


def everything(user: Any) -> list[Item]:
    """Every record in review and every pending revision, as index lines."""
    items = _records(user) + _revisions(user)
    _batches_of(items)
    return items


@dataclass
class Entry:
    """A line of the page: one item, or a batch folded into one row."""

    item: Item | None = None
    batch: Batch | None = None
    items: list[Item] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.item.key if self.item else f"batch-{self.batch.pk if self.batch else 0}"

    @property
    def reviewable(self) -> int:
        return sum(1 for item in self.items if not item.mine)


@dataclass
class Queue:
    filters: Filters
    total: int
    reviewable: int
    facets: dict[str, list[tuple[str, str, int, str, bool]]]
    page: Page
    entries: list[Entry]
    batch: Batch | None = None
    # The pin of every item of the batch shown (`?batch=`), for "approve the whole batch".
    batch_pins: list[tuple[str, str]] = field(default_factory=list)


def _sort_key(sort: str) -> Any:
    if sort == "oldest":
        return lambda item: (item.waiting_since, item.key)
    if sort == "newest":
        return lambda item: (-item.waiting_since.timestamp(), item.key)
    if sort == "author":
        return lambda item: (item.author, item.order)
    return lambda item: item.order


def _facet_labels(name: str, values: Iterable[str], titles: Mapping[str, str]) -> dict[str, str]:
    if name == "kind":
        return {value: str(_MODELS[value]._meta.verbose_name_plural) for value in values if value in _MODELS}
    if name == "change":
        return {value: str(CHANGES[value]) for value in values}
    if name == "age":
        return {value: str(AGES[value][0]) for value in values}
    if name == "source":  # the titles were read with the index
        return {value: titles.get(value) or value for value in values}
    return {value: value for value in values}


def _facets(filters: Filters, items: list[Item], now: dt.datetime) -> dict[str, list[tuple[str, str, int, str, bool]]]:
    """Per facet: (value, label, count, query string choosing it, chosen?) for each value present.

    One pass: an item that fails no filter counts in every facet, one that
    fails exactly one counts in that facet alone.
    """
    wanted = [getattr(filters, name) for name in FACETS]
    titles = {item.source: item.source_title for item in items if item.source}
    counted: list[Counter[str]] = [Counter() for _name in FACETS]
    for item in items:
        if (filters.item and item.key != filters.item) or (filters.batch is not None and item.batch != filters.batch):
            continue
        values = (item.model, item.change, item.source, item.author, item.age(now))
        misses = [n for n, want in enumerate(wanted) if want and want != values[n]]
        if not misses:
            for n, value in enumerate(values):
                counted[n][value] += 1
        elif len(misses) == 1:
            counted[misses[0]][values[misses[0]]] += 1
    found: dict[str, list[tuple[str, str, int, str, bool]]] = {}
    for n, name in enumerate(FACETS):
        present = {value: count for value, count in counted[n].items() if value}
        if name == "age":
            ordered = [value for value in AGES if value in present]
        elif name == "kind":
            ordered = sorted(present, key=lambda value: _ORDER.get(value, len(_ORDER)))
        elif name == "change":
            ordered = [value for value in CHANGES if value in present]
        else:
            ordered = sorted(present)
        labels = _facet_labels(name, ordered, titles)
        chosen = wanted[n]
        # A chosen value's link lets go of it.
        found[name] = [
            (value, labels.get(value, value), present[value],
             filters.query(**{name: "" if value == chosen else value}, page=""), value == chosen)
            for value in ordered
        ]
    return found


def read(user: Any, query: Mapping[str, Any]) -> Queue:
    """The queue as `query` asks for it: the matching items, counted per facet, sorted, in pages of entries."""
    filters = Filters.from_query(query)
    now = timezone.now()
    items = everything(user)
    chosen = sorted((item for item in items if filters.matches(item, now)), key=_sort_key(filters.sort))
    entries: list[Entry] = []
    folded: dict[int, Entry] = {}
    for item in chosen:
        if item.batch is not None and filters.batch is None and not filters.item:
            if item.batch not in folded:
                folded[item.batch] = Entry()
                entries.append(folded[item.batch])
            folded[item.batch].items.append(item)
        else:
            entries.append(Entry(item=item, items=[item]))
    batches = Batch.objects.select_related("created_by", "source").in_bulk(
        [*folded, *([filters.batch] if filters.batch is not None else [])]
    )
    for number, entry in folded.items():
        entry.batch = batches.get(number)
    page = Paginator(entries, PAGE_SIZE).get_page(query.get("page"))
    queue = Queue(
        filters=filters,
        total=len(chosen),
        reviewable=sum(1 for item in chosen if not item.mine),
        facets=_facets(filters, items, now),
        page=page,
        entries=list(page.object_list),
    )
    if filters.batch is not None:
        queue.batch = batches.get(filters.batch)
        queue.batch_pins = [
            (item.key, decisions.version_pin(item.version)) for item in chosen if not item.mine and not item.is_revision
        ]
    return queue
