"""Pin quotes to exact code-point offsets in a passage and keep them pinned.

Citations store a quote plus its offsets. The offsets must be found reliably
when a transcriber's quote differs from the source only in script or width
(``locate``), must be exchanged with browsers as W3C Web Annotation selectors
(whose offsets are code points, while browsers count UTF-16 units), and must
survive corrections to the passage without silently jumping to a look-alike
occurrence of the same words (``reanchor``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from archive.text.normalize import fold_aligned

__all__ = [
    "AmbiguousQuote",
    "Anchor",
    "QuoteNotFound",
    "ReanchorError",
    "codepoint_to_utf16",
    "locate",
    "reanchor",
    "text_position_selector",
    "text_quote_selector",
    "utf16_to_codepoint",
]

# Context agreement needed before reanchor trusts context to choose between
# occurrences (or to accept the only new occurrence of a quote that was
# repeated in the old text).
_MIN_CONTEXT_AGREEMENT = 3


@dataclass(frozen=True)
class Anchor:
    """A span of a passage; ``exact`` is the passage's own characters there."""

    start: int
    end: int
    exact: str
    folded: bool


class QuoteNotFound(ValueError):
    def __init__(self, quote: str, closest: str, closest_start: int, closest_end: int, ratio: float) -> None:
        self.quote = quote
        self.closest = closest
        self.closest_start = closest_start
        self.closest_end = closest_end
        self.ratio = ratio
        super().__init__(
            f"quote {quote!r} is not in the passage; closest match is {closest!r} "
            f"at [{closest_start}:{closest_end}] (similarity {ratio:.2f})"
        )


class AmbiguousQuote(ValueError):
    def __init__(self, quote: str, positions: list[int], hint_start: int | None) -> None:
        self.quote = quote
        self.positions = positions
        self.hint_start = hint_start
        super().__init__(f"quote {quote!r} occurs at {positions} and hint_start={hint_start} matches none of them")


class ReanchorError(ValueError):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _occurrences(haystack: str, needle: str) -> list[int]:
    positions: list[int] = []
    pos = haystack.find(needle)
    while pos != -1:
        positions.append(pos)
        pos = haystack.find(needle, pos + 1)
    return positions


def _pick(quote: str, positions: list[int], hint_start: int | None) -> int:
    if len(positions) == 1 or hint_start is None:
        return positions[0]
    if hint_start in positions:
        return hint_start
    raise AmbiguousQuote(quote, positions, hint_start)


