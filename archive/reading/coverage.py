"""How much of a source is cited: the share of its passages and of its characters, and the mentions left.

A passage counts as cited when a citation that is not rejected rests on it;
its cited characters are the union of those citations' spans, so two
citations of the same words count them once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Sum
from django.db.models.functions import Length

from archive.models import Citation, Passage, Status

from . import mentions


@dataclass(frozen=True)
class Coverage:
    passages: int
    cited_passages: int
    characters: int
    cited_characters: int
    mentions_left: int | None = None

    @property
    def passage_share(self) -> float:
        return self.cited_passages / self.passages if self.passages else 0.0

    @property
    def character_share(self) -> float:
        return self.cited_characters / self.characters if self.characters else 0.0


def _union_length(spans: list[tuple[int, int]]) -> int:
    total = 0
    reach = -1
    for start, end in sorted(spans):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return total


def of_sources(source_ids: Iterable[int], *, with_mentions: bool = False) -> dict[int, Coverage]:
    """The coverage of each source, in three queries whatever their number (and the mentions when asked)."""
    ids = list(source_ids)
    sizes = {
        row["source_id"]: (row["n"], row["chars"] or 0)
        for row in Passage.objects.filter(source_id__in=ids)
        .values("source_id")
        .annotate(n=Count("id"), chars=Sum(Length("text")))
    }
    spans: dict[int, dict[int, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    rows = (
        Citation.objects.filter(passage__source_id__in=ids)
        .exclude(status=Status.REJECTED)
        .values_list("passage__source_id", "passage_id", "start", "end")
    )
    for source_id, passage_id, start, end in rows:
        spans[source_id][passage_id].append((start, end))
    result = {}
    for source_id in ids:
        passages, characters = sizes.get(source_id, (0, 0))
        cited = spans.get(source_id, {})
        left = None
        if with_mentions:
            left = mentions.left_in_source(source_id)
        result[source_id] = Coverage(
            passages=passages,
            cited_passages=len(cited),
            characters=characters,
            cited_characters=sum(_union_length(s) for s in cited.values()),
            mentions_left=left,
        )
    return result
