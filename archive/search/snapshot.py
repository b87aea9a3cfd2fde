"""The approved records of each kind, held in memory with their name keys, looked up without a scan in Python.

Matching a query against every name in Python cost ~300 ms at a million
passages (80,000 names). A snapshot reads the names once and their keys once
(`stored_keys`: from memory, else as stored by an earlier process, else
computed), then finds the records a query can match with C-speed searches:

* folded keys and Latin keys are each joined into one string, separated by
  a newline (a query never contains one: whitespace is collapsed), and the
  query's key is found with `str.find`; an offset maps back to its name by
  bisection. Building this is a join, not an index of every gram;
* sound: a dict by the whole syllable tuple (a Han query sounding like a
  name), and by single syllables and pairs of consecutive syllables (a
  romanised query spelling a run of whole syllables starts with one).

Each lookup is a superset filter; `match_candidate` still decides, so the
results, scores and snippets are exactly those of matching every record.

A snapshot is stored under `archive.data_version.current`, which changes with
every commit the connection can see; inside a transaction that has written
it is unknown, and the snapshot is then built for that query and not kept.
Since the generation changes with any write (a passage, a citation, another
database of the cluster), on PostgreSQL a kind is rebuilt only when its own
tables changed: `fingerprint` reads their row count and the sum of the rows'
`xmin` (the writing transaction), which any insert, update or delete alters.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from django.db import connections, models

from archive import data_version
from archive.models import Status

from .keys import forget
from .records import KINDS, Candidate, Kind, Match, Query, match_candidate
from .stored_keys import keys_of

SEPARATOR = "\n"


def _add(index: dict[object, list[int]], key: object, position: int) -> None:
    bucket = index.get(key)
    if bucket is None:
        index[key] = [position]
    elif bucket[-1] != position:  # names of one record are added together: skip repeats
        bucket.append(position)


@dataclass
class _Joined:
    """Keys joined into one string; `owners[i]` is the record of the key starting at `starts[i]`."""

    text: str = ""
    starts: list[int] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, keys: list[tuple[int, str]]) -> _Joined:
        starts, at = [], 0
        for _owner, key in keys:
            starts.append(at)
            at += len(key) + 1
        return cls(SEPARATOR.join(key for _owner, key in keys), starts, [owner for owner, _key in keys])

    def containing(self, wanted: str) -> set[int]:
        found: set[int] = set()
        if not wanted or SEPARATOR in wanted:
            return found
        at = self.text.find(wanted)
        while at >= 0:
            found.add(self.owners[bisect_right(self.starts, at) - 1])
            at = self.text.find(wanted, at + 1)
        return found


def read(kind: Kind, queryset: models.QuerySet) -> tuple[list[Candidate], list[bool]]:
    """The records of `queryset` with their aliases and fictional flags, two queries at most."""
    flag = "is_fiction" if kind.type == "source" else "fictional"
    found: dict[int, Candidate] = {}
    flags: list[bool] = []
    for pk, slug, title, fictional in queryset.order_by().values_list("pk", "slug", kind.title_field, flag):
        found[pk] = Candidate(pk=pk, slug=slug, title=title, fiction=bool(fictional) and kind.type == "source")
        flags.append(bool(fictional))
    if kind.alias_model is not None and found:
        # The same aliases, in the same order, as `records.candidates` reads them.
        aliases = kind.alias_model._default_manager.using(queryset.db).filter(
            **{f"{kind.alias_fk}__in": queryset.values("pk")}
        )
        for owner, name in aliases.order_by(kind.alias_fk, "pk").values_list(kind.alias_fk, "name"):
            candidate = found.get(owner)
            if candidate is not None and name != candidate.title:
                candidate.aliases.append(name)
    return list(found.values()), flags


@dataclass
class Snapshot:
    """The approved records of one kind with what a query is looked up by (positions in `records`)."""

    kind: Kind
    records: list[Candidate]
    fictional: list[bool]
    keys: _Joined = field(default_factory=_Joined)
    latin: _Joined = field(default_factory=_Joined)
    by_sound: dict[object, list[int]] = field(default_factory=dict)  # the whole syllable tuple
    by_syllable: dict[object, list[int]] = field(default_factory=dict)  # a syllable, or two consecutive ones

    @classmethod
    def build(cls, kind: Kind, queryset: models.QuerySet) -> Snapshot:
        records, fictional = read(kind, queryset)
        known = keys_of((name for record in records for name in (record.title, *record.aliases)), queryset.db)
        keys: list[tuple[int, str]] = []
        latin: list[tuple[int, str]] = []
        by_sound: dict[object, list[int]] = {}
        by_syllable: dict[object, list[int]] = {}
        for position, record in enumerate(records):
            for name in (record.title, *record.aliases):
                name_key = known[name]
                keys.append((position, name_key.key))
                if name_key.latin:
                    latin.append((position, name_key.latin))
                syllables = name_key.syllables
                if kind.pinyin and syllables:
                    _add(by_sound, syllables, position)
                    # Inline `_add`: a name has several syllables, and a new worker adds them all at once.
                    for entry in (*syllables, *pairwise(syllables)):
                        bucket = by_syllable.get(entry)
                        if bucket is None:
                            by_syllable[entry] = [position]
                        elif bucket[-1] != position:
                            bucket.append(position)
        return cls(kind, records, fictional, _Joined.of(keys), _Joined.of(latin), by_sound, by_syllable)

    def _spelled(self, latin: str) -> set[int]:
        """Positions of the records with a run of whole syllables that may spell `latin`."""
        found: set[int] = set()
        # A syllable is any length here (pypinyin keeps a character it cannot read as it is).
        for first in range(1, len(latin) + 1):
            head, rest = latin[:first], latin[first:]
            if head not in self.by_syllable:
                continue
            if not rest:
                found.update(self.by_syllable[head])
                continue
            for second in range(1, len(rest) + 1):
                found.update(self.by_syllable.get((head, rest[:second]), ()))
        return found

    def positions(self, query: Query) -> set[int]:
        """The records that may match `query`: a superset of those `match_candidate` accepts."""
        found = self.keys.containing(query.key)
        if query.latin:
            found |= self.latin.containing(query.latin)
        if self.kind.pinyin:
            if query.syllables:
                found.update(self.by_sound.get(query.syllables, ()))
            if query.latin:
                found |= self._spelled(query.latin)
        return found

    def matching(self, query: Query) -> list[tuple[Candidate, Match, bool]]:
        """(record, how it matches, fictional) for every record matching `query`."""
        results = []
        for position in self.positions(query):
            record = self.records[position]
            match = match_candidate(record, query, self.kind)
            if match is not None:
                results.append((record, match, self.fictional[position]))
        return results


def fingerprints(kinds: list[Kind], alias: str) -> dict[str, str]:
    """Per kind, the row count and sum of `xmin` of its tables, in one query (PostgreSQL; empty elsewhere).

    Any insert, update or delete changes one or the other: a new row version
    carries the id of the transaction that wrote it, larger than the ids of
    the versions it replaces, and ids are never reused (not after a rollback
    either). Freezing keeps `xmin` as it was.
    """
    connection = connections[alias]
    if connection.vendor != "postgresql" or not kinds:
        return {}
    columns = []
    for kind in kinds:
        tables = [kind.model._meta.db_table] + ([kind.alias_model._meta.db_table] if kind.alias_model else [])
        parts = [f"(SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM {t})" for t in tables]
        columns.append(" || '/' || ".join(parts))
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(columns))
        row = cursor.fetchone()
    return {kind.type: str(mark) for kind, mark in zip(kinds, row, strict=True)}


_lock = threading.Lock()


@dataclass(frozen=True)
class _Stored:
    generation: str | None
    fingerprint: str | None
    snapshot: Snapshot


# (database alias, kind, every status?) -> the last snapshot built
_snapshots: dict[tuple[str, str, bool], _Stored] = {}


def approved(kind: Kind) -> models.QuerySet:
    return kind.model._default_manager.filter(status=Status.APPROVED)


def _records(kind: Kind, every_status: bool) -> models.QuerySet:
    return kind.model._default_manager.all() if every_status else approved(kind)


def snapshots(types: Iterable[str], *, every_status: bool = False) -> dict[str, Snapshot]:
    """The current snapshot of each record kind among `types`, rebuilt where its data changed.

    Approved records only (the public search), or with `every_status` all of
    them (the admin's search boxes, where curators look for drafts).
    """
    by_alias: dict[str, list[Kind]] = {}
    for type_ in types:
        if type_ in KINDS:
            kind = KINDS[type_]
            by_alias.setdefault(_records(kind, every_status).db, []).append(kind)
    result: dict[str, Snapshot] = {}
    for alias, kinds in by_alias.items():
        # Read before the data, so a snapshot is never stored under a state newer than its own.
        token = data_version.current(alias)
        stale = []
        for kind in kinds:
            stored = _snapshots.get((alias, kind.type, every_status))
            if stored is not None and token is not None and stored.generation == token:
                result[kind.type] = stored.snapshot
            else:
                stale.append(kind)
        if stale:
            with _lock:  # one build at a time: concurrent requests would only repeat it
                marks = fingerprints(stale, alias)
                for kind in stale:
                    result[kind.type] = _refresh(kind, alias, token, marks.get(kind.type), every_status)
    return result


def _refresh(kind: Kind, alias: str, token: str | None, mark: str | None, every_status: bool) -> Snapshot:
    stored = _snapshots.get((alias, kind.type, every_status))
    if stored is not None and mark is not None and stored.fingerprint == mark:
        snapshot = stored.snapshot  # something else was written: this kind is unchanged
    else:
        snapshot = Snapshot.build(kind, _records(kind, every_status).using(alias))
    # Only a snapshot of committed data is kept. Inside a transaction (no token) a second
    # write to a row the transaction already wrote leaves its xmin, so the fingerprint
    # could not tell; there a kind is reused only if unchanged since a committed state.
    if token is not None:
        _snapshots[(alias, kind.type, every_status)] = _Stored(token, mark, snapshot)
    return snapshot


def clear() -> None:
    """Forget every snapshot and name key in memory, as in a new process (tests; a process wanting its memory back)."""
    with _lock:
        _snapshots.clear()
        forget()
