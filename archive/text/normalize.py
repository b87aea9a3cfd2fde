"""Fold text so that variant spellings of the same words compare equal.

Sources mix traditional and simplified characters, full-width forms and
romanisations with or without diacritics. Search and quote matching need one
canonical form (``fold``), a per-character variant whose output can be mapped
back to original offsets (``fold_chars``/``fold_aligned``), and keys for names
written in pinyin or older romanisations (``pinyin_forms``/``fold_latin``).
"""

from __future__ import annotations

import functools
import re
import unicodedata

import opencc

__all__ = [
    "HAN",
    "fold",
    "fold_aligned",
    "fold_chars",
    "fold_latin",
    "is_han",
    "key_char",
    "pinyin_forms",
    "pinyin_syllables",
    "search_key",
    "to_simplified",
]

# CJK Unified Ideographs (URO and Extensions A-I) and Compatibility Ideographs.
_HAN_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2EE5F),
    (0x2F800, 0x2FA1F),
    (0x30000, 0x323AF),
)
_APOSTROPHES_AND_HYPHENS = frozenset("'`\u2018\u2019\u02bc\u02bb\u02b9-\u2010\u2011\u2012")
# Folding is NFKC -> t2s -> casefold; a single pass is not always a fixpoint
# (t2s has chains such as 薴 -> 苧 -> 苎, casefold can expose new compositions),
# so fold() repeats the pass until it stops changing. A few passes suffice.
_MAX_FOLD_PASSES = 6


@functools.cache
def _converter() -> opencc.OpenCC:
    # Config names differ across opencc releases ('t2s.json' vs 't2s').
    last_error: Exception | None = None
    for config in ("t2s.json", "t2s"):
        try:
            return opencc.OpenCC(config)
        except Exception as error:  # opencc raises bare RuntimeError/Exception
            last_error = error
    raise RuntimeError("OpenCC has no usable 't2s' configuration") from last_error


@functools.cache
def _to_traditional() -> opencc.OpenCC:
    last_error: Exception | None = None
    for config in ("s2t.json", "s2t"):
        try:
            return opencc.OpenCC(config)
        except Exception as error:  # opencc raises bare RuntimeError/Exception
            last_error = error
    raise RuntimeError("OpenCC has no usable 's2t' configuration") from last_error


def to_traditional(text: str) -> str:
    """Simplified -> Traditional Chinese with OpenCC 's2t', for display only: stored text stays as written."""
    if not text:
        return text
    return _to_traditional().convert(text)


def to_simplified(text: str) -> str:
    """Traditional -> Simplified Chinese with OpenCC 't2s' (phrase-aware)."""
    if not text:
        return text
    return _converter().convert(text)


def _fold_pass(text: str) -> str:
    return to_simplified(unicodedata.normalize("NFKC", text)).casefold()


def fold(text: str) -> str:
    """Canonical search form: NFKC, Traditional -> Simplified, casefold.

    Idempotent: ``fold(fold(t)) == fold(t)``.
    """
    current = text
    for _ in range(_MAX_FOLD_PASSES):
        folded = _fold_pass(current)
        if folded == current:
            break
        current = folded
    return current


@functools.lru_cache(maxsize=65536)
def _fold_one(ch: str) -> str:
    return "".join(to_simplified(part).casefold() for part in unicodedata.normalize("NFKC", ch))


def fold_chars(text: str) -> str:
    """Fold each character on its own (NFKC, t2s, casefold), then concatenate.

    ``fold`` works on the whole string, so NFKC may compose a base letter with
    a following combining mark and OpenCC may convert whole phrases; the result
    cannot be mapped back to original offsets. Matching and indexing need that
    mapping, so they use this per-character variant, whose output for each
    input character depends on that character alone. It is not idempotent and
    may differ from ``fold`` on combining sequences; compare fold_chars output
    only with other fold_chars output.
    """
    return "".join(_fold_one(ch) for ch in text)


