"""Citing the suggested mentions of the reader: one with a click, or every one of a source in one batch.

A suggestion is never taken on the browser's word: the passage is searched
again and only a name the index finds there, of a record not yet cited in
that passage, is cited. A batch makes drafts only, in one transaction, so
that a reviewer who had no hand in them still decides each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from archive.models import Citation, Passage, Rank, Source
from archive.models.registry import cited_model
from archive.reading import mentions
from archive.reading.mentions import Suggestion
from archive.services import review
from archive.services.citations import MENTION_CLAIM, citation_create
from archive.services.new_records import NEW_KINDS

BATCH_REASON = "suggested mentions cited in one batch"


def _cite(suggestion: Suggestion, passage: Passage, *, by: Any, reason: str) -> Citation:
    target = cited_model(suggestion.kind)._default_manager.get(pk=suggestion.record_id)
    return citation_create(
        passage=passage,
        quote=suggestion.quote,
        start=suggestion.start,
        end=suggestion.end,
        target_type=suggestion.kind,
        target=target,
        claim=MENTION_CLAIM,
        rank=Rank.NORMAL,
        by=by,
        reason=reason,
    )


@transaction.atomic
def cite_mention(*, passage: Passage, key: str, by: Any, submit: bool = True) -> Citation:
    """Cite the suggestion named by `key` (`Suggestion.key`) in `passage`; submitted for review unless asked not to."""
    found = mentions.suggestions([passage]).get(passage.pk, [])
    suggestion = next((s for s in found if s.key == key), None)
    if suggestion is None or suggestion.kind not in NEW_KINDS:
        raise ValidationError(
            _("Passage %(passage)s has no such suggested mention; it may have been cited meanwhile.")
            % {"passage": passage}
        )
    citation = _cite(suggestion, passage, by=by, reason="suggested mention cited in the source reader")
    if submit:
        review.submit(citation, by=by)
    return citation


@dataclass(frozen=True)
class Batch:
    created: list[Citation]
    ambiguous: int  # names that belong to more than one record, left for the curator


@transaction.atomic
def cite_all_mentions(*, source: Source, by: Any) -> Batch:
    """Draft citations of every suggested mention of `source` whose name belongs to one record only."""
    passages = {p.pk: p for p in Passage.objects.filter(source=source).select_related("source")}
    created: list[Citation] = []
    ambiguous = 0
    for passage_id, found in mentions.of_source(source.pk).items():
        by_span: dict[tuple[int, int], list[Suggestion]] = {}
        for suggestion in found:
            by_span.setdefault((suggestion.start, suggestion.end), []).append(suggestion)
        for candidates in by_span.values():
            if len(candidates) > 1:
                ambiguous += 1
                continue
            created.append(_cite(candidates[0], passages[passage_id], by=by, reason=BATCH_REASON))
    return Batch(created, ambiguous)
