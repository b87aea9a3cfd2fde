"""Statements: the values a record states, each resting on its own citations.

A citation is evidence for a record as a whole; a statement says which fact
of the record the evidence supports, and what value it gives: the date of an
event with its bounds, a place of an event, a participation's role, a post's
title and dates, a person's birth and death, a place's coordinates. One field
may hold several values from several sources (Wikibase's statements): each
is ranked preferred, normal or deprecated, and the record shows the best
ranked value that the reader's fiction mode lets through. A value whose
citations all come from fiction is a fictional account: it never becomes
the value of a historical record in the default view.

The value is kept in the field's canonical form (`canonical` checks it):
EDTF for dates (with `earliest`/`latest` bounds that carry the time of day
the text gives), a place's slug, a role's choice, "lat,lon" for coordinates.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from simple_history.models import HistoricalRecords

from archive import dating

from .citations import Citation, Rank
from .curation import Curated
from .events import Event, Participation, ParticipationRole
from .people import Person
from .places import Location
from .units import Post

# The records a statement can be about; exactly one is set, as for citations.
STATEMENT_TARGETS = ("event", "participation", "post", "person", "location")


class StatementField(models.TextChoices):
    DATE = "date", _("date")
    LOCATION = "location", _("place")
    ROLE = "role", _("role")
    TITLE = "title", pgettext_lazy("a post held", "title")
    DATE_FROM = "date_from", _("from")
    DATE_TO = "date_to", _("to")
    BIRTH = "birth", _("birth")
    DEATH = "death", _("death")
    COORDINATES = "coordinates", _("coordinates")


# Which fields each kind of record states.
FIELDS_OF: dict[str, tuple[str, ...]] = {
    "event": (StatementField.DATE, StatementField.LOCATION),
    "participation": (StatementField.ROLE,),
    "post": (StatementField.TITLE, StatementField.DATE_FROM, StatementField.DATE_TO),
    "person": (StatementField.BIRTH, StatementField.DEATH),
    "location": (StatementField.COORDINATES,),
}
# Fields whose values add up rather than compete: an event happens at several places.
MULTI_VALUED = frozenset({StatementField.LOCATION})
DATE_FIELDS = frozenset(
    {StatementField.DATE, StatementField.DATE_FROM, StatementField.DATE_TO, StatementField.BIRTH, StatementField.DEATH}
)
# Only an event's date carries bounds; other dates are shown as EDTF alone.
BOUNDED_FIELDS = frozenset({StatementField.DATE})
RANK_ORDER: dict[str, int] = {Rank.PREFERRED: 0, Rank.NORMAL: 1, Rank.DEPRECATED: 2}


class Basis(models.TextChoices):
    """What an account rests on (Wikibase's "stated in" and "inferred from").

    Stated: one of its cited quotes says the value. Inferred: no quote says it;
    the account's reasoning says how it follows from its cited passages (the
    premises). Reference: no text of the collection gives it (a birth year,
    coordinates); the named reference does.
    """

    STATED = "stated", _("stated")
    INFERRED = "inferred", _("inferred")
    REFERENCE = "reference", _("reference")


def preference(statement: Statement) -> tuple[int, int, int, int, int]:
    """Sort key of the accounts of one field, the one to show first.

    Deprecated last; then what a source states (or a named reference gives)
    before what the archive infers, whatever their ranks, so that an inferred
    account is never preferred over a stated one; then rank, order, id.
    """
    return (
        statement.rank == Rank.DEPRECATED,
        statement.basis == Basis.INFERRED,
        RANK_ORDER.get(statement.rank, 9),
        statement.position,
        statement.pk or 0,
    )


def _exactly_one_target() -> Q:
    condition = Q()
    for chosen in STATEMENT_TARGETS:
        branch = Q(**{f"{chosen}__isnull": False})
        for other in STATEMENT_TARGETS:
            if other != chosen:
                branch &= Q(**{f"{other}__isnull": True})
        condition |= branch
    return condition


def _field_fits_target() -> Q:
    branches = (Q(**{f"{target}__isnull": False, "field__in": [str(f) for f in fields]})
                for target, fields in FIELDS_OF.items())
    return Q(*branches, _connector=Q.OR)


def parse_coordinates(value: str) -> tuple[Decimal, Decimal]:
    """`"lat,lon"` as two decimals in range; ValueError otherwise."""
    parts = [part.strip() for part in value.split(",")]
    if len(parts) != 2:
        raise ValueError(value)
    try:
        latitude, longitude = (Decimal(part) for part in parts)
    except InvalidOperation as exc:
        raise ValueError(value) from exc
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise ValueError(value)
    return latitude, longitude


def canonical(field: str, value: str) -> str:
    """`value` in the canonical form of `field`; ValidationError when it has none.

    A place's slug is checked against the places by the statement's `clean()`,
    not here, so that this stays a pure function.
    """
    value = value.strip()
    if not value:
        raise ValidationError({"value": _("A statement states a value.")})
    if field in DATE_FIELDS:
        try:
            dating.bounds(value)
        except dating.BadDate as exc:
            raise ValidationError({"value": str(exc)}) from exc
        return value
    if field == StatementField.ROLE:
        if value not in ParticipationRole.values:
            raise ValidationError({"value": _("“%(value)s” is not a role.") % {"value": value}})
        return value
    if field == StatementField.COORDINATES:
        try:
            latitude, longitude = parse_coordinates(value)
        except ValueError as exc:
            raise ValidationError(
                {"value": _("Coordinates are “latitude,longitude” in range, e.g. 32.0894,118.7536.")}
            ) from exc
        return f"{latitude.normalize():f},{longitude.normalize():f}"
    return value


class Statement(Curated):
    """One value of one field of one record, ranked, with the citations that give it."""

    slug = models.SlugField(_("slug"), max_length=200, unique=True)
    field = models.CharField(_("field"), max_length=16, choices=StatementField.choices)
    value = models.CharField(
        _("value"),
        max_length=200,
        help_text=_("Canonical form: EDTF for a date, a place's slug, a role, “lat,lon” for coordinates."),
    )
    as_written = models.CharField(
        _("as written"), max_length=200, blank=True, help_text=_("The words of the source: 12日傍晚5点")
    )
    earliest = models.DateTimeField(
        _("earliest"), null=True, blank=True, help_text=_("Of an event's date: narrowed to the time the text gives.")
    )
    latest = models.DateTimeField(_("latest"), null=True, blank=True)
    rank = models.CharField(_("rank"), max_length=16, choices=Rank.choices, default=Rank.NORMAL)
    note = models.TextField(_("note"), blank=True, help_text=_("Why this rank; what the other accounts say."))
    basis = models.CharField(
        _("basis"),
        max_length=16,
        choices=Basis.choices,
        default=Basis.STATED,
        help_text=_("Stated: a cited quote says the value. Inferred: it follows from the cited passages, "
                    "as the reasoning says. Reference: no text of the collection gives it; the reference does."),
    )
    reasoning = models.TextField(
        _("reasoning"),
        blank=True,
        help_text=_("Of an inferred account: how the value follows from its cited passages."),
    )
    reference = models.CharField(
        _("reference"),
        max_length=300,
        blank=True,
        help_text=_("Of a reference account: the work that gives the value (author, title, page)."),
    )
    position = models.PositiveSmallIntegerField(_("order"), default=0)

    event = models.ForeignKey(
        Event, verbose_name=_("event"), null=True, blank=True, on_delete=models.CASCADE, related_name="statements"
    )
    participation = models.ForeignKey(
        Participation,
        verbose_name=_("participation"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="statements",
    )
    post = models.ForeignKey(
        Post, verbose_name=_("post"), null=True, blank=True, on_delete=models.CASCADE, related_name="statements"
    )
    person = models.ForeignKey(
        Person, verbose_name=_("person"), null=True, blank=True, on_delete=models.CASCADE, related_name="statements"
    )
    location = models.ForeignKey(
        Location, verbose_name=_("location"), null=True, blank=True, on_delete=models.CASCADE, related_name="statements"
    )
    citations = models.ManyToManyField(
        Citation,
        verbose_name=_("citations"),
        blank=True,
        related_name="statements",
        help_text=_("Citations of the same record that give this value."),
    )

    history = HistoricalRecords(m2m_fields=[citations])

    class Meta:
        permissions = [("review_statement", "Can approve or reject statement records")]
        verbose_name = _("statement")
        verbose_name_plural = _("statements")
        ordering = ["field", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=_exactly_one_target(), name="statement_exactly_one_target"),
            models.CheckConstraint(condition=_field_fits_target(), name="statement_field_fits_target"),
            models.CheckConstraint(
                condition=Q(earliest__isnull=True, latest__isnull=True)
                | Q(earliest__isnull=False, latest__isnull=False, earliest__lte=models.F("latest")),
                name="statement_bounds_ordered",
            ),
            # An inference says how it was drawn; a reference value says where it comes from.
            models.CheckConstraint(
                condition=~Q(basis="inferred") | ~Q(reasoning=""), name="statement_inferred_has_reasoning"
            ),
            models.CheckConstraint(
                condition=~Q(basis="reference") | ~Q(reference=""), name="statement_reference_is_named"
            ),
            models.CheckConstraint(
                condition=Q(basis__in=["stated", "inferred", "reference"]), name="statement_basis_known"
            ),
        ]
        indexes = [
            models.Index(fields=["event", "field"]),
            models.Index(fields=["participation", "field"]),
            models.Index(fields=["post", "field"]),
            models.Index(fields=["person", "field"]),
            models.Index(fields=["location", "field"]),
        ]

    def __str__(self) -> str:
        return f"{self.target} · {self.get_field_display()} = {self.value} ({self.get_rank_display()})"

    @property
    def target_field(self) -> str | None:
        for name in STATEMENT_TARGETS:
            if getattr(self, f"{name}_id") is not None:
                return name
        return None

    @property
    def target(self) -> models.Model | None:
        name = self.target_field
        return getattr(self, name) if name else None

    def clean(self) -> None:
        errors: dict[str, Any] = {}
        targets = [name for name in STATEMENT_TARGETS if getattr(self, f"{name}_id") is not None]
        if len(targets) != 1:
            raise ValidationError(
                _("A statement is about exactly one record; it names %(count)s.") % {"count": len(targets)}
            )
        (target,) = targets
        if self.field not in FIELDS_OF[target]:
            errors["field"] = _("A %(target)s states none of “%(field)s”.") % {"target": target, "field": self.field}
        else:
            try:
                self.value = canonical(self.field, self.value or "")
            except ValidationError as exc:
                errors.update(exc.message_dict)
        place_unknown = self.field == StatementField.LOCATION and not Location.objects.filter(slug=self.value).exists()
        if not errors and place_unknown:
            errors["value"] = _("No place has the slug “%(value)s”.") % {"value": self.value}
        if not errors:
            errors.update(self._bounds_errors())
        if errors:
            raise ValidationError(errors)

    def _bounds_errors(self) -> dict[str, Any]:
        if self.field not in BOUNDED_FIELDS:
            if self.earliest or self.latest:
                return {"earliest": _("Only an event's date has bounds.")}
            return {}
        low, high = dating.bounds(self.value)
        if low is None or high is None:
            if self.earliest or self.latest:
                return {"earliest": _("A date with no year has no place on the real timeline.")}
            return {}
        if self.earliest is None and self.latest is None:
            self.earliest, self.latest = low, high
            return {}
        if self.earliest is None or self.latest is None:
            return {"latest": _("Give both bounds or neither.")}
        if self.earliest > self.latest:
            return {"latest": _("The earliest bound is after the latest.")}
        if not (low <= self.earliest and self.latest <= high):
            return {"earliest": _("The bounds must lie within the EDTF date %(date)s.") % {"date": self.value}}
        return {}
