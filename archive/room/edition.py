"""A passage's text cut into runs, each run with the citations whose quote covers it.

Quotes may overlap (two records cite one sentence); the text is cut at every
start and end, so that each run is marked with all the citations over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any


@dataclass
class Run:
    text: str
    citations: list[Any] = field(default_factory=list)
    # The citations whose quote begins at this run: their anchors go here.
    starts: list[Any] = field(default_factory=list)


def runs(text: str, citations: Sequence[Any]) -> list[Run]:
    """`text` cut at the bounds of each citation's `start`/`end` (offsets in characters)."""
    spans = [(max(0, c.start), min(len(text), c.end), c) for c in citations if c.start < c.end <= len(text)]
    cuts = sorted({0, len(text), *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    result = []
    for low, high in pairwise(cuts):
        covering = [c for s, e, c in spans if s <= low and high <= e]
        starting = [c for s, _, c in spans if s == low]
        result.append(Run(text[low:high], covering, starting))
    return result
