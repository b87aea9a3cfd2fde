"""Old slugs of records that were merged into another.

When two records of the same person, unit or place are merged, the duplicate
is deleted, but its slug may already be cited, bookmarked or linked from
outside. A SlugRedirect keeps `old_slug → new_slug` per model, so that the API
can answer the old address with a permanent redirect to the survivor.
Chains are flattened when a survivor is itself merged later, so one lookup
always gives the final record.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords


class RedirectModel(models.TextChoices):
    PERSON = "person", _("person")
    UNIT = "unit", _("unit")
    LOCATION = "location", _("location")


class SlugRedirectManager(models.Manager["SlugRedirect"]):
    def get_by_natural_key(self, model: str, old_slug: str) -> SlugRedirect:
        return self.get(model=model, old_slug=old_slug)

    def resolve(self, model: str, slug: str) -> str | None:
        """The slug that `slug` of `model` now lives under, or None if it never moved."""
        return self.filter(model=model, old_slug=slug).values_list("new_slug", flat=True).first()


class SlugRedirect(models.Model):
    model = models.CharField(
        _("model"), max_length=32, choices=RedirectModel.choices, help_text=_("The model name, e.g. person.")
    )
    old_slug = models.SlugField(_("old slug"), max_length=150)
    new_slug = models.SlugField(_("new slug"), max_length=150, help_text=_("The slug of the surviving record."))
    note = models.CharField(_("note"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    history = HistoricalRecords()
    objects = SlugRedirectManager()

    class Meta:
        verbose_name = _("slug redirect")
        verbose_name_plural = _("slug redirects")
        ordering = ["model", "old_slug"]
        constraints = [
            models.UniqueConstraint(fields=["model", "old_slug"], name="slug_redirect_unique_per_model"),
            models.CheckConstraint(condition=~models.Q(old_slug=models.F("new_slug")), name="slug_redirect_moves"),
        ]

    def __str__(self) -> str:
        return f"{self.model}: {self.old_slug} → {self.new_slug}"

    def natural_key(self) -> tuple[str, str]:
        return (self.model, self.old_slug)
