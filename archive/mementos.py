"""A record as it was published at a moment, in a release or as a version, read from the history.

Shared by the API (``archive/api/memento.py``) and the reading room: both
answer ``?as_of=``, ``?release=`` and ``?version=`` with the same state. The
state is read from the history tables (simple-history), never from the stored
documents or the current rows, so it is what readers saw then: the record's
own fields, its names or aliases, and the published citations that rested on
it, each as of that moment.

- ``as_of``: a date (``2026-12-01``: the state at the end of that day, UTC) or
  an ISO 8601 moment; the latest published state at or before it.
- ``release``: the version of the record that release ``N`` holds.
- ``version``: the record's version ``N`` as published (the permanent link).

A list (`listing`, `published_states`) takes ``as_of`` or ``release``: the
records published at that moment, or those a release holds, at the version
it holds. A record's document carries what its page shows as it stood then:
its statements (the accounts of its values), and a person's posts or an
event's participations with theirs.

A value that cannot be read, or a moment still to come, raises `BadValue`
naming its parameter; a record not published then, or a release that does
not exist, raises ``Http404`` saying so.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.http import Http404
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.http import http_date
from django.utils.translation import gettext as _

from archive.models import (
    Citation,
    Curated,
    Event,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Release,
    Source,
    Statement,
    Status,
    UnitAlias,
)
from archive.models.citations import TARGET_FIELDS
from archive.models.revisions import Revision, RevisionState

__all__ = ["LIST_PARAMETERS", "PARAMETERS", "BadValue", "Listing", "Memento", "asked", "changed_by", "chunks",
           "document", "fields", "latest", "listing", "moment", "moment_text", "number", "passage", "published",
           "published_states", "release", "source_passages", "source_state"]

PARAMETERS = ("as_of", "release", "version")
LIST_PARAMETERS = ("as_of", "release")
# Names and aliases are part of a record's document; read as of the moment too.
_CHILDREN: dict[str, tuple[type[models.Model], str, str, tuple[str, ...]]] = {
    "archive.person": (PersonName, "person", "names", ("name", "kind")),
    "archive.unit": (UnitAlias, "unit", "aliases", ("name",)),
    "archive.location": (LocationAlias, "location", "aliases", ("name",)),
}
_HIDDEN = {"created_by_id", "modified_by_id", "reviewed_by_id", "review_note", "history_user_id", "fictional"}


class BadValue(ValueError):
    """A parameter that cannot be read; each caller answers 400 naming it."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


@dataclass(frozen=True)
class Memento:
    """The history row of the state asked for, and the moment its names and citations are read at."""

    state: Any
    read_at: dt.datetime


def asked(params: Mapping[str, Any]) -> bool:
    return any(name in params for name in PARAMETERS)


def moment(text: str) -> dt.datetime:
    """A date (the end of that day, UTC) or an ISO 8601 moment; naive moments are UTC."""
    found = _given(text)
    now = timezone.now()
    # Today reads as of now; a later day or moment has no published state yet.
    if found > now and not (len(text) == 10 and found.date() == now.astimezone(dt.UTC).date()):
        raise BadValue("as_of", _("%(moment)s is still to come: give a moment up to now.") % {"moment": text})
    return min(found, now)


def reads_the_present(params: Mapping[str, Any]) -> bool:
    """Whether ``?as_of=`` names today, read as of now: an answer that moves on with every moment, never kept."""
    try:
        return "as_of" in params and _given(params["as_of"]) > timezone.now()
    except BadValue:
        return False


def _given(text: str) -> dt.datetime:
    """The moment ``as_of`` names, aware (UTC when it says no zone); a value that names none is `BadValue`."""
    try:
        found = parse_datetime(text) if "T" in text or " " in text else None
        if found is None:
            day = parse_date(text) if len(text) == 10 else None
            found = dt.datetime.combine(day, dt.time.max) if day is not None else None
    except (ValueError, OverflowError):  # well formed, but no such day or time
        found = None
    if found is None:
        raise BadValue("as_of", _("Give a date (2026-12-01) or an ISO 8601 moment (2026-12-01T12:00Z)."))
    if timezone.is_naive(found):
        found = timezone.make_aware(found, dt.UTC)
    return found


