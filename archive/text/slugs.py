"""Slugs made from names, as the shipped records are named: 唐生智 → tang-shengzhi, 挹江门 → yijiangmen."""

from __future__ import annotations

import itertools
import re
import unicodedata

from .normalize import fold_latin, is_han, pinyin_syllables

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def pinyin_slug(name: str, *, personal: bool = False, join_runs: bool = True, max_length: int = 80) -> str:
    """A lowercase ASCII slug of `name`.

    A personal name of two to four Han characters is written surname-given
    (tang-shengzhi). Otherwise each run of Han characters is one word when
    `join_runs` (a place or a unit: yijiangmen, di-74-jun) or a word per
    syllable (an event's title); other text is romanised as it stands.
    `max_length` leaves room for the suffix that makes a taken slug free.
    """
    text = unicodedata.normalize("NFKC", name).strip()
    words: list[str] = []
    if personal and 2 <= len(text) <= 4 and all(is_han(ch) for ch in text):
        syllables = pinyin_syllables(text)
        words = [syllables[0], "".join(syllables[1:])]
    else:
        for han, run in itertools.groupby(text, key=is_han):
            part = "".join(run)
            if han:
                syllables = pinyin_syllables(part)
                words.extend(["".join(syllables)] if join_runs else syllables)
            else:
                words.extend(fold_latin(part).split())
    slug = _NOT_SLUG.sub("-", "-".join(words).lower()).strip("-")
    return slug[:max_length].strip("-")
