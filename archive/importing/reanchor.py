"""Re-anchoring: where each citation of a replaced text lands in the new one.

A changed file may replace an imported one only if every citation on the old
passages can be placed in the new ones; otherwise the replacement is refused
with the list of citations that have no place. This module plans the move
and writes nothing; `archive.importing.source_text` applies the plan.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from archive.text import anchor

# How far from its expected place a citation's passage is looked for when the
# passage it stood on has changed.
NEIGHBOUR_RADIUS = 2
# An edited passage's successor resembles it at least this much (difflib
# ratio), and clearly more than any other candidate.
SUCCESSOR_SIMILARITY = 0.6
SUCCESSOR_MARGIN = 0.05


@dataclass(frozen=True)
class Placement:
    """Where a citation lands in the new text: passage index (0-based) and offsets in it."""

    index: int
    start: int
    end: int


@dataclass(frozen=True)
class Unplaced:
    """A citation the new text has no unique place for."""

    citation: str
    seq: int
    quote: str
    reason: str

    def __str__(self) -> str:
        return _("citation %(citation)s on passage §%(seq)s, “%(quote)s”: %(reason)s") % {
            "citation": self.citation,
            "seq": self.seq,
            "quote": self.quote,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CitationSpan:
    """What re-anchoring needs of a citation: a label, its passage's index and its offsets."""

    label: str
    index: int
    start: int
    end: int


def expected_positions(old: Sequence[str], new: Sequence[str]) -> tuple[dict[int, int], dict[int, int]]:
    """Align old and new passages by their text.

    Returns, for each old passage, the new passage expected in its place, and
    the subset of old passages whose text is unchanged (mapped to their twin).
    With no passage added or removed the expected place is the same seq.
    """
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    expected: dict[int, int] = {}
    same: dict[int, int] = {}
    last = max(len(new) - 1, 0)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            if tag == "equal":
                expected[i] = same[i] = j1 + (i - i1)
            elif tag == "replace":
                expected[i] = min(j1 + (i - i1), j2 - 1)
            else:  # delete: the passage is gone; look around where it was
                expected[i] = min(j1, last)
    return expected, same


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _window(home: int, seq_index: int, size: int) -> list[list[int]]:
    """Rings of candidate passages: the expected one, the old seq, then neighbours."""
    rings: list[list[int]] = [[home]]
    if seq_index != home:
        rings.append([seq_index])
    rings += [[home - d, home + d] for d in range(1, NEIGHBOUR_RADIUS + 1)]
    seen: set[int] = set()
    out: list[list[int]] = []
    for ring in rings:
        kept = [j for j in ring if 0 <= j < size and j not in seen]
        seen.update(kept)
        if kept:
            out.append(kept)
    return out


def plan_reanchor(
    old_texts: Sequence[str], new_texts: Sequence[str], citations: Sequence[CitationSpan]
) -> tuple[dict[str, Placement], list[Unplaced]]:
    """Place every citation of the old passages in the new ones.

    Old and new passages are aligned by text. A citation on an unchanged
    passage stays on its twin. A citation on an edited passage goes to the
    new passage that resembles the old one (at least SUCCESSOR_SIMILARITY,
    among the expected passage, the old seq and two neighbours each way);
    two passages that resemble it about equally are ambiguous and refused.
    When the old passage no longer exists, the quote is looked for in the
    expected passage (the same seq unless passages were added or removed
    before it), then the old seq, then the neighbours one and two away, and
    each ring must yield exactly one find. Finding a quote is always
    `anchor.reanchor`, which refuses look-alikes inside a passage.
    """
    expected, same = expected_positions(old_texts, new_texts)
    placed: dict[str, Placement] = {}
    failures: list[Unplaced] = []
    for cite in citations:
        old_text = old_texts[cite.index]
        quote = old_text[cite.start : cite.end] if 0 <= cite.start < cite.end <= len(old_text) else ""

        def attempt(j: int, cite: CitationSpan = cite, old_text: str = old_text) -> Placement | str:
            try:
                found = anchor.reanchor(old_text, new_texts[j], cite.start, cite.end)
            except ValueError as exc:  # ReanchorError, or offsets outside the old passage
                return str(exc)
            return Placement(j, found.start, found.end)

        home = expected.get(cite.index, cite.index)
        rings = _window(home, cite.index, len(new_texts))
        result: Placement | str
        if cite.index in same:
            result = attempt(same[cite.index])
        else:
            result = _place_edited(old_text, new_texts, rings, attempt, cite.index + 1)
        if isinstance(result, Placement):
            placed[cite.label] = result
        else:
            failures.append(Unplaced(cite.label, cite.index + 1, quote, result))
    return placed, failures


def _place_edited(old_text: str, new_texts: Sequence[str], rings: list[list[int]], attempt: Any, seq: int
                  ) -> Placement | str:
    candidates = [j for ring in rings for j in ring]
    scored = sorted(((_similarity(old_text, new_texts[j]), j) for j in candidates), reverse=True)
    alike = [(score, j) for score, j in scored if score >= SUCCESSOR_SIMILARITY]
    if len(alike) > 1 and alike[0][0] - alike[1][0] < SUCCESSOR_MARGIN:
        rivals = sorted(j + 1 for score, j in alike if alike[0][0] - score < SUCCESSOR_MARGIN)
        return _("passage §%(seq)s resembles more than one new passage (§%(seqs)s)") % {
            "seq": seq, "seqs": ", §".join(map(str, rivals))}
    if alike:
        # The passage was edited: its successor is the first place to look.
        successor = alike[0][1]
        result = attempt(successor)
        if isinstance(result, Placement):
            return result
        rings = [[successor - d, successor + d] for d in range(1, NEIGHBOUR_RADIUS + 1)]
        rings = [[j for j in ring if 0 <= j < len(new_texts)] for ring in rings]
    reason = _("the quote is no longer in passage §%(seq)s or its neighbours") % {"seq": seq}
    for ring in rings:
        finds = [r for r in (attempt(j) for j in ring) if isinstance(r, Placement)]
        if len(finds) > 1:
            return _("the quote is found in more than one passage (§%(seqs)s)") % {
                "seqs": ", §".join(str(f.index + 1) for f in finds)}
        if finds:
            return finds[0]
    return reason
