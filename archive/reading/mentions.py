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

import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from django.db import connections, router

from archive import data_version
from archive.models import Citation, Passage, Status
from archive.search.keys import search_key_aligned
from archive.search.records import KINDS
from archive.search.snapshot import fingerprints
from archive.text.mentions import Found, NameMatcher

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


# Texts whose names an index keeps found, so that counting a source's mentions again after a
# citation (which changes what is cited, not what is named) does not search its text again.
FOUND_KEPT = 200_000


@dataclass(frozen=True)
class NameIndex:
    matcher: NameMatcher
    labels: dict[tuple[str, int], str]
    found: dict[str, tuple[list[Found], list[int]]] = field(default_factory=dict)

    def find(self, text: str) -> tuple[list[Found], list[int]]:
        """The names in `text` (spans in its key) and the key's map back to the text."""
        kept = self.found.get(text)
        if kept is None:
            key, origin = search_key_aligned(text)
            if len(self.found) >= FOUND_KEPT:
                self.found.clear()
            kept = self.found[text] = (self.matcher.find(key), origin)
        return kept


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


def _fingerprint(alias: str) -> str | None:
    """What changes when a name may have: exact on PostgreSQL (row versions), close on SQLite.

    SQLite has no row versions; there the rows' count, largest id, total
    length, first and last characters and rejected records are compared, which a
    rename to a different name of the same length, first and last character
    would escape until the next write of any name. The demo runs on SQLite;
    production on PostgreSQL.
    """
    connection = connections[alias]
    if connection.vendor == "postgresql":
        mark = fingerprints([KINDS[type_] for type_ in NAMED_KINDS], alias)
        return "/".join(mark[type_] for type_ in NAMED_KINDS)
    if connection.vendor != "sqlite":
        return None
    parts = []
    for type_ in NAMED_KINDS:
        kind = KINDS[type_]
        tables = [(kind.model._meta.db_table, kind.title_field, True)]
        if kind.alias_model is not None:
            tables.append((kind.alias_model._meta.db_table, "name", False))
        for table, column, curated in tables:
            rejected = f"total(status = '{Status.REJECTED}')" if curated else "0"
            parts.append(
                f"(SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || total(length({column})) || ':' || "
                f"total(unicode({column}) + unicode(substr({column}, -1))) || ':' || {rejected} FROM {table})"
            )
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + " || '/' || ".join(parts))
        row = cursor.fetchone()
    return str(row[0])


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
        fingerprint = _fingerprint(alias)
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
        _left.clear()


def _cited_targets(passage_ids: Sequence[int], source_id: int | None = None) -> dict[int, set[tuple[str, int]]]:
    cited: dict[int, set[tuple[str, int]]] = defaultdict(set)
    # A whole source is asked for by its id, not by a list of thousands of passages.
    chosen = Citation.objects.filter(passage__source_id=source_id) if source_id else Citation.objects.filter(
        passage_id__in=passage_ids
    )
    rows = (
        chosen.exclude(status=Status.REJECTED)
        .values_list("passage_id", *(f"{type_}_id" for type_ in NAMED_KINDS))
    )
    for passage_id, *targets in rows:
        for type_, pk in zip(NAMED_KINDS, targets, strict=True):
            if pk is not None:
                cited[passage_id].add((type_, pk))
    return cited


def in_text(passage_id: int, text: str, index: NameIndex, cited: set[tuple[str, int]]) -> list[Suggestion]:
    """The names `index` finds in `text` whose record `cited` does not hold, one suggestion per record named."""
    matches, origin = index.find(text)
    found: list[Suggestion] = []
    named: set[tuple[str, int]] = set(cited)
    for match in matches:
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


def suggestions(
    passages: Iterable[Passage | tuple[int, str]], *, source_id: int | None = None
) -> dict[int, list[Suggestion]]:
    """For each passage (a Passage, or its id and text), the mentions it does not yet cite; two queries at most.

    `source_id` says that the passages are all those of that source.
    """
    pairs = [(p.pk, p.text) if isinstance(p, Passage) else p for p in passages]
    if not pairs:
        return {}
    index = name_index()
    cited = _cited_targets([pk for pk, _text in pairs], source_id)
    return {pk: in_text(pk, text, index, cited.get(pk, set())) for pk, text in pairs}


def of_source(source_id: int) -> dict[int, list[Suggestion]]:
    """The suggestions of every passage of a source (the batch, and the count left)."""
    rows = Passage.objects.filter(source_id=source_id).order_by("seq").values_list("pk", "text")
    return suggestions(list(rows), source_id=source_id)


_left: dict[tuple[str, int], tuple[str, int]] = {}


def left_in_source(source_id: int) -> int:
    """How many suggested mentions a source has left, counted again only when the data changed.

    Counting reads the whole source; the reader shows the figure on every page,
    so it is kept under the data's generation, as the name index is.
    """
    alias = router.db_for_read(Passage)
    token = data_version.current(alias)
    stored = _left.get((alias, source_id))
    if stored is not None and token is not None and stored[0] == token:
        return stored[1]
    count = sum(len(found) for found in of_source(source_id).values())
    if token is not None:
        _left[(alias, source_id)] = (token, count)
    return count