def moment_text(at: dt.datetime) -> str:
    """A moment as ``as_of`` takes it in a permanent link: ISO 8601 in UTC, written with Z (no character to escape)."""
    return at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def number(params: Mapping[str, Any], name: str) -> int:
    text = params[name]
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) < 1:
        raise BadValue(name, _("Give a whole number from 1."))
    return int(text)


def latest(rows: models.QuerySet) -> list[Any]:
    """The latest history row of each id among ``rows``, leaving out ids whose latest row is a deletion."""
    seen: dict[Any, Any] = {}
    for row in rows.order_by("id", "-history_date", "-history_id"):
        seen.setdefault(row.id, row)
    return [row for row in seen.values() if row.history_type != "-"]


def release(params: Mapping[str, Any]) -> Release:
    """The release ``?release=N`` names (only what a reading needs); a release that does not exist is a 404."""
    release_number = number(params, "release")
    found = Release.objects.filter(number=release_number).only("number", "published", "made_at").first()
    if found is None:
        raise Http404(_("There is no release %(number)s.") % {"number": release_number})
    return found


@dataclass(frozen=True)
class Listing:
    """What a list read as of a date or a release is read at: the moment, and the release if one was named."""

    read_at: dt.datetime
    release: Release | None


def listing(params: Mapping[str, Any]) -> Listing:
    """The moment (and release) of a list's ``?as_of=`` or ``?release=``; a list has no ``version``."""
    given = [name for name in LIST_PARAMETERS if name in params]
    if "version" in params:
        raise BadValue("version", _("A list takes one of %(names)s.") % {"names": ", ".join(LIST_PARAMETERS)})
    if len(given) > 1:
        raise BadValue(given[1], _("Give one of %(names)s, not several.") % {"names": ", ".join(LIST_PARAMETERS)})
    if given == ["release"]:
        found = release(params)
        return Listing(found.made_at, found)
    return Listing(moment(params["as_of"]), None)


def published_states(model: type[Curated], read: Listing, ids: Iterable[int] | None = None) -> list[Any]:
    """The history rows of the records of ``model`` published then (or held by the release).

    All of them in one query, or only those of the records ``ids`` (read in chunks).
    """
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    versions = None if read.release is None else read.release.published.get(model._meta.label_lower, {})
    rows = history._default_manager.filter(history_date__lte=read.read_at)
    found = (latest(rows) if ids is None
             else [row for chunk in chunks(ids) for row in latest(rows.filter(id__in=chunk))])
    return [row for row in found
            if row.status == Status.APPROVED and (versions is None or versions.get(str(row.id)) == row.version)]


def chunks(ids: Iterable[int], size: int = 1000) -> list[list[int]]:
    """Ids in lists short enough for one statement's parameters on every engine."""
    ordered = sorted(set(ids))
    return [ordered[start:start + size] for start in range(0, len(ordered), size)]


def records_changed_since(model: type[models.Model], at: dt.datetime, *, limit: int) -> set[int] | None:
    """The records of ``model`` that stood at ``at`` and changed since (their row, or a name or alias of theirs).

    None when there are more than ``limit`` of them.
    """
    history = model.history.model._default_manager  # type: ignore[attr-defined]  # simple-history adds it
    changed = [history.filter(history_date__gt=at).values("id")]
    child = _CHILDREN.get(model._meta.label_lower)
    if child is not None:
        child_history = child[0].history.model._default_manager  # type: ignore[attr-defined]  # simple-history
        changed.append(child_history.filter(history_date__gt=at).values(f"{child[1]}_id"))
    found: set[int] = set()
    for since in changed:
        stood = history.filter(history_date__lte=at, id__in=since).order_by().values_list("id", flat=True)
        found.update(stood.distinct()[: limit + 1])
        if len(found) > limit:
            return None
    return found


