"""A record as it was published at a moment, a release or a version: `?as_of=`, `?release=`, `?version=`.

The answer is read from the history tables (simple-history), never from the
stored documents or the current rows, so it is what readers saw then: the
record's own fields, its names or aliases, and the published citations that
rested on it, each as of that moment. It is marked as a memento (RFC 7089):
``Memento-Datetime`` says when that state was published, ``Link`` names the
current version (``original``) and this permanent one (``memento``).

- ``as_of``: a date (``2026-12-01``: the state at the end of that day, UTC) or
  an ISO 8601 moment; the latest published state at or before it.
- ``release``: the version of the record that release ``N`` holds.
- ``version``: the record's version ``N`` as published (the permanent link
  every memento gives).

A record not published at that moment is a 404 that says so.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import models
from django.http import Http404
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.http import http_date
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from archive.models import Citation, Curated, LocationAlias, PersonName, Release, Status, UnitAlias
from archive.models.citations import TARGET_FIELDS

__all__ = ["LIST_PARAMETERS", "PARAMETERS", "asked", "memento_list", "memento_response"]

PARAMETERS = ("as_of", "release", "version")
# Names and aliases are part of a record's document; read as of the moment too.
_CHILDREN: dict[str, tuple[type[models.Model], str, str, tuple[str, ...]]] = {
    "archive.person": (PersonName, "person", "names", ("name", "kind")),
    "archive.unit": (UnitAlias, "unit", "aliases", ("name",)),
    "archive.location": (LocationAlias, "location", "aliases", ("name",)),
}
_HIDDEN = {"created_by_id", "modified_by_id", "reviewed_by_id", "review_note", "history_user_id", "fictional"}


def asked(request: Request) -> bool:
    return any(name in request.query_params for name in PARAMETERS)


def _moment(text: str) -> dt.datetime:
    try:
        moment = parse_datetime(text) if "T" in text or " " in text else None
        if moment is None:
            day = parse_date(text) if len(text) == 10 else None
            moment = dt.datetime.combine(day, dt.time.max) if day is not None else None
    except (ValueError, OverflowError):  # well formed, but no such day or time
        moment = None
    if moment is None:
        raise ValidationError({"as_of": ["Give a date (2026-12-01) or an ISO 8601 moment (2026-12-01T12:00Z)."]})
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, dt.UTC)
    return moment


def _number(request: Request, name: str) -> int:
    text = request.query_params[name]
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) < 1:
        raise ValidationError({name: ["Give a whole number from 1."]})
    return int(text)


def _latest(rows: models.QuerySet) -> list[Any]:
    """The latest history row of each id among ``rows``, leaving out ids whose latest row is a deletion."""
    seen: dict[Any, Any] = {}
    for row in rows.order_by("id", "-history_date", "-history_id"):
        seen.setdefault(row.id, row)
    return [row for row in seen.values() if row.history_type != "-"]


def _published_row(model: type[Curated], slug: str, request: Request) -> tuple[Any, dt.datetime]:
    """The history row of the state asked for, and the moment its names and citations are read at."""
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    named = history._default_manager.filter(slug=slug).order_by("-history_date", "-history_id").first()
    if named is None:
        raise Http404("No record has this name.")
    rows = history._default_manager.filter(id=named.id)
    given = [name for name in PARAMETERS if name in request.query_params]
    if len(given) > 1:
        raise ValidationError({given[1]: [f"Give one of {', '.join(PARAMETERS)}, not several."]})
    if given == ["as_of"]:
        moment = _moment(request.query_params["as_of"])
        state = rows.filter(history_date__lte=moment).order_by("-history_date", "-history_id").first()
        if state is None or state.history_type == "-" or state.status != Status.APPROVED:
            raise Http404(f"{model._meta.verbose_name} {slug} was not published at {moment.isoformat()}.")
        return state, moment
    read_at: dt.datetime | None = None
    if given == ["release"]:
        number = _number(request, "release")
        release = Release.objects.filter(number=number).only("published", "made_at").first()
        if release is None:
            raise Http404(f"There is no release {number}.")
        version = release.published.get(model._meta.label_lower, {}).get(str(named.id))
        if version is None:
            raise Http404(f"{model._meta.verbose_name} {slug} is not in release {number}.")
        rows = rows.filter(history_date__lte=release.made_at)
        read_at = release.made_at
    else:
        version = _number(request, "version")
    state = rows.filter(version=version, status=Status.APPROVED).order_by("-history_date", "-history_id").first()
    if state is None:
        raise Http404(f"{model._meta.verbose_name} {slug} was never published as version {version}.")
    return state, read_at or _published_until(rows, state)


def _published_until(rows: models.QuerySet, state: Any) -> dt.datetime:
    """The last moment ``state`` was the record's published state: just before the next history row, or now."""
    following = rows.filter(history_date__gt=state.history_date).order_by("history_date").first()
    return following.history_date - dt.timedelta(microseconds=1) if following is not None else timezone.now()


