"""Citations made in the source reader: a passage, the exact words in it, what they are evidence for.

A citation starts as a draft of its author, named by a free slug and checked
by the model's own rules (the quote is the passage's text at its offsets,
exactly one target) before it is stored; the reader may submit it at once.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import TARGET_FIELDS, Citation, Passage, Status
from archive.services import review
from archive.services.authorship import save_as


class DuplicateCitation(ValidationError):
    """The same words of the same passage already cite the same record; `existing` is that citation."""

    def __init__(self, existing: Citation) -> None:
        super().__init__(
            _("These words of passage %(passage)s already cite this record (citation %(citation)s).")
            % {"passage": existing.passage, "citation": existing.slug},
            code="duplicate",
        )
        self.existing = existing


@transaction.atomic
def citation_create(
    *,
    passage: Passage,
    quote: str,
    start: int,
    end: int,
    target_type: str,
    target: models.Model,
    claim: str,
    rank: str,
    by: Any,
    submit: bool = False,
    reason: str = "cited in the source reader",
) -> Citation:
    """Create a draft citation by `by` (and submit it for review when asked).

    Refused with `DuplicateCitation` when the same words already cite the same
    record there: a second card would count one piece of evidence twice.
    """
    if target_type not in TARGET_FIELDS:
        raise ValidationError(_("Unknown record type “%(type)s”.") % {"type": target_type})
    existing = Citation(passage=passage, quote=quote, **{target_type: target}).twin()
    if existing is not None:
        raise DuplicateCitation(existing)
    citation = Citation(
        passage=passage,
        quote=quote,
        start=start,
        end=end,
        claim=claim,
        rank=rank,
        status=Status.DRAFT,
        created_by=by,
        modified_by=by,
        **{target_type: target},
    )
    # Named before validation, so full_clean() checks the slug like every other field.
    citation.slug = citation.free_slug()
    citation.full_clean()
    save_as(citation, by=by, reason=reason)
    if submit:
        review.submit(citation, by=by)
    return citation