def published(model: type[Curated], slug: str | int, params: Mapping[str, Any], *, key: str = "slug") -> Memento:
    """The published state of record ``slug`` that ``params`` asks for (one of `PARAMETERS`).

    A record the API names by its id (a citation) is looked up with ``key="id"``.
    """
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    named = history._default_manager.filter(**{key: slug}).order_by("-history_date", "-history_id").first()
    if named is None:
        raise Http404(_("No record has this name."))
    rows = history._default_manager.filter(id=named.id)
    given = [name for name in PARAMETERS if name in params]
    if len(given) > 1:
        raise BadValue(given[1], _("Give one of %(names)s, not several.") % {"names": ", ".join(PARAMETERS)})
    kind = model._meta.verbose_name
    if given == ["as_of"]:
        at = moment(params["as_of"])
        state = rows.filter(history_date__lte=at).order_by("-history_date", "-history_id").first()
        if state is None or state.history_type == "-" or state.status != Status.APPROVED:
            raise Http404(_("%(kind)s %(slug)s was not published at %(moment)s.") % {
                "kind": kind, "slug": slug, "moment": at.isoformat()})
        return Memento(state, at)
    read_at: dt.datetime | None = None
    if given == ["release"]:
        held = release(params)
        version = held.published.get(model._meta.label_lower, {}).get(str(named.id))
        if version is None:
            raise Http404(_("%(kind)s %(slug)s is not in release %(number)s.") % {
                "kind": kind, "slug": slug, "number": held.number})
        rows = rows.filter(history_date__lte=held.made_at)
        read_at = held.made_at
    else:
        version = number(params, "version")
    state = rows.filter(version=version, status=Status.APPROVED).order_by("-history_date", "-history_id").first()
    if state is None:
        raise Http404(_("%(kind)s %(slug)s was never published as version %(version)s.") % {
            "kind": kind, "slug": slug, "version": version})
    return Memento(state, read_at or _published_until(rows, state))


def names_then(model: type[models.Model], ids: Iterable[int], at: dt.datetime) -> list[tuple[int, str]]:
    """(record id, name) of the names or aliases of the records ``ids`` of ``model`` as they stood at ``at``."""
    child = _CHILDREN.get(model._meta.label_lower)
    if child is None:
        return []
    child_model, parent_field = child[0], child[1]
    history = child_model.history.model._default_manager.filter(history_date__lte=at)  # type: ignore[attr-defined]
    rows = [row for chunk in chunks(ids) for row in latest(history.filter(**{f"{parent_field}_id__in": chunk}))]
    return sorted(((getattr(row, f"{parent_field}_id"), row.name) for row in rows), key=lambda pair: pair[0])


def changed_since(at: dt.datetime, sources: list[int] | None = None) -> models.QuerySet:
    """The ids of the passages with a history row after ``at`` (added, rewritten or deleted since), as a subquery.

    With ``sources``, only the rows that put a passage in one of them: what a
    passage now in one of those sources may have changed by.
    """
    rows = Passage.history.model._default_manager.filter(history_date__gt=at)
    return (rows if sources is None else rows.filter(source_id__in=sources)).values("id")


def rewritten_since(at: dt.datetime, *, limit: int, sources: list[int]) -> list[Any] | None:
    """The passages of ``sources`` that stood at ``at`` and were rewritten or deleted since, as they stood then.

    None when there are more than ``limit`` of them.
    """
    history = Passage.history.model._default_manager
    stood = history.filter(history_date__lte=at, source_id__in=sources, id__in=changed_since(at))
    if stood.order_by().values("id").distinct()[: limit + 1].count() > limit:
        return None
    return latest(stood)


def passage(pk: int, read: Listing) -> dict[str, Any]:
    """Passage ``pk`` as it stood then, with the published citations that rested on it; its source published then.

    A passage has no version of its own: it is read with its source, as of a
    moment or as a release holds the source.
    """
    history = Passage.history.model
    rows = latest(history._default_manager.filter(id=pk, history_date__lte=read.read_at))
    if not rows or _source_published(rows[0].source_id, read) is None:
        raise Http404(_("Passage %(id)s was not published at %(moment)s.") % {
            "id": pk, "moment": read.read_at.isoformat()})
    return _passages(rows, read.read_at)[0]