def _closest(folded_passage: str, folded_quote: str) -> tuple[int, int, float]:
    """Best approximate span of ``folded_quote`` in ``folded_passage``.

    Windows of the quote's length are scored at a stride of half that length
    (so every span of that length overlaps a window by at least half), then
    the best window's neighbourhood is trimmed to its matching blocks. The
    quote is SequenceMatcher's cached side, so cost stays near O(n * m).
    """
    n, m = len(folded_passage), len(folded_quote)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(folded_quote)

    def score(lo: int, hi: int) -> float:
        matcher.set_seq1(folded_passage[lo:hi])
        return matcher.ratio()

    if n == 0:
        return 0, 0, 0.0
    width = min(m, n)
    stride = max(1, width // 2)
    starts = list(range(0, n - width + 1, stride))
    if starts[-1] != n - width:
        starts.append(n - width)
    best_lo = max(starts, key=lambda lo: score(lo, lo + width))
    best = (best_lo, best_lo + width, score(best_lo, best_lo + width))

    region_lo = max(0, best_lo - width // 2)
    region_hi = min(n, best_lo + width + width // 2)
    matcher.set_seq1(folded_passage[region_lo:region_hi])
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if blocks:
        lo = region_lo + blocks[0].a
        hi = region_lo + blocks[-1].a + blocks[-1].size
        trimmed = score(lo, hi)
        if trimmed > best[2]:
            best = (lo, hi, trimmed)
    return best


def locate(passage: str, quote: str, *, hint_start: int | None = None) -> Anchor:
    """Find ``quote`` in ``passage``.

    An exact match wins; failing that, both are compared after ``fold_chars``
    (script, width, case) and the match is mapped back to whole original
    characters. With several occurrences the one starting at ``hint_start``
    is chosen, or the first when no hint is given; a hint that matches none
    of several occurrences raises AmbiguousQuote (a single occurrence is
    returned whatever the hint). Raises QuoteNotFound with the closest
    approximate match, and ValueError for an empty quote.
    """
    if not quote:
        raise ValueError("cannot locate an empty quote")
    positions = _occurrences(passage, quote)
    if positions:
        start = _pick(quote, positions, hint_start)
        return Anchor(start, start + len(quote), quote, folded=False)

    folded_passage, origin = fold_aligned(passage)
    folded_quote, _ = fold_aligned(quote)
    size = len(folded_quote)
    spans: list[tuple[int, int]] = []
    for pos in _occurrences(folded_passage, folded_quote) if size else []:
        last = pos + size - 1
        # A match must cover whole original characters: 'g' alone must not
        # match inside the single character '㎏'.
        starts_clean = pos == 0 or origin[pos - 1] != origin[pos]
        ends_clean = last + 1 == len(origin) or origin[last + 1] != origin[last]
        if starts_clean and ends_clean:
            spans.append((origin[pos], origin[last] + 1))
    if spans:
        start = _pick(quote, [s for s, _ in spans], hint_start)
        end = dict(spans)[start]
        return Anchor(start, end, passage[start:end], folded=True)

    lo, hi, ratio = _closest(folded_passage, folded_quote)
    if hi > lo:
        start, end = origin[lo], origin[hi - 1] + 1
    else:
        start = end = 0
    raise QuoteNotFound(quote, passage[start:end], start, end, ratio)


def _check_span(text: str, start: int, end: int) -> None:
    if not 0 <= start < end <= len(text):
        raise ValueError(f"span [{start}:{end}] is empty or outside text of length {len(text)}")


def text_quote_selector(passage: str, start: int, end: int, context: int = 32) -> dict[str, Any]:
    """W3C TextQuoteSelector for ``passage[start:end]`` with up to ``context``
    characters of prefix and suffix."""
    _check_span(passage, start, end)
    if context < 0:
        raise ValueError("context must be >= 0")
    return {
        "type": "TextQuoteSelector",
        "exact": passage[start:end],
        "prefix": passage[max(0, start - context) : start],
        "suffix": passage[end : end + context],
    }


def text_position_selector(start: int, end: int) -> dict[str, Any]:
    """W3C TextPositionSelector; offsets are code points, as the spec requires."""
    if not 0 <= start <= end:
        raise ValueError(f"invalid span [{start}:{end}]")
    return {"type": "TextPositionSelector", "start": start, "end": end}


def _agreement(old: str, o: int, new: str, n: int, length: int, context: int) -> int:
    """How many characters of context, read outward from the quote, agree
    between ``old`` at ``o`` and ``new`` at ``n``. Reaching the start (or end)
    of both texts at once counts as one more agreeing character, so that
    'at the very beginning' is evidence too."""
    total = 0
    for k in range(context):
        i, j = o - 1 - k, n - 1 - k
        if i < 0 and j < 0:
            total += 1
            break
        if i < 0 or j < 0 or old[i] != new[j]:
            break
        total += 1
    for k in range(context):
        i, j = o + length + k, n + length + k
        if i >= len(old) and j >= len(new):
            total += 1
            break
        if i >= len(old) or j >= len(new) or old[i] != new[j]:
            break
        total += 1
    return total


def reanchor(old_text: str, new_text: str, start: int, end: int, *, context: int = 32) -> Anchor:
    """Move the span ``old_text[start:end]`` to its place in ``new_text``.

    Context means up to ``context`` characters on each side of the quote.
    1. If the quote occurs exactly once in both texts, take that occurrence.
    2. Otherwise score each occurrence in ``new_text`` by how much of the old
       context still adjoins it; a tie for the best score is refused.
    3. The stored position is kept if it is the best and all of its context
       is unchanged.
    4. Otherwise the best must reach a minimum agreement and resemble the
       cited occurrence more than any other old occurrence of the quote.
    Anything else raises ReanchorError: a citation is never moved to a
    look-alike. The result is always an exact match (``folded=False``).
    """
    _check_span(old_text, start, end)
    quote = old_text[start:end]
    length = end - start
    found = _occurrences(new_text, quote)
    if not found:
        raise ReanchorError(f"quote {quote!r} no longer occurs in the new text")

    def anchor_at(pos: int) -> Anchor:
        return Anchor(pos, pos + length, quote, folded=False)

    old_found = _occurrences(old_text, quote)
    if len(found) == 1 and len(old_found) == 1:
        return anchor_at(found[0])

    full = _agreement(old_text, start, old_text, start, length, context)
    scores = {n: _agreement(old_text, start, new_text, n, length, context) for n in found}
    best_score = max(scores.values())
    leaders = [n for n in found if scores[n] == best_score]
    if len(leaders) > 1:
        raise ReanchorError(
            f"quote {quote!r} occurs {len(found)} times in the new text and its context does not single one out"
        )
    best = leaders[0]
    if best == start and best_score == full:
        # Unchanged position with unchanged context, and nothing else as good.
        return anchor_at(start)
    if best_score < min(_MIN_CONTEXT_AGREEMENT, full):
        raise ReanchorError(
            f"the context of quote {quote!r} no longer agrees with any occurrence "
            f"(best {best_score} of {full} characters)"
        )
    for other in old_found:
        if other != start and (_agreement(old_text, other, new_text, best, length, context) >= best_score):
            raise ReanchorError(
                f"the best match for quote {quote!r} at {best} looks at least as much "
                f"like the old occurrence at {other} as like the cited one at {start}"
            )
    return anchor_at(best)


def utf16_to_codepoint(text: str, utf16_offset: int) -> int:
    """Convert a browser (UTF-16 code unit) offset into a code-point offset.

    Raises ValueError if the offset is out of range or falls between the two
    halves of a surrogate pair.
    """
    if utf16_offset < 0:
        raise ValueError(f"UTF-16 offset {utf16_offset} is negative")
    units = 0
    for index, ch in enumerate(text):
        if units == utf16_offset:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > utf16_offset:
            raise ValueError(f"UTF-16 offset {utf16_offset} splits the surrogate pair of {ch!r} at code point {index}")
    if units == utf16_offset:
        return len(text)
    raise ValueError(f"UTF-16 offset {utf16_offset} is beyond the text ({units} units)")


def codepoint_to_utf16(text: str, offset: int) -> int:
    """Convert a code-point offset into a browser (UTF-16 code unit) offset."""
    if not 0 <= offset <= len(text):
        raise ValueError(f"offset {offset} is outside text of length {len(text)}")
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)
