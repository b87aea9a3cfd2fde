"""Matching the small tables (persons, units, places, events, sources) in Python.

Their names and aliases are compared here, with the keys of each distinct
name cached, so the comparison is the same code on every engine. Public
search holds the approved records in memory (`snapshot`, rebuilt when the
data changes) and runs `match_candidate` only on those that can match; the
admin's boxes read the queryset they are given (`candidates`).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from html import escape

from django.db import models

from archive.models import Event, Location, LocationAlias, Person, PersonName, Source, Unit, UnitAlias

from .keys import NameKeys, is_latin_query, latin_key, name_keys, search_key, search_key_aligned, syllable_run

SCORE_EXACT, SCORE_NAME, SCORE_ALIAS, SCORE_PINYIN, SCORE_PASSAGE = range(5)


@dataclass(frozen=True)
class Kind:
    """How one type of record is named: its model, title field, alias table, and whether pinyin applies."""

    type: str
    # `builtins.type`: inside this class body, `type` is the field above.
    model: builtins.type[models.Model]
    title_field: str
    title_match: str  # what `matched` says when the title matches: name or title
    alias_model: builtins.type[models.Model] | None = None
    alias_fk: str = ""
    pinyin: bool = False


KINDS: dict[str, Kind] = {
    "person": Kind("person", Person, "name", "name", PersonName, "person_id", pinyin=True),
    "unit": Kind("unit", Unit, "name", "name", UnitAlias, "unit_id", pinyin=True),
    "location": Kind("location", Location, "name", "name", LocationAlias, "location_id", pinyin=True),
    "event": Kind("event", Event, "title", "title"),
    "source": Kind("source", Source, "title", "title"),
}


@dataclass(frozen=True)
class Query:
    """A query and its keys, computed once."""

    text: str
    key: str
    latin: str | None  # Latin key when the query is romanised (letters, digits, spaces)
    syllables: tuple[str, ...]  # toneless pinyin when the query is all Han characters

    @classmethod
    def of(cls, text: str) -> Query:
        keys = name_keys(text.replace(" ", ""))
        all_han = bool(keys.han_positions) and len(keys.han_positions) == len(text.replace(" ", ""))
        return cls(
            text=text,
            key=search_key(text),
            latin=latin_key(text) if is_latin_query(text) else None,
            syllables=keys.syllables if all_han else (),
        )


@dataclass(frozen=True)
class Match:
    score: int
    matched: str
    snippet: str


@dataclass
class Candidate:
    pk: int
    slug: str
    title: str
    aliases: list[str] = field(default_factory=list)
    fiction: bool = False  # known up front for sources only


def highlight(text: str, start: int, end: int) -> str:
    return f"{escape(text[:start])}<mark>{escape(text[start:end])}</mark>{escape(text[end:])}"


def _key_span(name: str, key: str) -> tuple[int, int] | None:
    if not key or key not in name_keys(name).key:
        return None  # the cached key answers most names; alignment is for the few that match
    folded, origin = search_key_aligned(name)
    at = folded.find(key)
    if at < 0 or not key:
        return None
    return origin[at], origin[at + len(key) - 1] + 1


def _pinyin_match(name: str, keys: NameKeys, query: Query) -> str | None:
    """The name's snippet when it sounds like the query, else None."""
    if query.syllables and keys.syllables == query.syllables:
        return f"<mark>{escape(name)}</mark>"
    if query.latin and keys.syllables:
        run = syllable_run(keys.syllables, query.latin)
        if run is not None:
            if not keys.han_positions:
                return f"<mark>{escape(name)}</mark>"
            first, stop = keys.han_positions[run[0]], keys.han_positions[run[1] - 1] + 1
            return highlight(name, first, stop)
    return None


def match_name(name: str, query: Query, *, alias: bool, pinyin: bool, title_match: str) -> Match | None:
    """The best way `name` matches `query`: by its folded text, its Latin key, or its sound."""
    keys = name_keys(name)
    if alias:
        span = _key_span(name, query.key)
        if span is not None:
            return Match(SCORE_ALIAS, "alias", highlight(name, *span))
        if query.latin and keys.latin and query.latin in keys.latin:
            return Match(SCORE_ALIAS, "alias", f"<mark>{escape(name)}</mark>")
    else:
        if keys.key == query.key or (query.latin and keys.latin == query.latin):
            return Match(SCORE_EXACT, title_match, f"<mark>{escape(name)}</mark>")
        span = _key_span(name, query.key)
        if span is not None:
            return Match(SCORE_NAME, title_match, highlight(name, *span))
        if query.latin and keys.latin and query.latin in keys.latin:
            return Match(SCORE_NAME, title_match, f"<mark>{escape(name)}</mark>")
    if pinyin:
        snippet = _pinyin_match(name, keys, query)
        if snippet is not None:
            return Match(SCORE_PINYIN, "pinyin", snippet)
    return None


def match_candidate(candidate: Candidate, query: Query, kind: Kind) -> Match | None:
    best = match_name(candidate.title, query, alias=False, pinyin=kind.pinyin, title_match=kind.title_match)
    if best is not None and best.score <= SCORE_NAME:
        return best
    for alias in candidate.aliases:
        found = match_name(alias, query, alias=True, pinyin=kind.pinyin, title_match=kind.title_match)
        if found is not None and (best is None or found.score < best.score):
            best = found
            if best.score == SCORE_ALIAS:
                break
    return best


def candidates(kind: Kind, queryset: models.QuerySet) -> list[Candidate]:
    """The records of `queryset` with their aliases, two queries at most."""
    fields = ["pk", "slug", kind.title_field] + (["is_fiction"] if kind.type == "source" else [])
    found: dict[int, Candidate] = {}
    for row in queryset.values_list(*fields):
        found[row[0]] = Candidate(pk=row[0], slug=row[1], title=row[2], fiction=bool(row[3]) if len(row) > 3 else False)
    if kind.alias_model is not None and found:
        aliases = kind.alias_model._default_manager.filter(**{f"{kind.alias_fk}__in": queryset.values("pk")})
        for owner, name in aliases.order_by(kind.alias_fk, "pk").values_list(kind.alias_fk, "name"):
            candidate = found.get(owner)
            if candidate is not None and name != candidate.title:
                candidate.aliases.append(name)
    return list(found.values())
