"""A batch: the drafts a curator made in one action, kept together until they are decided.

Citing every suggested mention of a source makes hundreds of citations at
once. The batch remembers which, who made them and from what source, so that
the review queue shows them as one row that opens to its items and approves
them together, and so that its author can withdraw the items nobody has
decided yet in one action (`archive.services.batches`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .citations import Citation
from .sources import Source


class BatchKind(models.TextChoices):
    MENTIONS = "mentions", _("suggested mentions")


class Batch(models.Model):
    kind = models.CharField(_("kind"), max_length=16, choices=BatchKind.choices, default=BatchKind.MENTIONS)
    source = models.ForeignKey(
        Source, verbose_name=_("source"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("made by"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("made at"), default=timezone.now)
    # How many items it was made with: the items withdrawn are gone from `citations`.
    size = models.PositiveIntegerField(_("items made"), default=0)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    citations = models.ManyToManyField(Citation, verbose_name=_("citations"), related_name="batches", blank=True)

    class Meta:
        verbose_name = _("batch")
        verbose_name_plural = _("batches")
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return _("batch %(number)s (%(kind)s)") % {"number": self.pk, "kind": self.get_kind_display()}
