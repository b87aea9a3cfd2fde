"""A passage's text cut into runs, each run with the citations whose quote covers it.

Quotes may overlap (two records cite one sentence); the text is cut at every
start and end, so that each run is marked with all the citations over it.
`marked` writes a passage's runs as the edition's HTML: in Python, because a
page of an edition holds a few thousand runs, and the template language
spent about a third of the page's time on their loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe


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


def marked(text: str, citations: Sequence[Any]) -> SafeString:
    """`text` as HTML: each cited run in a `<mark>` linked to its first note, an anchor where a quote begins."""
    html: list[str] = []
    for run in runs(text, citations):
        html.extend(format_html('<span id="c-{}" class="anchor"></span>', c.pk) for c in run.starts)
        if run.citations:
            cited = " ".join(str(c.pk) for c in run.citations)
            html.append(format_html('<mark data-citations="{}"><a href="#note-{}">{}</a></mark>',
                                    cited, run.citations[0].pk, run.text))
        else:
            html.append(escape(run.text))
    return mark_safe("".join(html))  # every piece escaped above
