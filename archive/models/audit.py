"""Curators' notes that explain what the audit finds.

`python manage.py audit` reports what looks wrong in the archive. Some of it
is not wrong: a source contradicts itself and both readings are kept, or a
place named only by a novel is a real place. A curator explains such a
finding once, in a note stored with the data (and shipped in the fixtures),
and the audit then reports the finding as explained instead of as a problem.
The same note is the reason a record is marked historical when only fiction
cites it.

A note names its record by model and slug rather than by a foreign key, so
one table serves every kind of record and a note outlives a merge that
renames its record (the audit reports a note whose record is gone).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .curation import NaturalKeyBySlug


class NoteModel(models.TextChoices):
    PERSON = "person", _("person")
    UNIT = "unit", _("unit")
    POST = "post", _("post")
    LOCATION = "location", _("location")
    EVENT = "event", _("event")
    PARTICIPATION = "participation", _("participation")
    CITATION = "citation", _("citation")
    # A passage is named `<source slug>-<seq>`: history-nanjing-retreat-9.
    PASSAGE = "passage", _("passage")


class CuratorNoteManager(models.Manager["CuratorNote"]):
    def get_by_natural_key(self, slug: str) -> CuratorNote:
        return self.get(slug=slug)


class CuratorNote(NaturalKeyBySlug, models.Model):
    slug = models.SlugField(_("slug"), max_length=200, unique=True)
    model = models.CharField(_("model"), max_length=16, choices=NoteModel.choices)
    record = models.SlugField(_("record"), max_length=150, help_text=_("The slug of the record the note is about."))
    code = models.SlugField(
        _("finding"), max_length=64, help_text=_("The code of the audit finding it explains, e.g. marked-historical.")
    )
    note = models.TextField(_("note"))
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
    objects = CuratorNoteManager()

    class Meta:
        verbose_name = _("curator's note")
        verbose_name_plural = _("curator's notes")
        ordering = ["model", "record", "code"]
        constraints = [
            models.UniqueConstraint(fields=["model", "record", "code"], name="curator_note_one_per_finding"),
            models.CheckConstraint(condition=~models.Q(note=""), name="curator_note_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.record}: {self.code}"
