"""People and the forms of their names."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .curation import Cited, Side
from .sources import validate_edtf


class Script(models.TextChoices):
    HANS = "Hans", _("Simplified Chinese")
    HANT = "Hant", _("Traditional Chinese")
    LATN = "Latn", _("Latin")
    JPAN = "Jpan", _("Japanese")


class NameKind(models.TextChoices):
    PRIMARY = "primary", _("primary name")
    BIRTH = "birth", _("birth name")
    COURTESY = "courtesy", _("courtesy name")
    ALIAS = "alias", _("alias")
    VARIANT = "variant", _("variant spelling")
    TITLE = "title", _("title used as a name")
    NICKNAME = "nickname", _("nickname")
    ROMANISATION = "romanisation", _("romanisation")
    TRADITIONAL = "traditional", _("Traditional form")


class Person(Cited):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name = models.CharField(_("name"), max_length=200, db_index=True)
    side = models.CharField(_("side"), max_length=16, choices=Side.choices, default=Side.UNKNOWN)
    birth = models.CharField(_("birth (EDTF)"), max_length=64, blank=True, validators=[validate_edtf])
    death = models.CharField(_("death (EDTF)"), max_length=64, blank=True, validators=[validate_edtf])
    description = models.TextField(_("description"), blank=True)
    marked_historical = models.BooleanField(
        _("historical person"),
        default=False,
        help_text=_("A real person, even if only fiction cites them here."),
    )

    history = HistoricalRecords(excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_person", "Can approve or reject person records")]
        verbose_name = _("person")
        verbose_name_plural = _("persons")
        ordering = ["name", "slug"]

    def __str__(self) -> str:
        return self.name


class PersonName(models.Model):
    person = models.ForeignKey(Person, verbose_name=_("person"), on_delete=models.CASCADE, related_name="names")
    name = models.CharField(_("name"), max_length=200, db_index=True)
    kind = models.CharField(_("kind"), max_length=16, choices=NameKind.choices, default=NameKind.ALIAS)
    script = models.CharField(_("script"), max_length=8, choices=Script.choices, default=Script.HANS)
    note = models.CharField(_("note"), max_length=300, blank=True)

    history = HistoricalRecords()

    class Meta:
        verbose_name = _("name")
        verbose_name_plural = _("names")
        ordering = ["person", "id"]
        constraints = [models.UniqueConstraint(fields=["person", "name"], name="person_name_unique")]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str, str]:
        return (*self.person.natural_key(), self.name)

    natural_key.dependencies = ["archive.person"]  # type: ignore[attr-defined]  # Django reads this attribute of the method
