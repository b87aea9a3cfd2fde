"""Releases: numbered, dated, immutable snapshots of everything the archive publishes.

A release is made once (`archive.importing.releases`) and never changed: the
database refuses an UPDATE or DELETE of a release or of one of its files
(`archive.db.release_triggers`), whoever asks. Each file carries its SHA-256,
so a reader can check a download against the checksum the release states.

``published`` records which version of each published record the release
holds (``{"archive.person": {"<id>": <version>}}``), so that the record as
released is found again in its history (`archive.reading.as_of`).
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Release(models.Model):
    number = models.PositiveIntegerField(_("number"), unique=True)
    made_at = models.DateTimeField(_("made at"))
    made_by = models.CharField(_("made by"), max_length=150, blank=True)
    note = models.TextField(_("note"), blank=True)
    # What changed since the release before: a list of {"change", "record", "label", "reason", "at"}.
    changelog = models.JSONField(_("changelog"), default=list)
    published = models.JSONField(_("published versions"), default=dict)
    contributors = models.JSONField(_("contributors"), default=list)

    class Meta:
        verbose_name = _("release")
        verbose_name_plural = _("releases")
        ordering = ("-number",)
        constraints = [models.CheckConstraint(condition=models.Q(number__gte=1), name="release_number_positive")]

    def __str__(self) -> str:
        return f"{self.number} ({self.made_at:%Y-%m-%d})"


class ReleaseFile(models.Model):
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="files")
    name = models.CharField(_("name"), max_length=200)
    media_type = models.CharField(_("media type"), max_length=100)
    content = models.BinaryField(_("content"))
    size = models.PositiveBigIntegerField(_("size"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)

    class Meta:
        verbose_name = _("release file")
        verbose_name_plural = _("release files")
        ordering = ("release", "name")
        constraints = [models.UniqueConstraint(fields=["release", "name"], name="release_file_unique_name")]

    def __str__(self) -> str:
        return self.name
