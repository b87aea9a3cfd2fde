"""Military units, their hierarchy, and the posts people held in them."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from simple_history.models import HistoricalRecords

from .curation import Cited, Side
from .people import Person, Script
from .sources import validate_edtf


class Echelon(models.TextChoices):
    WAR_ZONE = "war_zone", _("war zone")
    GARRISON = "garrison", _("garrison command")
    ARMY_GROUP = "army_group", _("army group")
    ARMY = "army", _("army")
    CORPS = "corps", _("corps")
    DIVISION = "division", _("division")
    BRIGADE = "brigade", _("brigade")
    REGIMENT = "regiment", _("regiment")
    BATTALION = "battalion", _("battalion")
    COMPANY = "company", _("company")
    DETACHMENT = "detachment", _("detachment")
    FLEET = "fleet", _("fleet")
    SHIP = "ship", _("ship")
    HEADQUARTERS = "headquarters", _("headquarters")
    OTHER = "other", _("other")


class Unit(Cited):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name = models.CharField(_("name"), max_length=200, db_index=True)
    echelon = models.CharField(_("echelon"), max_length=16, choices=Echelon.choices)
    side = models.CharField(_("side"), max_length=16, choices=Side.choices, default=Side.UNKNOWN)
    parent = models.ForeignKey(
        "self", verbose_name=_("part of"), null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    description = models.TextField(_("description"), blank=True)
    marked_historical = models.BooleanField(_("historical unit"), default=False)

    history = HistoricalRecords(excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_unit", "Can approve or reject unit records")]
        verbose_name = _("unit")
        verbose_name_plural = _("units")
        ordering = ["name", "slug"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        ancestor = self.parent
        while ancestor is not None:
            if ancestor.pk == self.pk:
                raise ValidationError({"parent": _("A unit cannot be part of itself.")})
            ancestor = ancestor.parent


class UnitAlias(models.Model):
    unit = models.ForeignKey(Unit, verbose_name=_("unit"), on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(_("name"), max_length=200, db_index=True)
    script = models.CharField(_("script"), max_length=8, choices=Script.choices, default=Script.HANS)

    history = HistoricalRecords()

    class Meta:
        verbose_name = _("unit alias")
        verbose_name_plural = _("unit aliases")
        constraints = [models.UniqueConstraint(fields=["unit", "name"], name="unit_alias_unique")]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str, str]:
        return (*self.unit.natural_key(), self.name)

    natural_key.dependencies = ["archive.unit"]  # type: ignore[attr-defined]  # Django reads this attribute of the method


class Post(Cited):
    """A person's post in a unit: commander, chief of staff ..., acting or concurrent."""

    slug = models.SlugField(_("slug"), max_length=150, unique=True)
    person = models.ForeignKey(Person, verbose_name=_("person"), on_delete=models.PROTECT, related_name="posts")
    unit = models.ForeignKey(Unit, verbose_name=_("unit"), on_delete=models.PROTECT, related_name="posts")
    title = models.CharField(
        pgettext_lazy("a post held", "title"),
        max_length=100,
        help_text=_("As the source writes it: 军长, 师长, 参谋长 …"),
    )
    date_from = models.CharField(_("from (EDTF)"), max_length=64, blank=True, validators=[validate_edtf])
    date_to = models.CharField(_("to (EDTF)"), max_length=64, blank=True, validators=[validate_edtf])
    acting = models.BooleanField(_("acting"), default=False)
    concurrent = models.BooleanField(_("concurrent (兼任)"), default=False)
    note = models.TextField(_("note"), blank=True)

    history = HistoricalRecords(excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_post", "Can approve or reject post records")]
        verbose_name = _("post")
        verbose_name_plural = _("posts")
        ordering = ["unit", "title", "slug"]

    def __str__(self) -> str:
        return f"{self.person} · {self.unit} {self.title}"

    def clean(self) -> None:
        from archive import dating

        errors: dict[str, Any] = {}
        if self.date_from and self.date_to:
            try:
                start, _end = dating.bounds(self.date_from)
                _start, end = dating.bounds(self.date_to)
            except dating.BadDate:
                return
            if start and end and start > end:
                errors["date_to"] = _("The post ends before it begins.")
        if errors:
            raise ValidationError(errors)
