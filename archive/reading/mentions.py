"""Suggested mentions: names of records already in the archive that a passage contains but does not yet cite.

The names, aliases and name forms of every person, unit and place that is not
rejected go into one `NameMatcher` (Aho–Corasick over search keys), built once
per state of those tables and kept in memory, as the search's snapshots are
(`archive.search.snapshot`): keyed by the data's generation, and on PostgreSQL
rebuilt only when the tables of names themselves changed.

A name is suggested in a passage unless a citation there (of any status but
rejected) already rests on the same record.
"""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from django.db import router

from archive import data_version
from archive.models import Citation, Passage, Status
from archive.search.keys import search_key_aligned
from archive.search.records import KINDS
from archive.search.snapshot import fingerprints
from archive.text.mentions import NameMatcher

# A text's search key and its map back to the text, kept for the texts read again and again
# (the same source's passages at every count of the mentions left).
_aligned = functools.lru_cache(maxsize=50_000)(search_key_aligned)

# The kinds of record whose names are looked for; events have titles, not names.
NAMED_KINDS = ("person", "unit", "location")


@dataclass(frozen=True)
class Suggestion:
    """A name in a passage (code points) that may be cited as evidence for `record_id` of `kind`."""

    passage_id: int
    start: int
    end: int
    quote: str
    kind: str
    record_id: int
    label: str

    @property
    def key(self) -> str:
        """What the reader's one-click form posts back to name this suggestion."""
        return f"{self.kind}:{self.record_id}:{self.start}:{self.end}"


@dataclass(frozen=True)
class NameIndex:
    matcher: NameMatcher
    labels: dict[tuple[str, int], str]


def _names(alias: str) -> Iterable[tuple[str, tuple[str, int]]]:
    for type_ in NAMED_KINDS:
        kind = KINDS[type_]
        records = kind.model._default_manager.using(alias).exclude(status=Status.REJECTED)
        for pk, name in records.order_by().values_list("pk", kind.title_field):
            yield name, (type_, pk)
        if kind.alias_model is not None:
            names = kind.alias_model._default_manager.using(alias).filter(
                **{f"{kind.alias_fk}__in": records.values("pk")}
            )
            for owner, name in names.order_by().values_list(kind.alias_fk, "name"):
                yield name, (type_, owner)


def build(alias: str) -> NameIndex:
    labels: dict[tuple[str, int], str] = {}
    for type_ in NAMED_KINDS:
        kind = KINDS[type_]
        records = kind.model._default_manager.using(alias).exclude(status=Status.REJECTED)
        for pk, name in records.order_by().values_list("pk", kind.title_field):
            labels[(type_, pk)] = name
    return NameIndex(NameMatcher(_names(alias)), labels)


@dataclass(frozen=True)
class _Stored:
    generation: str
    fingerprint: str | None
    index: NameIndex


_lock = threading.Lock()
_stored: dict[str, _Stored] = {}


def name_index(alias: str | None = None) -> NameIndex:
    """The current name index of database `alias`, rebuilt only when names may have changed."""
    alias = alias or router.db_for_read(Passage)
    token = data_version.current(alias)
    stored = _stored.get(alias)
    if stored is not None and token is not None and stored.generation == token:
        return stored.index
    with _lock:
        kinds = [KINDS[type_] for type_ in NAMED_KINDS]
        mark = fingerprints(kinds, alias)
        fingerprint = "/".join(mark[type_] for type_ in NAMED_KINDS) if mark else None
        if stored is not None and fingerprint is not None and stored.fingerprint == fingerprint:
            index = stored.index
        else:
            index = build(alias)
        if token is not None:
            _stored[alias] = _Stored(token, fingerprint, index)
    return index


def clear() -> None:
    """Forget the built index (tests)."""
    with _lock:
        _stored.clear()


def _cited_targets(passage_ids: Sequence[int]) -> dict[int, set[tuple[str, int]]]:
    cited: dict[int, set[tuple[str, int]]] = defaultdict(set)
    rows = (
        Citation.objects.filter(passage_id__in=passage_ids)
        .exclude(status=Status.REJECTED)
        .values_list("passage_id", *(f"{type_}_id" for type_ in NAMED_KINDS))
    )
    for passage_id, *targets in rows:
        for type_, pk in zip(NAMED_KINDS, targets, strict=True):
            if pk is not None:
                cited[passage_id].add((type_, pk))
    return cited


def in_text(passage_id: int, text: str, index: NameIndex, cited: set[tuple[str, int]]) -> list[Suggestion]:
    """The names `index` finds in `text` whose record `cited` does not hold, one suggestion per record named."""
    key, origin = _aligned(text)
    found: list[Suggestion] = []
    named: set[tuple[str, int]] = set(cited)
    for match in index.matcher.find(key):
        start = origin[match.start]
        end = origin[match.end - 1] + 1
        for owner in match.owners:
            type_, pk = cast(tuple[str, int], owner)  # the index's owners are (kind, pk) pairs
            if (type_, pk) in named:
                continue  # cited already, or suggested at its first mention
            named.add((type_, pk))
            label = index.labels.get((type_, pk), "")
            found.append(Suggestion(passage_id, start, end, text[start:end], type_, pk, label))
    return found


def suggestions(passages: Iterable[Passage | tuple[int, str]]) -> dict[int, list[Suggestion]]:
    """For each passage (a Passage, or its id and text), the mentions it does not yet cite; two queries at most."""
    pairs = [(p.pk, p.text) if isinstance(p, Passage) else p for p in passages]
    if not pairs:
        return {}
    index = name_index()
    cited = _cited_targets([pk for pk, _text in pairs])
    return {pk: in_text(pk, text, index, cited.get(pk, set())) for pk, text in pairs}


def of_source(source_id: int) -> dict[int, list[Suggestion]]:
    """The suggestions of every passage of a source (the batch, and the count left)."""
    rows = Passage.objects.filter(source_id=source_id).order_by("seq").values_list("pk", "text")
    return suggestions(rows)
