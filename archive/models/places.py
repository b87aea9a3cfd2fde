"""Places, their aliases and hierarchy, with coordinates where known."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .curation import Cited


class LocationKind(models.TextChoices):
    COUNTRY = "country", _("country")
    PROVINCE = "province", _("province")
    CITY = "city", _("city")
    COUNTY = "county", _("county")
    TOWN = "town", _("town")
    DISTRICT = "district", _("district")
    VILLAGE = "village", _("village")
    GATE = "gate", _("gate")
    WALL = "wall", _("wall")
    HILL = "hill", _("hill")
    PIER = "pier", _("pier")
    RIVER = "river", _("river")
    ISLAND = "island", _("island")
    ROAD = "road", _("road")
    BUILDING = "building", _("building")
    FORT = "fort", _("fort")
    OTHER = "other", _("other")


class Location(Cited):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name = models.CharField(_("name"), max_length=200, db_index=True)
    kind = models.CharField(_("kind"), max_length=16, choices=LocationKind.choices)
    parent = models.ForeignKey(
        "self", verbose_name=_("within"), null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    latitude = models.DecimalField(_("latitude"), max_digits=9, decimal_places=6, null=True, blank=True)
    longitude = models.DecimalField(_("longitude"), max_digits=9, decimal_places=6, null=True, blank=True)
    coordinate_precision = models.CharField(
        _("precision of the coordinates"),
        max_length=200,
        blank=True,
        help_text=_("How exact the point is, e.g. 'gate, within 50 m' or 'city centre'."),
    )
    description = models.TextField(_("description"), blank=True)
    marked_historical = models.BooleanField(_("historical place"), default=False)

    history = HistoricalRecords(excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_location", "Can approve or reject location records")]
        verbose_name = _("location")
        verbose_name_plural = _("locations")
        ordering = ["name", "slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(latitude__isnull=True, longitude__isnull=True)
                | Q(latitude__isnull=False, longitude__isnull=False),
                name="location_coordinates_both_or_neither",
            ),
            models.CheckConstraint(
                condition=Q(latitude__isnull=True) | Q(latitude__gte=-90, latitude__lte=90),
                name="location_latitude_range",
            ),
            models.CheckConstraint(
                condition=Q(longitude__isnull=True) | Q(longitude__gte=-180, longitude__lte=180),
                name="location_longitude_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class LocationAlias(models.Model):
    location = models.ForeignKey(Location, verbose_name=_("location"), on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(_("name"), max_length=200, db_index=True)
    language = models.CharField(
        _("language"),
        max_length=16,
        default="zh-Hans",
        help_text=_("BCP-47 tag: zh-Hans, zh-Hant, en, zh-Latn-pinyin …"),
    )
    note = models.CharField(_("note"), max_length=300, blank=True)

    history = HistoricalRecords()

    class Meta:
        verbose_name = _("location alias")
        verbose_name_plural = _("location aliases")
        constraints = [models.UniqueConstraint(fields=["location", "name"], name="location_alias_unique")]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str, str]:
        return (*self.location.natural_key(), self.name)

    natural_key.dependencies = ["archive.location"]  # type: ignore[attr-defined]  # Django reads this attribute of the method
