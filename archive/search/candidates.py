"""Candidates for a name (reconciliation, TEI import): the folded name search, then how fully each name is matched.

The search finds the approved records whose name or alias contains the
query in any script (Traditional/Simplified, pinyin, Wade–Giles without its
apostrophes and hyphens). Reconciliation must tell a whole name from a part
of one, so each candidate is scored here: a name equal to the query in its
folded form, its Latin key or its sound scores high; a name that merely
contains it scores by how much of the name the query covers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .keys import name_keys
from .query import TYPES, fiction_kept
from .records import Candidate, Query
from .snapshot import Snapshot, snapshots

EXACT_TITLE = 100.0
EXACT_ALIAS = 96.0
SPELLED = 94.0  # a romanised query spelling the whole name's pinyin
SOUND = 80.0  # a Han query sounding like the whole name, written otherwise (周澜, 周斓)
PARTIAL_FLOOR, PARTIAL_SPAN = 30.0, 40.0  # a part of a name: 30 to 70 by the share of the name it covers


@dataclass(frozen=True)
class Found:
    type: str
    record: Candidate
    name_score: float
    fictional: bool


def _whole(name: str, query: Query, *, title: bool) -> float | None:
    keys = name_keys(name)
    if keys.key == query.key or (query.latin is not None and keys.latin == query.latin):
        return EXACT_TITLE if title else EXACT_ALIAS
    if keys.syllables:
        if query.latin is not None and "".join(keys.syllables) == query.latin:
            return SPELLED
        if query.syllables and query.syllables == keys.syllables:
            return SOUND
    return None


def _cover(name: str, query: Query) -> float:
    """The share of `name` that the query covers, when the name contains it (by key, Latin key or sound)."""
    keys = name_keys(name)
    shares = [0.0]
    if query.key and query.key in keys.key:
        shares.append(len(query.key) / len(keys.key))
    if query.latin and keys.latin and query.latin in keys.latin:
        shares.append(len(query.latin) / len(keys.latin))
    spelled = "".join(keys.syllables)
    if query.latin and spelled and query.latin in spelled:
        shares.append(len(query.latin) / len(spelled))
    return max(shares)


def name_score(record: Candidate, query: Query) -> float:
    """How well the record's name or an alias matches the query, from 0 to 100."""
    best = 0.0
    for index, name in enumerate((record.title, *record.aliases)):
        whole = _whole(name, query, title=index == 0)
        best = max(best, whole if whole is not None else PARTIAL_FLOOR + PARTIAL_SPAN * _cover(name, query))
    return round(best, 1)


@functools.lru_cache(maxsize=4096)
def _query(text: str) -> Query:
    # A batch compares each property value with every candidate: its keys are computed once.
    return Query.of(text)


def names_equal(record: Candidate, text: str) -> bool:
    """Whether `text` is the whole of one of the record's names (folded, romanised or by sound)."""
    query = _query(text)
    return any(_whole(name, query, title=True) is not None for name in (record.title, *record.aliases))


def find(text: str, types: tuple[str, ...], fiction: str, shots: dict[str, Snapshot] | None = None) -> list[Found]:
    """Every visible record of `types` whose names match `text`, best first.

    A batch passes the snapshots it read once (`shots`), so that its size costs no queries.
    """
    query = Query.of(text)
    found: list[Found] = []
    shots = shots if shots is not None else snapshots(types)
    for type_id in types:
        snapshot = shots[type_id]
        for record, _match, fictional in snapshot.matching(query):
            if fiction_kept(fictional, fiction):
                found.append(Found(type_id, record, name_score(record, query), fictional))
    order = {type_id: index for index, type_id in enumerate(TYPES)}
    found.sort(key=lambda item: (-item.name_score, order[item.type], item.record.title, item.record.pk))
    return found


def records_by_pk(type_id: str, shots: dict[str, Snapshot] | None = None) -> dict[int, Candidate]:
    """The approved records of one type with their aliases, by primary key (from the search's snapshot)."""
    snapshot = shots[type_id] if shots is not None else snapshots([type_id])[type_id]
    return {record.pk: record for record in snapshot.records}
