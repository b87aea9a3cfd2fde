"""A passage's text cut into runs, each run with the citations whose quote covers it.

Quotes may overlap (two records cite one sentence); the text is cut at every
start and end, so that each run is marked with all the citations over it.
`marked` writes a passage's runs as the edition's HTML, and `notes` the notes
under it: in Python, because a page of an edition holds a few thousand runs
and about a thousand notes, and the template language spent most of the
page's time on their loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from archive.templatetags.room_text import shown_name


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


def notes(citations: Sequence[Any]) -> SafeString:
    """The notes under a passage: each quote, the record it is evidence for (linked) and its claim."""
    items = []
    for citation in citations:
        target = ""
        if citation.target_url:
            if citation.post:
                name = f"{shown_name(citation.post.person)} · {shown_name(citation.post.unit)}"
            elif citation.participation:
                name = shown_name(citation.participation.event)
            else:
                name = shown_name(citation.target)
            target = format_html('<a href="{}" class="target" lang="zh">{}</a>', citation.target_url, name)
        claim = format_html('<span class="claim" lang="zh">{}</span>', citation.claim) if citation.claim else ""
        items.append(format_html('<li id="note-{}"><q lang="zh">{}</q> →\n    {}\n    {}\n  </li>',
                                 citation.pk, citation.quote, target, claim))
    return format_html('<ul class="notes">\n  {}\n  </ul>', mark_safe("".join(items)))  # each item escaped above