def source_state(slug: str, read: Listing) -> Any:
    """The history row of source ``slug`` as published then (or as the release holds it); else a 404 saying so."""
    named = Source.history.model._default_manager.filter(slug=slug).order_by("-history_date", "-history_id").first()
    state = None if named is None else _source_published(named.id, read)
    if state is None:
        raise Http404(_("Source %(slug)s was not published at %(moment)s.") % {
            "slug": slug, "moment": read.read_at.isoformat()})
    return state


def source_passages(slug: str, read: Listing) -> list[dict[str, Any]]:
    """The passages of source ``slug`` as they stood then, in order, each with its citations then."""
    state = source_state(slug, read)
    history = Passage.history.model
    rows = latest(history._default_manager.filter(source_id=state.id, history_date__lte=read.read_at))
    return _passages(sorted(rows, key=lambda row: row.seq), read.read_at)


def _source_published(source_id: int, read: Listing) -> Any:
    """The source's state then if it was published (or, for a release, is one the release holds), else None."""
    history = Source.history.model
    state = (history._default_manager.filter(id=source_id, history_date__lte=read.read_at)
             .order_by("-history_date", "-history_id").first())
    if state is None or state.history_type == "-" or state.status != Status.APPROVED:
        return None
    held = None if read.release is None else read.release.published.get(Source._meta.label_lower, {})
    return state if held is None or held.get(str(source_id)) == state.version else None


def _passages(rows: list[Any], at: dt.datetime) -> list[dict[str, Any]]:
    """Passages' own fields then, each with the published citations then that rest on it (one query for all)."""
    history = Citation.history.model
    cited: dict[int, list[dict[str, Any]]] = {}
    ids = [row.id for row in rows]
    found = latest(history._default_manager.filter(passage_id__in=ids, history_date__lte=at)) if ids else []
    for row in sorted(found, key=lambda r: r.slug):
        if row.status == Status.APPROVED:
            cited.setdefault(row.passage_id, []).append(
                {"id": row.id, "slug": row.slug, "quote": row.quote, "start": row.start, "end": row.end,
                 "claim": row.claim, "rank": row.rank, "version": row.version})
    return [{**fields(row, Passage), "id": row.id, "citations": cited.get(row.id, [])} for row in rows]


def _published_until(rows: models.QuerySet, state: Any) -> dt.datetime:
    """The last moment ``state`` was the record's published state: just before the next history row, or now."""
    following = rows.filter(history_date__gt=state.history_date).order_by("history_date").first()
    return following.history_date - dt.timedelta(microseconds=1) if following is not None else timezone.now()


def fields(row: Any, model: type[models.Model]) -> dict[str, Any]:
    """The record's own public fields in a history row, dates as ISO 8601 text."""
    values = {}
    for field in model._meta.concrete_fields:
        if field.primary_key or field.attname in _HIDDEN or not hasattr(row, field.attname):
            continue
        value = getattr(row, field.attname)
        values[field.attname] = value.isoformat() if hasattr(value, "isoformat") else value
    return values


def document(model: type[Curated], state: Any, at: dt.datetime) -> dict[str, Any]:
    """The record's own fields, names or aliases and published citations, as they stood at ``at``."""
    found = fields(state, model)
    child = _CHILDREN.get(model._meta.label_lower)
    if child is not None:
        child_model, parent_field, key, shown = child
        history = child_model.history.model  # type: ignore[attr-defined]  # simple-history adds it
        rows = latest(history._default_manager.filter(**{f"{parent_field}_id": state.id}, history_date__lte=at))
        found[key] = sorted(({name: getattr(row, name) for name in shown} for row in rows),
                            key=lambda item: tuple(str(v) for v in item.values()))
    target = next((f for f in TARGET_FIELDS if Citation._meta.get_field(f).related_model is model), None)
    if target is not None:
        history = Citation.history.model
        rows = latest(history._default_manager.filter(**{f"{target}_id": state.id}, history_date__lte=at))
        found["citations"] = [
            {"slug": row.slug, "passage": row.passage_id, "quote": row.quote, "start": row.start, "end": row.end,
             "claim": row.claim, "rank": row.rank}
            for row in sorted(rows, key=lambda r: r.slug) if row.status == Status.APPROVED
        ]
    target = _STATEMENT_TARGETS.get(model._meta.label_lower)
    if target is not None:
        found["statements"] = _statements(target, [state.id], at).get(state.id, [])
    nested = _NESTED.get(model._meta.label_lower)
    if nested is not None:
        nested_model, parent_field, key, shown = nested
        found[key] = _nested(nested_model, parent_field, state.id, shown, at)
    return found


