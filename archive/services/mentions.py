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

from archive import fiction
from archive.models import Batch as BatchRecord
from archive.models import Citation, Passage, Rank, Source
from archive.models.registry import cited_model
from archive.reading import mentions
from archive.reading.mentions import Suggestion
from archive.services import batches, review
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
    record: BatchRecord | None = None


@transaction.atomic
def cite_all_mentions(*, source: Source, by: Any, shown: str | None = None) -> Batch:
    """Draft citations of every suggested mention of `source` whose name belongs to one record only.

    `shown` is the digest of the preview the curator confirmed
    (`archive.services.batches.Preview.digest`): if the suggestions changed
    since, nothing is made. The drafts are remembered as one batch.
    """
    preview = batches.preview_mentions(source=source)
    if shown is not None and shown != preview.digest:
        raise ValidationError(
            _("The suggested mentions of %(source)s changed since the preview; nothing was cited. Read it again.")
            % {"source": source},
            code="stale",
        )
    # Drafts are nobody's approved evidence: the fiction flags are worked out once, at the end.
    with fiction.deferred():
        created = [_cite(suggestion, passage, by=by, reason=BATCH_REASON) for passage, suggestion in preview.chosen]
    record = batches.record_batch(source=source, citations=created, by=by) if created else None
    return Batch(created, len(preview.ambiguous), record)
