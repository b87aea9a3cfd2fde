"""Admin of events and of who took part in them."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from archive import dating
from archive.importing.spreadsheets import EventResource, ParticipationResource
from archive.models import Citation, Event, Participation

from .base import CuratedAdmin, CuratedInlineMixin, FictionalFilter, ReviewStateFilter


class ParticipationInline(CuratedInlineMixin, admin.TabularInline):
    model = Participation
    fields = ("slug", "person", "unit", "role", "position", "note", "status")
    autocomplete_fields = ("person", "unit")
    extra = 0
    show_change_link = True


class EventCitationInline(CuratedInlineMixin, admin.StackedInline):
    model = Citation
    fk_name = "event"
    fields = ("passage", "quote", "claim", "rank", "start", "end", "status")
    readonly_fields = ("start", "end")
    autocomplete_fields = ("passage",)
    extra = 0
    show_change_link = True
    verbose_name_plural = _("citations of the event")


@admin.register(Event)
class EventAdmin(CuratedAdmin):
    resource_classes = [EventResource]
    inlines = [ParticipationInline, EventCitationInline]
    list_display = ("title", "slug", "kind", "when", "date", "parent", "fictional", "status")
    list_filter = (ReviewStateFilter, "kind", FictionalFilter)
    list_select_related = ("parent", "modified_by")
    search_fields = ("title", "slug", "date_text")
    autocomplete_fields = ("parent", "follows", "locations")

    @admin.display(description=_("when"), ordering="earliest")
    def when(self, event: Event) -> str:
        """The date as the source writes it, beside its normalised bounds."""
        normalised = dating.describe_bounds(event.earliest, event.latest)
        if event.date_text and normalised:
            return f"{event.date_text} ({normalised})"
        return event.date_text or normalised or event.date


@admin.register(Participation)
class ParticipationAdmin(CuratedAdmin):
    resource_classes = [ParticipationResource]
    list_display = ("slug", "event", "person", "unit", "role", "position", "fictional", "status")
    list_filter = (ReviewStateFilter, "role", FictionalFilter)
    list_select_related = ("event", "person", "unit", "modified_by")
    search_fields = ("slug", "event__title", "person__name", "unit__name", "note")
    autocomplete_fields = ("event", "person", "unit")