def _fields(row: Any, model: type[models.Model]) -> dict[str, Any]:
    values = {}
    for field in model._meta.concrete_fields:
        if field.primary_key or field.attname in _HIDDEN or not hasattr(row, field.attname):
            continue
        value = getattr(row, field.attname)
        values[field.attname] = value.isoformat() if hasattr(value, "isoformat") else value
    return values


def _document(model: type[Curated], state: Any, moment: dt.datetime) -> dict[str, Any]:
    document = _fields(state, model)
    child = _CHILDREN.get(model._meta.label_lower)
    if child is not None:
        child_model, parent_field, key, shown = child
        history = child_model.history.model  # type: ignore[attr-defined]  # simple-history adds it
        rows = _latest(history._default_manager.filter(**{f"{parent_field}_id": state.id}, history_date__lte=moment))
        document[key] = sorted(({name: getattr(row, name) for name in shown} for row in rows),
                               key=lambda item: tuple(str(v) for v in item.values()))
    target = next((f for f in TARGET_FIELDS if Citation._meta.get_field(f).related_model is model), None)
    if target is not None:
        history = Citation.history.model
        rows = _latest(history._default_manager.filter(**{f"{target}_id": state.id}, history_date__lte=moment))
        document["citations"] = [
            {"slug": row.slug, "passage": row.passage_id, "quote": row.quote, "start": row.start, "end": row.end,
             "claim": row.claim, "rank": row.rank}
            for row in sorted(rows, key=lambda r: r.slug) if row.status == Status.APPROVED
        ]
    return document


def memento_response(model: type[Curated], slug: str, request: Request) -> Response:
    """The record ``slug`` as published then, marked as a memento of its current document."""
    state, moment = _published_row(model, slug, request)
    current = request.build_absolute_uri(request.path)
    permanent = f"{current}?version={state.version}"
    document = {
        "memento": {
            "version": state.version,
            "published_at": state.history_date.isoformat(),
            "read_as_of": moment.isoformat(),
            "change": state.history_change_reason or "",
            "permalink": permanent,
            "current": current,
        },
        **_document(model, state, moment),
    }
    response = Response(document)
    response["Memento-Datetime"] = http_date(state.history_date.timestamp())
    response["Link"] = (f'<{current}>; rel="original latest-version", '
                        f'<{permanent}>; rel="memento"; datetime="{http_date(state.history_date.timestamp())}"')
    return response


LIST_PARAMETERS = ("as_of", "release")
_LIST_KEEPS = {"as_of", "release", "page", "page_size", "format"}


def _count(request: Request, name: str, default: int, largest: int) -> int:
    if name not in request.query_params:
        return default
    return min(_number(request, name), largest)


def memento_list(model: type[Curated], request: Request) -> Response:
    """The records of ``model`` published at a moment or in a release, by slug, paged; read from the history.

    Each item holds the record's own fields then and its permanent link; the
    nested names and citations are in each record's own memento.
    """
    given = [name for name in LIST_PARAMETERS if name in request.query_params]
    if "version" in request.query_params or len(given) > 1:
        raise ValidationError({"version" if "version" in request.query_params else given[1]:
                               [f"A list takes one of {', '.join(LIST_PARAMETERS)}."]})
    other = sorted(set(request.query_params) - _LIST_KEEPS)
    if other:
        raise ValidationError({name: ["Filters do not apply to a list as of a date or release."] for name in other})
    history = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    versions: dict[str, int] | None = None
    if given == ["release"]:
        number = _number(request, "release")
        release = Release.objects.filter(number=number).only("published", "made_at").first()
        if release is None:
            raise Http404(f"There is no release {number}.")
        moment = release.made_at
        versions = release.published.get(model._meta.label_lower, {})
    else:
        moment = _moment(request.query_params["as_of"])
    states = [row for row in _latest(history._default_manager.filter(history_date__lte=moment))
              if row.status == Status.APPROVED and (versions is None or versions.get(str(row.id)) == row.version)]
    states.sort(key=lambda row: row.slug)
    size = _count(request, "page_size", 50, 200)
    page = _count(request, "page", 1, 10**6)
    shown = states[(page - 1) * size: page * size]
    base = request.build_absolute_uri(request.path)
    response = Response({
        "count": len(states),
        "memento": {"read_as_of": moment.isoformat(), "current": base},
        "results": [{**_fields(row, model), "version": row.version,
                     "permalink": f"{base}{row.slug}/?version={row.version}"} for row in shown],
    })
    response["Memento-Datetime"] = http_date(moment.timestamp())
    response["Link"] = f'<{base}>; rel="original latest-version"'
    return response
