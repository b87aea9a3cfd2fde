"""Batches of citations made from the suggested mentions: preview, make, submit, withdraw.

Citing every suggested mention of a source makes hundreds of drafts at once,
so it is done in three steps, as a patrol tool does a mass edit: the curator
reads a preview (how many, of which records, which names were left because
they belong to more than one record) and confirms it; the drafts are made
together as one `Batch`, remembered with its author and source; its author
may withdraw every item of it nobody has decided yet in one action. The
confirmation carries a digest of the preview, so what is made is what was
shown: a suggestion that changed meanwhile (a citation made, a name added)
refuses the batch and shows the preview again.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import fiction
from archive.models import Batch, BatchKind, Citation, Passage, Source, Status
from archive.reading import mentions
from archive.reading.mentions import Suggestion
from archive.services import bulk

WITHDRAW_REASON = "batch withdrawn by its author"


@dataclass
class Ambiguous:
    passage: Passage
    quote: str
    candidates: list[str]


@dataclass
class Preview:
    """What citing every suggested mention of a source would make, before anything is made."""

    source: Source
    chosen: list[tuple[Passage, Suggestion]] = field(default_factory=list)
    ambiguous: list[Ambiguous] = field(default_factory=list)

    @property
    def by_record(self) -> list[tuple[str, str, int]]:
        """(kind, record label, how many mentions), most mentioned first."""
        counted = Counter((s.kind, s.label) for _p, s in self.chosen)
        return [(kind, label, n) for (kind, label), n in sorted(counted.items(), key=lambda item: (-item[1], item[0]))]

    @property
    def digest(self) -> str:
        """What the confirmation posts back: the suggestions shown, in a few characters."""
        keys = sorted(f"{p.pk}:{s.key}" for p, s in self.chosen)
        return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:20]


def preview_mentions(*, source: Source) -> Preview:
    """The suggested mentions of `source` a batch would cite, and the names left because they are ambiguous."""
    passages = {p.pk: p for p in Passage.objects.filter(source=source).select_related("source")}
    preview = Preview(source)
    for passage_id, found in sorted(mentions.of_source(source.pk).items(), key=lambda item: passages[item[0]].seq):
        by_span: dict[tuple[int, int], list[Suggestion]] = {}
        for suggestion in found:
            by_span.setdefault((suggestion.start, suggestion.end), []).append(suggestion)
        for candidates in by_span.values():
            if len(candidates) > 1:
                preview.ambiguous.append(
                    Ambiguous(passages[passage_id], candidates[0].quote, sorted(c.label for c in candidates))
                )
            else:
                preview.chosen.append((passages[passage_id], candidates[0]))
    return preview


def record_batch(*, source: Source, citations: list[Citation], by: Any) -> Batch:
    batch = Batch.objects.create(kind=BatchKind.MENTIONS, source=source, created_by=by, size=len(citations))
    batch.citations.add(*citations)
    return batch


@dataclass
class Withdrawn:
    withdrawn: int
    kept: int


@transaction.atomic
def withdraw_batch(*, batch: Batch, by: Any) -> Withdrawn:
    """Delete the items of `batch` nobody has decided (drafts and items in review); decided ones stay.

    Only its author withdraws a batch. Each deleted item keeps a history row
    naming the author and why.
    """
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.created_by_id != by.pk:
        raise PermissionDenied(_("Only the curator who made %(batch)s may withdraw it.") % {"batch": batch})
    items = batch.citations.all()
    open_items = items.filter(status__in=(Status.DRAFT, Status.IN_REVIEW))
    pks = list(open_items.values_list("pk", flat=True))
    kept = items.exclude(pk__in=pks).count()
    if not pks:
        raise ValidationError(
            _("Every item of %(batch)s was decided already; nothing is left to withdraw.") % {"batch": batch}
        )
    started = timezone.now()
    Batch.citations.through.objects.filter(citation_id__in=pks).delete()
    with fiction.deferred():
        Citation.objects.filter(pk__in=pks).delete()
    # The deletion rows simple-history wrote name nobody: name the author and the reason.
    Citation.history.filter(id__in=pks, history_type="-", history_date__gte=started).update(
        history_user=by, history_change_reason=WITHDRAW_REASON
    )
    batch.withdrawn_at = timezone.now()
    batch.save(update_fields=["withdrawn_at"])
    return Withdrawn(len(pks), kept)


def submit_drafts_of_source(*, source: Source, by: Any) -> bulk.Outcome:
    """Send every draft citation `by` made in the passages of `source` to review, as one bulk call."""
    drafts = Citation.objects.filter(passage__source=source, created_by=by, status=Status.DRAFT)
    return bulk.submit_many(records=[(Citation, pk) for pk in drafts.values_list("pk", flat=True)], by=by)
