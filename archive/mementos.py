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

A value that cannot be read raises `BadValue` naming its parameter; a record
not published then raises ``Http404`` saying so.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.http import Http404
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from archive.models import Citation, Curated, LocationAlias, PersonName, Release, Status, UnitAlias
from archive.models.citations import TARGET_FIELDS
from archive.models.revisions import Revision, RevisionState

__all__ = ["PARAMETERS", "BadValue", "Memento", "asked", "changed_by", "document", "fields", "latest", "moment",
           "number", "published"]

PARAMETERS = ("as_of", "release", "version")
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


def published(model: type[Curated], slug: str, params: Mapping[str, Any]) -> Memento:
    """The published state of record ``slug`` that ``params`` asks for (one of `PARAMETERS`)."""
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    named = history._default_manager.filter(slug=slug).order_by("-history_date", "-history_id").first()
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
        release_number = number(params, "release")
        release = Release.objects.filter(number=release_number).only("published", "made_at").first()
        if release is None:
            raise Http404(_("There is no release %(number)s.") % {"number": release_number})
        version = release.published.get(model._meta.label_lower, {}).get(str(named.id))
        if version is None:
            raise Http404(_("%(kind)s %(slug)s is not in release %(number)s.") % {
                "kind": kind, "slug": slug, "number": release_number})
        rows = rows.filter(history_date__lte=release.made_at)
        read_at = release.made_at
    else:
        version = number(params, "version")
    state = rows.filter(version=version, status=Status.APPROVED).order_by("-history_date", "-history_id").first()
    if state is None:
        raise Http404(_("%(kind)s %(slug)s was never published as version %(version)s.") % {
            "kind": kind, "slug": slug, "version": version})
    return Memento(state, read_at or _published_until(rows, state))


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
    return found


def changed_by(model: type[models.Model], record_id: int, version: int) -> Revision | None:
    """The approved revision that published ``version`` of the record, if a revision did (approval is one step)."""
    return (Revision.objects.filter(record_type=ContentType.objects.get_for_model(model), record_id=record_id,
                                    state=RevisionState.APPROVED, base_version=version - 1)
            .only("pk", "reviewed_at").order_by("-reviewed_at", "-pk").first())
