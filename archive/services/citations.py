"""Citations made in the source reader: a passage, the exact words in it, what they are evidence for.

A citation starts as a draft of its author, named by a free slug and checked
by the model's own rules (the quote is the passage's text at its offsets,
exactly one target) before it is stored; the reader may submit it at once.

Every citation states a claim. Where the words only name a person, unit or
place, the claim is that the passage names it: the curator may leave it
empty and it is stored as `MENTION_CLAIM`. An event, post or participation
is evidenced by what the passage says of it, which only the curator can
write (`claim_for`). The reader offers templates per kind and role
(`CLAIM_TEMPLATES`, `ROLE_CLAIMS`) so that most claims are a choice, not typing.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import TARGET_FIELDS, Citation, ParticipationRole, Passage, Status
from archive.services import review
from archive.services.authorship import save_as

# What a citation says when the words only name its record.
MENTION_CLAIM = "named here"
# The kinds whose citation may leave the claim empty: the passage names the record, no more.
CLAIM_OPTIONAL = frozenset({"person", "unit", "location"})
# Claims offered per kind of record; X and Y stand for what the curator names.
CLAIM_TEMPLATES: dict[str, tuple[str, ...]] = {
    "person": (MENTION_CLAIM, "commands X", "present at Y", "gives the order to X", "arrives at Y"),
    "unit": (MENTION_CLAIM, "commanded by X", "present at Y", "retreats to Y", "crosses the river at Y"),
    "location": (MENTION_CLAIM, "X happens here", "X arrives here"),
    "event": ("happens at Y", "dated here", "X takes part"),
    "post": ("X holds this post", "X named by this title"),
    "participation": ("X takes part in Y",),
}
# A participation's claim by its role.
ROLE_CLAIMS: dict[str, str] = {
    ParticipationRole.COMMANDER: "commands X",
    ParticipationRole.SIGNATORY: "signs X",
    ParticipationRole.PARTICIPANT: "present at Y",
    ParticipationRole.KILLED: "killed at Y",
    ParticipationRole.WOUNDED: "wounded at Y",
    ParticipationRole.ESCAPED: "escapes from Y",
    ParticipationRole.CAPTURED: "captured at Y",
    ParticipationRole.ORGANISER: "organises X",
    ParticipationRole.WITNESS: "witnesses X",
    ParticipationRole.TARGET: "the target of X",
}


def claim_for(target_type: str, claim: str) -> str:
    """The claim stored for a citation of `target_type`: `MENTION_CLAIM` for an empty one where allowed, or refused."""
    claim = (claim or "").strip()
    if claim:
        return claim
    if target_type in CLAIM_OPTIONAL:
        return MENTION_CLAIM
    raise ValidationError(
        {"claim": _("Say what the passage says of it: a citation of this kind of record needs a claim.")},
        code="claim_required",
    )


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
    claim = claim_for(target_type, claim)
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
