"""Accounts side by side: what each source says about one event.

Sources disagree (Tang Shengzhi was due at the dock at 18:00, arrived at 20:00,
left after 21:00, depending on whom one reads), and the archive keeps every
account with its evidence instead of choosing silently. This page puts the
citations of an event and of its participations in one column per source, in
the order of the source's passages, so a reviewer sees where the accounts
agree, differ or add, and which one is ranked as the archive's reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from archive.models import Citation, Event, Source, Status
from archive.models.sources import FICTION_KINDS, PRIMARY_KINDS, SECONDARY_KINDS

from .reader import admin_change_url, admin_context, passage_url, passage_with_quote


@dataclass
class Account:
    citation: Citation
    about: str
    html: SafeString
    url: str
    change_url: str | None


@dataclass
class SourceColumn:
    source: Source
    accounts: list[Account] = field(default_factory=list)


def _kind_order(source: Source) -> int:
    """Primary sources first, then histories and references, fiction last."""
    if source.kind in PRIMARY_KINDS:
        return 0
    if source.kind in SECONDARY_KINDS:
        return 1
    if source.kind in FICTION_KINDS:
        return 2
    return 3


def _about(citation: Citation, event: Event) -> str:
    if (participation := citation.participation) is not None:
        return f"{participation.person or participation.unit} · {participation.get_role_display()}"
    return _("the event")


def event_accounts(event: Event, *, statuses: list[str] | None = None) -> list[SourceColumn]:
    """The citations of `event` and of its participations, one column per source."""
    citations = Citation.objects.filter(Q(event=event) | Q(participation__event=event)).select_related(
        "passage__source", "participation__person", "participation__unit"
    )
    if statuses:
        citations = citations.filter(status__in=statuses)
    columns: dict[int, SourceColumn] = {}
    for citation in citations.order_by("passage__seq", "start", "end", "pk"):
        source = citation.passage.source
        column = columns.setdefault(source.pk, SourceColumn(source))
        column.accounts.append(
            Account(
                citation=citation,
                about=_about(citation, event),
                html=passage_with_quote(citation.passage, citation.start, citation.end, css="queue-quote"),
                url=passage_url(citation.passage),
                change_url=admin_change_url(citation),
            )
        )
    return sorted(
        columns.values(), key=lambda c: (_kind_order(c.source), c.source.date or "9999", c.source.title, c.source.pk)
    )


def accounts(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("parent"), slug=slug)
    wanted = request.GET.get("status", "")
    statuses = [wanted] if wanted in Status.values else None
    columns = event_accounts(event, statuses=statuses)
    context: dict[str, Any] = admin_context(
        request,
        title=_("Accounts of %(event)s") % {"event": event.title},
        event=event,
        columns=columns,
        statuses=Status.choices,
        wanted=wanted if statuses else "",
        event_change_url=admin_change_url(event),
        participations=event.participations.select_related("person", "unit"),
    )
    return render(request, "archive/curate/accounts.html", context)
