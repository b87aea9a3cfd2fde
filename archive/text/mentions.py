"""Find the names of known records in a text: one pass of an Aho–Corasick automaton.

Every name form (a name, an alias, a Traditional or romanised form) is added
under its search key (`normalize.search_key`, Traditional folded to Simplified,
character by character), so 蕪湖 in a Traditional text is found by 芜湖's key.
Chinese has no spaces to split words on: the automaton matches characters,
and of overlapping names the longest, leftmost one wins (唐生智 over 唐生).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import ahocorasick  # type: ignore[import-not-found]  # a C extension without type information

from .normalize import HAN, search_key

# One Han character is a surname, a word, a particle: as a name it would mark half the text.
MIN_NAME_LENGTH = 2


@dataclass(frozen=True)
class Found:
    """A name found in a text: its span in the key (aligned with the text), and whose names it is."""

    start: int
    end: int
    owners: tuple[Hashable, ...]


@functools.lru_cache(maxsize=262_144)  # names change rarely: an index rebuilt reuses their keys
def usable_key(name: str) -> str | None:
    """The key a name is matched by, or None for a name too short or with no Han character."""
    key = search_key(name.strip())
    if len(key) < MIN_NAME_LENGTH or HAN.search(key) is None:
        return None
    return key


class NameMatcher:
    """The names of many records, matched against a text's search key in one pass."""

    def __init__(self, names: Iterable[tuple[str, Hashable]]) -> None:
        owners: dict[str, list[Hashable]] = {}
        for name, owner in names:
            key = usable_key(name)
            if key is not None:
                bucket = owners.setdefault(key, [])
                if owner not in bucket:
                    bucket.append(owner)
        self.size = len(owners)
        self._automaton = ahocorasick.Automaton()
        for key, bucket in owners.items():
            self._automaton.add_word(key, (len(key), tuple(bucket)))
        if owners:
            self._automaton.make_automaton()

    def find(self, key: str) -> list[Found]:
        """The names in `key` (a text's search key), leftmost-longest, never overlapping."""
        if not self.size:
            return []
        return [
            Found(end + 1 - length, end + 1, owners)
            for end, (length, owners) in self._automaton.iter_long(key)
        ]
