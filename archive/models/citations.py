"""Citations: the exact words of a passage that are evidence for a record.

A citation points at one passage, holds the exact quote with its offsets in
that passage, and is evidence for exactly one record (a CHECK constraint).
The quote is always the passage's own characters: `passage.text[start:end]`,
enforced by `clean()` and by a database trigger.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from archive.text import anchor
from archive.text.normalize import search_key

from .curation import Cited, Curated, Status
from .events import Event, Participation
from .people import Person
from .places import Location
from .sources import Passage
from .units import Post, Unit

# The records a citation can be evidence for; exactly one is set.
TARGET_FIELDS = ("person", "unit", "location", "event", "post", "participation")


class Rank(models.TextChoices):
    PREFERRED = "preferred", _("preferred")
    NORMAL = "normal", _("normal")
    DEPRECATED = "deprecated", _("deprecated")


def fold_quote_and_claim(quote: str, claim: str) -> str:
    """What the admin's citation search reads: the folded quote and claim, a newline between.

    A folded query never holds a newline (whitespace is collapsed to spaces),
    so a match never straddles the two.
    """
    return f"{search_key(quote)}\n{search_key(claim)}"


class FoldedQuoteAndClaim(models.TextField):
    """`fold_quote_and_claim` of the row, recomputed whenever Django writes the row.

    `pre_save` runs for `save()` and for `bulk_create` alike. A write that
    changes the quote or claim without this column (`update()`,
    `save(update_fields=...)`, `bulk_update`) has it set to NULL by a trigger,
    and the search folds NULL rows in Python: a stale key is never trusted.
    """

    def pre_save(self, model_instance: models.Model, add: bool) -> str:
        value = fold_quote_and_claim(model_instance.quote, model_instance.claim)  # type: ignore[attr-defined]  # the field belongs to Citation only
        setattr(model_instance, self.attname, value)
        return value


def _exactly_one_target() -> Q:
    condition = Q()
    for chosen in TARGET_FIELDS:
        branch = Q(**{f"{chosen}__isnull": False})
        for other in TARGET_FIELDS:
            if other != chosen:
                branch &= Q(**{f"{other}__isnull": True})
        condition |= branch
    return condition


class Citation(Curated):
    slug = models.SlugField(_("slug"), max_length=150, unique=True, blank=True)
    passage = models.ForeignKey(Passage, verbose_name=_("passage"), on_delete=models.PROTECT, related_name="citations")
    quote = models.TextField(_("quote"), help_text=_("The exact words of the passage."))
    start = models.PositiveIntegerField(_("start"), help_text=_("Offset of the quote in the passage, in characters."))
    end = models.PositiveIntegerField(_("end"))
    claim = models.CharField(
        _("claim"), max_length=500, help_text=_("What the passage says about the record, in a few words.")
    )
    rank = models.CharField(_("rank"), max_length=16, choices=Rank.choices, default=Rank.NORMAL)
    # For the admin's search box only; NULL until a write folds it (see FoldedQuoteAndClaim).
    folded = FoldedQuoteAndClaim(null=True, blank=True, editable=False)

    person = models.ForeignKey(
        Person, verbose_name=_("person"), null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    unit = models.ForeignKey(
        Unit, verbose_name=_("unit"), null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    location = models.ForeignKey(
        Location, verbose_name=_("location"), null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    event = models.ForeignKey(
        Event, verbose_name=_("event"), null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    post = models.ForeignKey(
        Post, verbose_name=_("post"), null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    participation = models.ForeignKey(
        Participation,
        verbose_name=_("participation"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="citations",
    )

    history = HistoricalRecords(excluded_fields=["folded"])

    class Meta:
        permissions = [("review_citation", "Can approve or reject citation records")]
        verbose_name = _("citation")
        verbose_name_plural = _("citations")
        ordering = ["passage", "start", "id"]
        constraints = [
            models.CheckConstraint(condition=_exactly_one_target(), name="citation_exactly_one_target"),
            models.CheckConstraint(condition=Q(end__gt=models.F("start")), name="citation_end_after_start"),
            models.CheckConstraint(
                condition=Q(end=models.F("start") + Length("quote")), name="citation_offsets_match_quote"
            ),
        ]
        indexes = [
            models.Index(fields=["passage", "status"]),
            # The few rows the search must still fold in Python.
            models.Index(fields=["id"], condition=Q(folded__isnull=True), name="citation_unfolded"),
        ]

    def __str__(self) -> str:
        return f"“{self.quote[:40]}” ({self.passage})"

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        # The record it was evidence for when read; `archive.fiction` refreshes both.
        instance._loaded_targets = tuple(
            (name, instance.__dict__.get(f"{name}_id")) for name in TARGET_FIELDS
        )
        return instance

    @property
    def target(self) -> Cited | None:
        for name in TARGET_FIELDS:
            value = getattr(self, name)
            if value is not None:
                return value
        return None

    @property
    def target_field(self) -> str | None:
        for name in TARGET_FIELDS:
            if getattr(self, f"{name}_id") is not None:
                return name
        return None

    def clean(self) -> None:
        errors = self.quote_and_target_errors()
        if not errors and self.status != Status.REJECTED:
            twin = self.twin()
            if twin is not None:
                errors["__all__"] = _(
                    "These words of passage %(passage)s already cite this record (citation %(citation)s)."
                ) % {"passage": self.passage, "citation": twin.slug}
        if errors:
            raise ValidationError(errors)

    def quote_and_target_errors(self) -> dict[str, Any]:
        """What `clean` finds wrong short of a twin: the record named, the quote found in the passage.

        The quote is set to the passage's own characters where it was matched after folding.
        """
        errors: dict[str, Any] = {}
        targets = [name for name in TARGET_FIELDS if getattr(self, f"{name}_id") is not None]
        if len(targets) != 1:
            errors["__all__"] = _("A citation is evidence for exactly one record; it names %(count)s.") % {
                "count": len(targets)
            }
        if self.passage_id and self.quote:
            try:
                found = anchor.locate(self.passage.text, self.quote, hint_start=self.start)
            except anchor.QuoteNotFound as exc:
                errors["quote"] = _(
                    "The quote is not in passage %(passage)s. Closest match: “%(closest)s” at %(start)s–%(end)s."
                ) % {"passage": self.passage, "closest": exc.closest, "start": exc.closest_start,
                     "end": exc.closest_end}
            except anchor.AmbiguousQuote:
                found = anchor.locate(self.passage.text, self.quote)
                self.quote, self.start, self.end = found.exact, found.start, found.end
            else:
                count = self.passage.text.count(found.exact)
                if self.start is None and count > 1:
                    # Without a start, which of the occurrences is meant is a guess.
                    errors["quote"] = _(
                        "“%(quote)s” occurs %(count)s times in passage %(passage)s; give its start."
                    ) % {"quote": self.quote, "count": count, "passage": self.passage}
                # Keep the passage's own characters, even when matched after folding.
                self.quote, self.start, self.end = found.exact, found.start, found.end
        return errors

    def twin(self) -> Citation | None:
        """Another live citation of the same words of this passage for the same record: evidence counted twice."""
        target = self.target_field
        if not self.passage_id or not self.quote or target is None:
            return None
        return (
            Citation.objects.filter(
                passage_id=self.passage_id, quote=self.quote, **{f"{target}_id": getattr(self, f"{target}_id")}
            )
            .exclude(status=Status.REJECTED)
            .exclude(pk=self.pk)
            .order_by("pk")
            .first()
        )

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.slug and self.passage_id:
            self.slug = self.free_slug()
        super().save(*args, **kwargs)

    SLUG_ATTEMPTS = 100

    def slug_candidate(self, attempt: int) -> str:
        """The name `free_slug` tries at `attempt` (from 0): `<source>-<seq>-<digest>`."""
        target = self.target_field
        base = f"{self.passage_id}:{self.start}:{self.end}:{target}:{getattr(self, f'{target}_id', None)}"
        digest = hashlib.sha256(f"{base}:{attempt}".encode()).hexdigest()[:8]
        return f"{self.passage.source.slug}-{self.passage.seq}-{digest}"

    def free_slug(self) -> str:
        """`<source>-<seq>-<digest>`, not yet taken; the same words may be evidence for several records."""
        for attempt in range(self.SLUG_ATTEMPTS):
            slug = self.slug_candidate(attempt)
            if not Citation.objects.filter(slug=slug).exists():
                return slug
        raise ValidationError(_("Could not name the citation; try again."))