def fold_aligned(text: str) -> tuple[str, list[int]]:
    """Return ``fold_chars(text)`` and, for each of its characters, the index
    in ``text`` of the character it came from (non-decreasing)."""
    pieces: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(text):
        folded = _fold_one(ch)
        pieces.append(folded)
        origin.extend([index] * len(folded))
    return "".join(pieces), origin


# Any CJK ideograph, as a regular expression: faster than `is_han` over a whole string.
HAN = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _HAN_RANGES) + "]")


def is_han(ch: str) -> bool:
    """True when ``ch`` (exactly one character) is a CJK ideograph."""
    if len(ch) != 1:
        raise ValueError(f"is_han expects one character, got {len(ch)}")
    cp = ord(ch)
    return any(low <= cp <= high for low, high in _HAN_RANGES)


def _dedupe(forms: list[str]) -> list[str]:
    return [form for form in dict.fromkeys(forms) if form]


def pinyin_syllables(han: str) -> list[str]:
    """The toneless lowercase pinyin of each Han character (pypinyin's NORMAL style, phrases read as phrases)."""
    # Imported here: its phrase dictionary takes a quarter of a second to load, which every process (each
    # command, each server worker) would pay at start, most of them never reading a name's pinyin.
    from pypinyin import Style, lazy_pinyin

    return [syllable.lower() for syllable in lazy_pinyin(han, style=Style.NORMAL)]


def pinyin_forms(name: str) -> list[str]:
    """Toneless lowercase pinyin keys for a Chinese name.

    '唐生智' -> ['tang sheng zhi', 'tangshengzhi', 'tang shengzhi']. The last
    form (surname + joined given name) is added for names of 2-4 Han
    characters; it assumes a one-character surname. Only Han characters are
    read; other characters in a mixed name are dropped. pypinyin's NORMAL
    style writes ü as 'v' (吕 -> 'lv'); no 'u'/'ü' variant is emitted. A name
    without Han characters yields its whitespace-collapsed ``fold`` with and
    without spaces. Blank input gives an empty list.
    """
    han = "".join(ch for ch in unicodedata.normalize("NFKC", name) if is_han(ch))
    if not han:
        folded = " ".join(fold(name).split())
        return _dedupe([folded, folded.replace(" ", "")])
    syllables = pinyin_syllables(han)
    forms = [" ".join(syllables), "".join(syllables)]
    if 2 <= len(han) <= 4:
        forms.append(f"{syllables[0]} {''.join(syllables[1:])}")
    return _dedupe(forms)


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def fold_latin(text: str) -> str:
    """Key for romanised names: "T'ang Sheng-chih" -> 'tang shengchih'.

    Strips diacritics, apostrophes and hyphens, casefolds and collapses
    whitespace. Decomposition runs before and after casefolding because each
    can expose characters the other changes (e.g. 'ℌ' -> 'H').
    """
    stripped = _strip_marks(_strip_marks(text).casefold())
    kept = "".join(ch for ch in stripped if ch not in _APOSTROPHES_AND_HYPHENS)
    return " ".join(kept.split())


@functools.lru_cache(maxsize=65536)
def key_char(ch: str) -> str:
    """The search key of one character: `fold_chars` repeated until it is a fixpoint.

    One pass is not always a fixpoint (OpenCC has chains such as 薴 -> 苧 -> 苎),
    and a query typed in the middle form must still find the text.
    """
    current = ch
    for _ in range(_MAX_FOLD_PASSES):
        folded = fold_chars(current)
        if folded == current:
            break
        current = folded
    return current


def search_key(text: str) -> str:
    """The search key of a text: the concatenated keys of its characters, aligned one to one with them.

    Here, beside the folding it repeats, because both the search and the
    citation model (its stored folded quote and claim) derive keys from it.
    """
    return "".join(key_char(ch) for ch in text)
