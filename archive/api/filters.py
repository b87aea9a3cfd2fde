"""Query filters of the API, built with django-filter.

django-filter validates each parameter with a form field, so a bad value
becomes a 400 keyed by the parameter's name instead of a 500 or a silently
empty page. A slug filter only knows approved records: an unknown slug and
the slug of a draft answer alike, so a filter cannot be used to probe for
records that are not yet public.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import TYPE_CHECKING, Any

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils import timezone
from django_filters.rest_framework import DjangoFilterBackend
from django_filters.utils import translate_validation

from archive import selectors
from archive.dating import NANJING
from archive.models import (
    Citation,
    Echelon,
    Event,
    EventKind,
    Language,
    Location,
    LocationKind,
    Participation,
    Passage,
    PassageRole,
    Person,
    Rank,
    Side,
    Source,
    SourceKind,
    Unit,
)
from archive.selectors import FictionMode

FICTION_HELP = (
    "exclude (default): only records that are not fiction, and no citation of fiction in nested data; "
    "include: everything approved; only: fictional records alone."
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class Moment(forms.Field):
    """An ISO date or datetime, as the span of time it names.

    `1937-12-12` is the whole day in Nanjing time; `1937-12-12T17:00` is that
    instant (a naive time is Nanjing local time).
    """

    default_error_messages = {
        "invalid": "“%(value)s” is not an ISO date or datetime (for example 1937-12-12 or 1937-12-12T17:00).",
        "precision": "“%(value)s” is finer than a second; times are compared to the second at most.",
        "range": "“%(value)s” is beyond the calendar the archive compares (years 1 to 9999 in UTC).",
    }

    def to_python(self, value: Any) -> tuple[dt.datetime, dt.datetime] | None:
        if value in self.empty_values:
            return None
        text = str(value).strip()
        try:
            if len(text) == 10:
                day = dt.date.fromisoformat(text)
                message = self.error_messages["range"]
                return (_comparable(dt.datetime.combine(day, dt.time.min, NANJING), text, message),
                        _comparable(dt.datetime.combine(day, dt.time.max, NANJING), text, message))
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            raise forms.ValidationError(
                self.error_messages["invalid"], code="invalid", params={"value": text}
            ) from None
        if moment.microsecond:
            # Refused rather than kept: every microsecond would be another question to answer and to cache.
            raise forms.ValidationError(self.error_messages["precision"], code="precision", params={"value": text})
        if timezone.is_naive(moment):
            moment = moment.replace(tzinfo=NANJING)
        moment = _comparable(moment, text, self.error_messages["range"])
        return moment, moment


def _comparable(moment: dt.datetime, text: str, message: StrOrPromise) -> dt.datetime:
    """The instant in UTC, as the database compares it; at the ends of the calendar there is none."""
    try:
        return moment.astimezone(dt.UTC)
    except OverflowError:
        raise forms.ValidationError(message, code="range", params={"value": text}) from None


class MomentFilter(django_filters.Filter):
    field_class = Moment


class CheckedFilterBackend(DjangoFilterBackend):
    """django-filter's backend, reusing the filters the view checked before its cache lookup.

    The view validates its filters first (`ArchiveViewMixin.initial`), to key the
    response cache on their parsed values; filtering the queryset then reuses
    that checked filter set instead of validating, and querying slugs, again.
    """

    def filter_queryset(self, request: Any, queryset: QuerySet, view: Any) -> QuerySet:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None and not filters_given(request, filterset_class):
            return queryset  # what a filter set with no values answers, without building its form
        return super().filter_queryset(request, queryset, view)

    def get_filterset(self, request: Any, queryset: QuerySet, view: Any) -> django_filters.FilterSet | None:
        checked = getattr(view, "checked_filterset", None)
        filterset_class = self.get_filterset_class(view, queryset)
        if checked is not None and filterset_class is not None and isinstance(checked, filterset_class):
            checked.queryset = queryset
            return checked
        return super().get_filterset(request, queryset, view)


def filters_given(request: Any, filterset_class: type[django_filters.FilterSet]) -> bool:
    """Whether the request names any of the filters, if only with an empty value.

    Most lists are asked for without a filter. A filter set then filters
    nothing and its form finds nothing wrong, but building them deep-copies
    every filter and form field, which cost more than reading the page.
    """
    return any(name in request.query_params for name in filterset_class.base_filters)


def check_filters(*, request: Any, view: Any) -> django_filters.FilterSet | None:
    """The view's filter set bound to the request, validated: a bad value is a 400 naming its parameter.

    None when the view has no filters, or the request gives none of them.
    """
    backend = CheckedFilterBackend()
    filterset_class = backend.get_filterset_class(view)
    if filterset_class is None or not filters_given(request, filterset_class):
        return None
    given = frozenset(name for name in filterset_class.base_filters if name in request.query_params)
    filterset = _narrowed(filterset_class, given)(
        data=request.query_params, queryset=filterset_class._meta.model.objects.none(), request=request
    )
    if not filterset.is_valid():
        raise translate_validation(filterset.errors)
    return filterset


@functools.cache
def _narrowed(filterset_class: type[django_filters.FilterSet], names: frozenset[str]) -> type[django_filters.FilterSet]:
    """`filterset_class` with only the filters `names`: those a request gives.

    A filter set deep-copies every filter it has, with the querysets of its
    slug filters, each time it is made: for the events' nine filters, more
    than the page's statements cost. A filter the request does not give
    filters nothing and finds nothing wrong, so leaving it out changes no
    answer. One class per set of names, at most one per subset of a filter
    set's filters.
    """
    narrowed: type[django_filters.FilterSet] = type(
        filterset_class.__name__, (filterset_class,), {"__module__": filterset_class.__module__}
    )
    narrowed.base_filters = {name: filterset_class.base_filters[name] for name in names}
    return narrowed


def _slug_filter(queryset: QuerySet, label: str, method: str) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(
        queryset=queryset,
        to_field_name="slug",
        method=method,
        label=label,
        error_messages={"invalid_choice": "No approved record has the slug “%(value)s”."},
    )


class ArchiveFilterSet(django_filters.FilterSet):
    """Every list takes `fiction`; the selector applies it, so the filter only validates and documents it."""

    fiction = django_filters.ChoiceFilter(
        choices=[(mode.value, mode.value) for mode in FictionMode],
        method="_keep",
        label=FICTION_HELP,
        empty_label=None,
    )

    def _keep(self, queryset: QuerySet, name: str, value: Any) -> QuerySet:
        return queryset


class SourceFilter(ArchiveFilterSet):
    kind = django_filters.ChoiceFilter(choices=SourceKind.choices)
    language = django_filters.ChoiceFilter(choices=Language.choices)

    class Meta:
        model = Source
        fields = ["fiction", "kind", "language"]


class PassageFilter(ArchiveFilterSet):
    role = django_filters.ChoiceFilter(choices=PassageRole.choices)

    class Meta:
        model = Passage
        fields = ["fiction", "role"]


class PersonFilter(ArchiveFilterSet):
    side = django_filters.ChoiceFilter(choices=Side.choices)

    class Meta:
        model = Person
        fields = ["fiction", "side"]


class UnitFilter(ArchiveFilterSet):
    echelon = django_filters.ChoiceFilter(choices=Echelon.choices)
    side = django_filters.ChoiceFilter(choices=Side.choices)

    class Meta:
        model = Unit
        fields = ["fiction", "echelon", "side"]


class LocationFilter(ArchiveFilterSet):
    kind = django_filters.ChoiceFilter(choices=LocationKind.choices)

    class Meta:
        model = Location
        fields = ["fiction", "kind"]


class CitationFilter(ArchiveFilterSet):
    source = _slug_filter(Source.objects.approved(), "Only citations of passages of this source (a slug).",
                          "filter_source")
    rank = django_filters.ChoiceFilter(choices=Rank.choices)

    class Meta:
        model = Citation
        fields = ["fiction", "source", "rank"]

    def filter_source(self, queryset: QuerySet, name: str, value: Source) -> QuerySet:
        return queryset.filter(passage__source=value)


class EventFilter(ArchiveFilterSet):
    after = MomentFilter(
        method="filter_after",
        label="Events that end at or after this ISO date or datetime (overlapping bounds); undated events drop out.",
    )
    before = MomentFilter(
        method="filter_before",
        label="Events that begin at or before this ISO date or datetime (a date includes the whole day).",
    )
    person = _slug_filter(Person.objects.approved(), "Events a person took part in (a slug).", "filter_person")
    unit = _slug_filter(Unit.objects.approved(), "Events a unit took part in (a slug).", "filter_unit")
    location = _slug_filter(
        Location.objects.approved(), "Events at a place or at any place inside it (a slug).", "filter_location"
    )
    source = _slug_filter(
        Source.objects.approved(), "Events a source speaks of, directly or through a participation (a slug).",
        "filter_source",
    )
    kind = django_filters.ChoiceFilter(choices=EventKind.choices)

    class Meta:
        model = Event
        fields = ["fiction", "after", "before", "person", "unit", "location", "kind", "source"]

    def filter_after(self, queryset: QuerySet, name: str, value: tuple[dt.datetime, dt.datetime]) -> QuerySet:
        return queryset.filter(latest__gte=value[0])

    def filter_before(self, queryset: QuerySet, name: str, value: tuple[dt.datetime, dt.datetime]) -> QuerySet:
        return queryset.filter(earliest__lte=value[1])

    def _took_part(self, queryset: QuerySet, **who: Any) -> QuerySet:
        taking_part = Participation.objects.filter(selectors.visible_participation_q(), **who)
        return queryset.filter(pk__in=taking_part.values("event_id"))

    def filter_person(self, queryset: QuerySet, name: str, value: Person) -> QuerySet:
        return self._took_part(queryset, person=value)

    def filter_unit(self, queryset: QuerySet, name: str, value: Unit) -> QuerySet:
        return self._took_part(queryset, unit=value)

    def filter_location(self, queryset: QuerySet, name: str, value: Location) -> QuerySet:
        places = selectors.location_and_descendants(value)
        at = Event.locations.through.objects.filter(location_id__in=places)
        return queryset.filter(pk__in=at.values("event_id"))

    def filter_source(self, queryset: QuerySet, name: str, value: Source) -> QuerySet:
        cited = selectors.citations_of_source(value)
        return queryset.filter(Q(pk__in=cited.values("event_id")) | Q(pk__in=cited.values("participation__event_id")))
