"""Search keys: the folded forms that queries and texts are compared in.

`archive.text.normalize.search_key` folds one character at a time (NFKC,
Traditional -> Simplified, casefold) until it stops changing, so a match in
folded text maps back to offsets in the original, and the key of a string is
idempotent. This module builds on it: aligned keys, grams and name keys.

Names get two more keys: toneless pinyin (`pinyin_forms`), and for romanised
names and queries the Latin key (`fold_latin`) without spaces, so that
`tang shengzhi`, `Tang Shengzhi` and `tangshengzhi` compare equal.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

# The key itself lives beside the folding it repeats, where the models can use it too.
from archive.text.normalize import fold_latin, is_han, key_char, pinyin_forms, search_key

_LATIN_QUERY = re.compile(r"[a-z0-9 ]+")


def search_key_aligned(text: str) -> tuple[str, list[int]]:
    """`search_key(text)` and, for each of its characters, the index in `text` it came from."""
    pieces: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(text):
        folded = key_char(ch)
        pieces.append(folded)
        origin.extend([index] * len(folded))
    return "".join(pieces), origin


def normalise_query(query: str) -> str:
    """Collapse runs of whitespace and strip the ends: what the user meant to type."""
    return " ".join(query.split())


# Grams are stored as integers, not strings: a GIN index of bigints builds in
# half the time of one of texts. A character is its code point; a pair is
# (first + 1) * 0x110000 + second, above every code point, so the two never meet.
_PLANE = 0x110000


def gram_code(gram: str) -> int:
    if len(gram) == 1:
        return ord(gram)
    return (ord(gram[0]) + 1) * _PLANE + ord(gram[1])


def grams(key: str) -> list[int]:
    """The distinct character 1- and 2-grams of a key (as `gram_code`s), in first-seen order.

    Stored for every indexed passage; a query of one character looks up its
    1-gram, a longer query all its 2-grams (then a LIKE confirms the order).
    """
    seen: dict[int, None] = {}
    codes = [ord(ch) for ch in key]
    for index, code in enumerate(codes):
        seen[code] = None
        if index + 1 < len(codes):
            seen[(code + 1) * _PLANE + codes[index + 1]] = None
    return list(seen)


def query_grams(key: str) -> list[int]:
    """The grams a query must find: its character when it has one, else its distinct 2-grams."""
    if len(key) == 1:
        return [gram_code(key)]
    return list(dict.fromkeys(gram_code(key[index : index + 2]) for index in range(len(key) - 1)))


def latin_key(text: str) -> str:
    """A romanised string without diacritics, apostrophes, hyphens, case or spaces."""
    return fold_latin(text).replace(" ", "")


def is_latin_query(text: str) -> bool:
    return bool(_LATIN_QUERY.fullmatch(fold_latin(text)))


class NameKeys(NamedTuple):
    """Everything a name is compared by, computed once per distinct name (a tuple: quick to make by the thousand)."""

    key: str
    latin: str | None  # the Latin key when the name is written in Latin letters
    syllables: tuple[str, ...]  # toneless pinyin, one per Han character
    han_positions: tuple[int, ...]  # index in the name of the Han character of each syllable


# Keys read from the store (`stored_keys`), answered without computing; at most
# the names the database has held while this process ran.
_remembered: dict[str, NameKeys] = {}


def remember(found: dict[str, NameKeys]) -> None:
    _remembered.update(found)


def remembered(name: str) -> NameKeys | None:
    return _remembered.get(name)


def remembering() -> bool:
    return bool(_remembered)


def forget() -> None:
    _remembered.clear()
    compute_name_keys.cache_clear()


def name_keys(name: str) -> NameKeys:
    found = _remembered.get(name)
    return found if found is not None else compute_name_keys(name)


# Large enough for every name and alias of an archive of a million passages (~60k).
@functools.lru_cache(maxsize=131072)
def compute_name_keys(name: str) -> NameKeys:
    han_positions = tuple(index for index, ch in enumerate(name) if is_han(ch))
    syllables: tuple[str, ...] = ()
    if han_positions:
        spaced = pinyin_forms(name)[0]
        syllables = tuple(spaced.split(" "))
        if len(syllables) != len(han_positions):
            # pypinyin read a character as more or fewer syllables: keep the whole name only.
            han_positions = ()
    latin = latin_key(name) if is_latin_query(name) else None
    return NameKeys(key=search_key(name), latin=latin, syllables=syllables, han_positions=han_positions)


def syllable_run(syllables: tuple[str, ...], wanted: str) -> tuple[int, int] | None:
    """The first run of whole syllables whose letters spell `wanted` (no spaces), as (first, stop)."""
    if not syllables or not wanted:
        return None
    for first in range(len(syllables)):
        spelled = ""
        for stop in range(first, len(syllables)):
            spelled += syllables[stop]
            if spelled == wanted:
                return first, stop + 1
            if not wanted.startswith(spelled):
                break
    return None
