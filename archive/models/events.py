"""Events, when and where they happened, and who took part.

A time is kept three ways: as the source writes it (`date_text`), as EDTF
(`date`), and as sortable bounds (`earliest`/`latest`) that carry the time
of day the text gives (傍晚5点 is 17:00–17:59), which EDTF cannot hold.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from archive import dating

from .curation import Cited
from .people import Person
from .places import Location
from .sources import validate_edtf
from .units import Unit


class EventKind(models.TextChoices):
    ORDER = "order", _("order")
    MEETING = "meeting", _("meeting")
    BATTLE = "battle", _("battle")
    RETREAT = "retreat", _("retreat")
    CROSSING = "crossing", _("crossing")
    MOVEMENT = "movement", _("movement")
    DEATH = "death", _("death")
    BOMBING = "bombing", _("bombing")
    ESCAPE = "escape", _("escape")
    CAPTURE = "capture", _("capture")
    MASSACRE = "massacre", _("massacre")
    COMMUNICATION = "communication", _("communication")
    FALL = "fall", _("fall of a place")
    OTHER = "other", _("other")


class Event(Cited):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=300)
    description = models.TextField(_("description"), blank=True)
    kind = models.CharField(_("kind"), max_length=16, choices=EventKind.choices)
    date_text = models.CharField(
        _("date as written"), max_length=200, blank=True, help_text=_("As the source writes it: 12日傍晚5点")
    )
    date = models.CharField(
        _("date (EDTF)"),
        max_length=64,
        blank=True,
        validators=[validate_edtf],
        help_text=_("1937-12-12, 1937-12-13~, XXXX-01-22 …"),
    )
    earliest = models.DateTimeField(
        _("earliest"),
        null=True,
        blank=True,
        db_index=True,
        help_text=_("Derived from the date; narrow it to the time of day the text gives."),
    )
    latest = models.DateTimeField(_("latest"), null=True, blank=True)
    locations = models.ManyToManyField(Location, verbose_name=_("locations"), blank=True, related_name="events")
    parent = models.ForeignKey(
        "self", verbose_name=_("part of"), null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    # What the record says caused it (an escape that follows the retreat order):
    # the audit checks that an effect does not begin before its cause.
    follows = models.ForeignKey(
        "self",
        verbose_name=_("follows"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="consequences",
        help_text=_("The event this one follows from, e.g. the order it carries out."),
    )

    history = HistoricalRecords(m2m_fields=[locations], excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_event", "Can approve or reject event records")]
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = [models.F("earliest").asc(nulls_last=True), models.F("latest").asc(nulls_last=True), "slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(earliest__isnull=True) | Q(latest__isnull=True) | Q(earliest__lte=models.F("latest")),
                name="event_earliest_not_after_latest",
            ),
            models.CheckConstraint(
                condition=Q(earliest__isnull=True, latest__isnull=True)
                | Q(earliest__isnull=False, latest__isnull=False),
                name="event_bounds_both_or_neither",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        errors: dict[str, Any] = {}
        if self.date:
            try:
                low, high = dating.bounds(self.date)
            except dating.BadDate as exc:
                raise ValidationError({"date": str(exc)}) from exc
            if low is None or high is None:
                if self.earliest or self.latest:
                    errors["earliest"] = _("A date with no year has no place on the real timeline.")
            elif self.earliest is None and self.latest is None:
                self.earliest, self.latest = low, high
            elif self.earliest is None or self.latest is None:
                errors["latest"] = _("Give both bounds or neither.")
            elif not (low <= self.earliest and self.latest <= high):
                errors["earliest"] = _("The bounds must lie within the EDTF date %(date)s.") % {"date": self.date}
        elif (self.earliest is None) != (self.latest is None):
            errors["latest"] = _("Give both bounds or neither.")
        if self.earliest and self.latest and self.earliest > self.latest:
            errors["latest"] = _("The earliest bound is after the latest.")
        ancestor = self.parent
        while ancestor is not None:
            if ancestor.pk == self.pk:
                errors["parent"] = _("An event cannot be part of itself.")
                break
            ancestor = ancestor.parent
        if errors:
            raise ValidationError(errors)


class ParticipationRole(models.TextChoices):
    COMMANDER = "commander", _("commander")
    SIGNATORY = "signatory", _("signatory")
    PARTICIPANT = "participant", _("participant")
    ORGANISER = "organiser", _("organiser")
    WITNESS = "witness", _("witness")
    KILLED = "killed", _("killed")
    WOUNDED = "wounded", _("wounded")
    ESCAPED = "escaped", _("escaped")
    CAPTURED = "captured", _("captured")
    TARGET = "target", _("target")


class Participation(Cited):
    """A person or a unit taking part in an event, in a role."""

    slug = models.SlugField(_("slug"), max_length=150, unique=True)
    event = models.ForeignKey(Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="participations")
    person = models.ForeignKey(
        Person, verbose_name=_("person"), null=True, blank=True, on_delete=models.PROTECT, related_name="participations"
    )
    unit = models.ForeignKey(
        Unit, verbose_name=_("unit"), null=True, blank=True, on_delete=models.PROTECT, related_name="participations"
    )
    role = models.CharField(_("role"), max_length=16, choices=ParticipationRole.choices)
    position = models.PositiveIntegerField(
        _("order"), null=True, blank=True, help_text=_("Order among the event's participants, e.g. signing order.")
    )
    note = models.CharField(_("note"), max_length=300, blank=True, help_text=_("How: e.g. escaped by boat from 煤炭港"))

    history = HistoricalRecords(excluded_fields=["fictional"])

    class Meta:
        permissions = [("review_participation", "Can approve or reject participation records")]
        verbose_name = _("participation")
        verbose_name_plural = _("participations")
        ordering = ["event", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(person__isnull=False, unit__isnull=True) | Q(person__isnull=True, unit__isnull=False),
                name="participation_person_or_unit",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.person or self.unit} · {self.get_role_display()} · {self.event}"

    def clean(self) -> None:
        if (self.person_id is None) == (self.unit_id is None):
            raise ValidationError({"person": _("A participation names exactly one person or one unit.")})
