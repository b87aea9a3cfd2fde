"""Citing the suggested mentions of the reader: one with a click, or every one of a source in one batch.

A suggestion is never taken on the browser's word: the passage is searched
again and only a name the index finds there, of a record not yet cited in
that passage, is cited. A batch makes drafts only, in one transaction, so
that a reviewer who had no hand in them still decides each one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import router, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import fiction
from archive.models import Batch as BatchRecord
from archive.models import Citation, Passage, Rank, Source, Status
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


def _slugs(drafts: list[Citation]) -> None:
    """Name every draft as `Citation.free_slug` would: its first candidate not taken, a query a round."""
    taken: set[str] = set()
    left = list(drafts)
    for attempt in range(Citation.SLUG_ATTEMPTS):
        if not left:
            return
        trying = [draft.slug_candidate(attempt) for draft in left]
        for start in range(0, len(trying), 500):
            taken |= set(Citation.objects.filter(slug__in=trying[start : start + 500]).values_list("slug", flat=True))
        waiting = []
        for draft, slug in zip(left, trying, strict=True):
            if slug in taken:
                waiting.append(draft)
            else:
                draft.slug = slug
                taken.add(slug)
        left = waiting
    if left:
        raise ValidationError(_("Could not name the citation; try again."))


def cite_many(
    chosen: list[tuple[Passage, Suggestion]], *, by: Any, reason: str = BATCH_REASON
) -> list[Citation]:
    """Draft citations of many suggestions in one write: what `citation_create` does for one, read and written
    per kind of record instead of per citation.

    The records cited are read once per kind; a suggestion whose words already
    cite its record in that passage (a twin) is left out, as `citation_create`
    refuses it; each draft is checked as `full_clean` would (its record and
    passage read above, its name free); the drafts are written with one INSERT
    and one history row each naming `by` and `reason`.
    """
    if not chosen:
        return []
    targets: dict[str, dict[int, Any]] = {}
    wanted: dict[str, set[int]] = defaultdict(set)
    for _passage, suggestion in chosen:
        wanted[suggestion.kind].add(suggestion.record_id)
    for kind, pks in wanted.items():
        targets[kind] = cited_model(kind)._default_manager.in_bulk(sorted(pks))
    passages = sorted({passage.pk for passage, _s in chosen})
    live = Citation.objects.filter(passage_id__in=passages).exclude(status=Status.REJECTED)
    twins = {
        (row["passage_id"], row["quote"], field, row[f"{field}_id"])
        for row in live.values("passage_id", "quote", *(f"{name}_id" for name in wanted))
        for field in wanted
        if row[f"{field}_id"] is not None
    }
    drafts: list[Citation] = []
    for passage, suggestion in chosen:
        target = targets[suggestion.kind].get(suggestion.record_id)
        key = (passage.pk, suggestion.quote, suggestion.kind, suggestion.record_id)
        if target is None or key in twins:
            continue  # gone, or cited meanwhile: a second card would count one piece of evidence twice
        twins.add(key)
        draft = Citation(
            passage=passage, quote=suggestion.quote, start=suggestion.start, end=suggestion.end,
            claim=MENTION_CLAIM, rank=Rank.NORMAL, status=Status.DRAFT, created_by=by, modified_by=by,
            **{suggestion.kind: target},
        )
        drafts.append(draft)
    _slugs(drafts)
    for draft in drafts:
        # What `full_clean` checks, without a query a draft: the related rows and the twins were read above, the
        # names chosen free; the quote is located in its passage (its offsets set), the constraints stay the backstop.
        draft.clean_fields(exclude=["passage", "created_by", "modified_by", *wanted])
        errors = draft.quote_and_target_errors()
        if errors:
            raise ValidationError(errors)
    now = timezone.now()
    made = Citation.objects.bulk_create(drafts)
    Citation.history.bulk_history_create(
        made, default_user=by, default_change_reason=reason, default_date=now
    )
    # What the citation's post_save does for fiction: the records it stands for are looked at again.
    using = router.db_for_write(Citation)
    for kind in wanted:
        fiction.refresh(cited_model(kind), {getattr(d, f"{kind}_id") for d in made if getattr(d, f"{kind}_id")}, using)
    return made


@transaction.atomic
def cite_all_mentions(*, source: Source, by: Any, shown: str | None = None) -> Batch:
    """Draft citations of every suggested mention of `source` whose name belongs to one record only.

    `shown` is the digest of the preview the curator confirmed
    (`archive.services.batches.Preview.digest`): if the suggestions changed
    since, nothing is made. The drafts are made in one write (`cite_many`) and
    remembered as one batch.
    """
    preview = batches.preview_mentions(source=source)
    if shown is not None and shown != preview.digest:
        raise ValidationError(
            _("The suggested mentions of %(source)s changed since the preview; nothing was cited. Read it again.")
            % {"source": source},
            code="stale",
        )
    created = cite_many(preview.chosen, by=by)
    record = batches.record_batch(source=source, citations=created, by=by) if created else None
    return Batch(created, len(preview.ambiguous), record)
