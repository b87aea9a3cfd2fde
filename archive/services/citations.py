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

from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from archive.models import TARGET_FIELDS, Citation, ParticipationRole, Passage, Status
from archive.services import review
from archive.services.authorship import save_as

# What a citation says when the words only name its record.
MENTION_CLAIM = gettext_noop("named here")
# The kinds whose citation may leave the claim empty: the passage names the record, no more.
CLAIM_OPTIONAL = frozenset({"person", "unit", "location"})
# Claims offered per kind of record; X and Y stand for what the curator names.
CLAIM_TEMPLATES: dict[str, tuple[str, ...]] = {
    "person": (
        MENTION_CLAIM, gettext_noop("commands X"), gettext_noop("present at Y"),
        gettext_noop("gives the order to X"), gettext_noop("arrives at Y"),
    ),
    "unit": (
        MENTION_CLAIM, gettext_noop("commanded by X"), gettext_noop("present at Y"),
        gettext_noop("retreats to Y"), gettext_noop("crosses the river at Y"),
    ),
    "location": (MENTION_CLAIM, gettext_noop("X happens here"), gettext_noop("X arrives here")),
    "event": (gettext_noop("happens at Y"), gettext_noop("dated here"), gettext_noop("X takes part")),
    "post": (gettext_noop("X holds this post"), gettext_noop("X named by this title")),
    "participation": (gettext_noop("X takes part in Y"),),
}
# A participation's claim by its role.
ROLE_CLAIMS: dict[str, str] = {
    ParticipationRole.COMMANDER: gettext_noop("commands X"),
    ParticipationRole.SIGNATORY: gettext_noop("signs X"),
    ParticipationRole.PARTICIPANT: gettext_noop("present at Y"),
    ParticipationRole.KILLED: gettext_noop("killed at Y"),
    ParticipationRole.WOUNDED: gettext_noop("wounded at Y"),
    ParticipationRole.ESCAPED: gettext_noop("escapes from Y"),
    ParticipationRole.CAPTURED: gettext_noop("captured at Y"),
    ParticipationRole.ORGANISER: gettext_noop("organises X"),
    ParticipationRole.WITNESS: gettext_noop("witnesses X"),
    ParticipationRole.TARGET: gettext_noop("the target of X"),
}


def offered_claim(template: str) -> str:
    """A claim template as the curator reads it, in the active language."""
    return _(template)


@cache
def _templates_by_translation() -> dict[str, str]:
    """Every claim template in every language of the site, to the template it translates."""
    templates = {*(t for found in CLAIM_TEMPLATES.values() for t in found), *ROLE_CLAIMS.values()}
    found: dict[str, str] = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            found.update({_(template): template for template in templates})
    return found


def claim_for(target_type: str, claim: str) -> str:
    """The claim stored for a citation of `target_type`: `MENTION_CLAIM` for an empty one where allowed, or refused.

    A template chosen in a translation is stored as the template itself, so that
    "named here" read in Chinese is still a mention wherever mentions are told apart.
    """
    claim = (claim or "").strip()
    if claim:
        return _templates_by_translation().get(claim, claim)
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
