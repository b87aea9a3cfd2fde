"""Sources and the passages they are split into.

A Source keeps the full text of the imported file, so that the archive can
prove every passage is a slice of it: `text[start:end] == passage.text`.
Passages are made by the importer, never typed by hand.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from archive import dating
from archive.text.segment import sha256_text

from . import natural_keys
from .curation import Curated


class SourceKind(models.TextChoices):
    DIARY = "diary", _("diary")
    MEMOIR = "memoir", _("memoir")
    ORDER = "order", _("order")
    REPORT = "report", _("report")
    NEWSPAPER = "newspaper", _("newspaper")
    HISTORY = "history", _("history")
    REFERENCE = "reference", _("reference")
    NOVEL = "novel", _("novel")
    WEB_NOVEL = "web-novel", _("web novel")
    ALTERNATE_HISTORY = "alternate-history", _("alternate history")


PRIMARY_KINDS = (SourceKind.DIARY, SourceKind.MEMOIR, SourceKind.ORDER, SourceKind.REPORT, SourceKind.NEWSPAPER)
SECONDARY_KINDS = (SourceKind.HISTORY, SourceKind.REFERENCE)
FICTION_KINDS = (SourceKind.NOVEL, SourceKind.WEB_NOVEL, SourceKind.ALTERNATE_HISTORY)


class Language(models.TextChoices):
    ZH_HANS = "zh-Hans", _("Chinese (Simplified)")
    ZH_HANT = "zh-Hant", _("Chinese (Traditional)")
    EN = "en", _("English")
    JA = "ja", _("Japanese")


def validate_edtf(value: str) -> None:
    try:
        dating.bounds(value)
    except dating.BadDate as exc:
        raise ValidationError(str(exc), code="bad_edtf") from exc


class Source(Curated):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=300)
    author = models.CharField(_("author"), max_length=200, blank=True)
    kind = models.CharField(_("kind"), max_length=24, choices=SourceKind.choices)
    # Derived from the kind by the database itself, so it can never disagree.
    is_fiction = models.GeneratedField(
        expression=models.Case(
            models.When(kind__in=[k.value for k in FICTION_KINDS], then=models.Value(True)),
            default=models.Value(False),
        ),
        output_field=models.BooleanField(),
        db_persist=True,
        verbose_name=_("fiction"),
    )
    language = models.CharField(_("language"), max_length=16, choices=Language.choices)
    date = models.CharField(
        _("date (EDTF)"),
        max_length=64,
        blank=True,
        validators=[validate_edtf],
        help_text=_("Date of publication or writing, in EDTF."),
    )
    publisher = models.CharField(_("publisher"), max_length=200, blank=True)
    publisher_place = models.CharField(_("place of publication"), max_length=200, blank=True)
    container_title = models.CharField(_("container title"), max_length=300, blank=True)
    url = models.URLField(_("URL"), blank=True)
    description = models.TextField(_("description"), blank=True)
    text = models.TextField(
        _("full text"), blank=True, help_text=_("The imported file, decoded; passages are slices of it.")
    )
    length = models.PositiveIntegerField(_("length in characters"), default=0, editable=False)
    sha256 = models.CharField(_("SHA-256 of the file"), max_length=64, blank=True)
    file_name = models.CharField(_("file name"), max_length=255, blank=True)

    history = HistoricalRecords(excluded_fields=["text"])

    class Meta:
        permissions = [("review_source", "Can approve or reject source records")]
        verbose_name = _("source")
        verbose_name_plural = _("sources")
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(length=models.functions.Length("text")), name="source_length_matches_text"
            ),
        ]

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        # A change of kind changes what is fiction (`archive.fiction`).
        instance._loaded_kind = instance.__dict__.get("kind")
        return instance

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.length = len(self.text)
        super().save(*args, **kwargs)


class PassageRole(models.TextChoices):
    BODY = "body", _("body")
    QUOTATION = "quotation", _("quotation")
    BOILERPLATE = "boilerplate", _("boilerplate")


class PassageManager(models.Manager["Passage"]):
    def get_by_natural_key(self, source_slug: str, seq: int) -> Passage:
        return natural_keys.find(self, (source_slug, seq), lambda: self.get(source__slug=source_slug, seq=seq))


class Passage(models.Model):
    source = models.ForeignKey(Source, verbose_name=_("source"), on_delete=models.PROTECT, related_name="passages")
    seq = models.PositiveIntegerField(_("number"))
    text = models.TextField(_("text"))
    start = models.PositiveIntegerField(_("start"), help_text=_("Offset in the source's full text, in characters."))
    end = models.PositiveIntegerField(_("end"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    role = models.CharField(_("role"), max_length=16, choices=PassageRole.choices, default=PassageRole.BODY)
    quotes = models.ForeignKey(
        Source,
        verbose_name=_("quotes"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="quoted_in",
        help_text=_("The work this passage quotes, when it is a quotation."),
    )

    history = HistoricalRecords()
    objects = PassageManager()

    class Meta:
        verbose_name = _("passage")
        verbose_name_plural = _("passages")
        ordering = ["source", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["source", "seq"], name="passage_seq_unique_per_source"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="passage_seq_positive"),
            models.CheckConstraint(condition=Q(end__gt=models.F("start")), name="passage_end_after_start"),
            models.CheckConstraint(
                condition=Q(end=models.F("start") + models.functions.Length("text")),
                name="passage_length_matches_offsets",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source.slug} §{self.seq}"

    def natural_key(self) -> tuple[str, int]:
        return (self.source.slug, self.seq)

    natural_key.dependencies = ["archive.source"]  # type: ignore[attr-defined]  # Django reads this attribute of the method

    def clean(self) -> None:
        errors: dict[str, Any] = {}
        if self.source_id and self.source.text:
            if self.end > len(self.source.text):
                errors["end"] = _(
                    "The passage ends at %(end)s, after the end of its source (%(length)s characters)."
                ) % {
                    "end": self.end,
                    "length": len(self.source.text),
                }
            elif self.source.text[self.start : self.end] != self.text:
                errors["text"] = _("The text is not the slice %(start)s–%(end)s of its source.") % {
                    "start": self.start,
                    "end": self.end,
                }
        if self.sha256 and self.text and self.sha256 != sha256_text(self.text):
            errors["sha256"] = _("The SHA-256 does not match the text (%(actual)s).") % {
                "actual": sha256_text(self.text)
            }
        if self.role == PassageRole.QUOTATION and not self.quotes_id:
            errors["quotes"] = _("A quotation names the work it quotes.")
        if errors:
            raise ValidationError(errors)