# The statements (accounts of values) of a record kind, by the statement's field that points at it.
_STATEMENT_TARGETS = {"archive.person": "person", "archive.event": "event", "archive.location": "location",
                      "archive.post": "post", "archive.participation": "participation"}
# A person's posts and an event's participations are part of its page: read as of the moment too.
_NESTED: dict[str, tuple[type[Curated], str, str, tuple[str, ...]]] = {
    Person._meta.label_lower: (Post, "person", "posts", ("slug", "unit", "title", "date_from", "date_to", "acting",
                                                         "concurrent", "note")),
    Event._meta.label_lower: (Participation, "event", "participations", ("slug", "person", "unit", "role",
                                                                         "position", "note")),
}
_STATEMENT_FIELDS = ("slug", "field", "value", "as_written", "rank", "basis", "reasoning", "reference", "note",
                     "position")


def _published_rows(model: type[models.Model], at: dt.datetime, **lookup: Any) -> list[Any]:
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it
    rows = latest(history._default_manager.filter(**lookup, history_date__lte=at))
    return [row for row in rows if row.status == Status.APPROVED]


def _statements(target: str, ids: list[int], at: dt.datetime) -> dict[int, list[dict[str, Any]]]:
    """The published statements of the records ``ids`` then, by record id, in the order a page shows them."""
    by_record: dict[int, list[dict[str, Any]]] = {}
    rows = _published_rows(Statement, at, **{f"{target}_id__in": ids})
    for row in sorted(rows, key=lambda r: (r.field, r.position, r.id)):
        by_record.setdefault(getattr(row, f"{target}_id"), []).append(
            {name: getattr(row, name) for name in _STATEMENT_FIELDS})
    return by_record


def _nested(model: type[Curated], parent_field: str, parent_id: int, shown: tuple[str, ...], at: dt.datetime
            ) -> list[dict[str, Any]]:
    """A record's posts or participations published then, the records they name by slug, each with its statements."""
    rows = sorted(_published_rows(model, at, **{f"{parent_field}_id": parent_id}),
                  key=lambda r: (getattr(r, "position", None) is None, getattr(r, "position", 0) or 0, r.slug))
    links = [f for f in shown if isinstance(model._meta.get_field(f), models.ForeignKey)]
    slugs: dict[str, dict[int, str]] = {}
    for name in links:
        related: Any = model._meta.get_field(name).related_model
        ids = {getattr(row, f"{name}_id") for row in rows} - {None}
        slugs[name] = dict(related._default_manager.filter(pk__in=ids).values_list("pk", "slug")) if ids else {}
    statements = _statements(_STATEMENT_TARGETS[model._meta.label_lower], [row.id for row in rows], at)
    return [
        {**{name: (slugs[name].get(getattr(row, f"{name}_id")) if name in slugs else getattr(row, name))
            for name in shown},
         "statements": statements.get(row.id, [])}
        for row in rows
    ]


def changed_by(model: type[models.Model], record_id: int, version: int) -> Revision | None:
    """The approved revision that published ``version`` of the record, if a revision did (approval is one step)."""
    return (Revision.objects.filter(record_type=ContentType.objects.get_for_model(model), record_id=record_id,
                                    state=RevisionState.APPROVED, base_version=version - 1)
            .only("pk", "reviewed_at").order_by("-reviewed_at", "-pk").first())


def mark(response: Any, *, original: str, memento: str, moment: dt.datetime) -> Any:
    """RFC 7089's headers on an answer of the past: the moment it shows, the current page and its own address."""
    when = http_date(moment.timestamp())
    response["Memento-Datetime"] = when
    response["Link"] = f'<{original}>; rel="original latest-version", <{memento}>; rel="memento"; datetime="{when}"'
    return response
