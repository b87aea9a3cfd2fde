"""The review queue: everything in review, with the evidence to judge it.

A reviewer decides on a record by reading the words it rests on, so every
record is shown with its citations inside their whole passages (the quote
marked), the source and its kind named and fiction flagged. Approval and
rejection go through `archive.curation`, which holds the four-eyes rule; the
queue only asks `curation.can_review` in advance to say why a record has no
buttons, and turns every refusal into a message, never a server error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Count, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.services import review as curation
from archive.models import (
    Citation,
    Curated,
    Event,
    Location,
    Participation,
    Person,
    Post,
    Source,
    Status,
    Unit,
)

from .reader import (
    CITATION_RELATED,
    admin_change_url,
    admin_context,
    passage_url,
    passage_with_quote,
    target_label,
)

# The queue's groups, in the order a reviewer meets them: what is cited
# before the citations that rest on it.
QUEUE_MODELS: tuple[type[Curated], ...] = (Source, Person, Unit, Location, Event, Post, Participation, Citation)

_RELATED: dict[type[models.Model], tuple[str, ...]] = {
    Unit: ("parent",),
    Location: ("parent",),
    Event: ("parent",),
    Post: ("person", "unit"),
    Participation: ("event", "person", "unit"),
    Citation: ("passage__source", *CITATION_RELATED),
}

_MODELS_BY_NAME: dict[str, type[Curated]] = {model._meta.model_name: model for model in QUEUE_MODELS}


@dataclass
class Evidence:
    citation: Citation
    html: SafeString
    url: str


@dataclass
class Row:
    key: str
    record: Curated
    change_url: str | None
    reason: str | None
    evidence: list[Evidence] = field(default_factory=list)
    accounts_url: str | None = None
    target: str = ""

    @property
    def can_review(self) -> bool:
        return self.reason is None


def record_key(record: models.Model) -> str:
    return f"{record._meta.model_name}-{record.pk}"


def why_not(record: Curated, user: Any) -> str | None:
    """Why `user` may not review `record`, or None when they may."""
    if curation.can_review(record, user):
        return None
    if user.pk == record.created_by_id:
        return _("You created this record: another reviewer must approve or reject it.")
    if user.pk == record.modified_by_id:
        return _("You changed this record last: another reviewer must approve or reject it.")
    return _("You are not allowed to review %(things)s.") % {"things": record._meta.verbose_name_plural}


def _evidence(citation: Citation) -> Evidence:
    html = passage_with_quote(citation.passage, citation.start, citation.end, css="queue-quote")
    return Evidence(citation, html, passage_url(citation.passage))


def _event_of(record: models.Model) -> Event | None:
    if isinstance(record, Event):
        return record
    if isinstance(record, Participation):
        return record.event
    if isinstance(record, Citation):
        if record.event_id:
            return record.event
        if record.participation_id:
            return record.participation.event
    return None


def _queryset(model: type[Curated]) -> models.QuerySet[Any]:
    qs = model.objects.filter(status=Status.IN_REVIEW).select_related(
        "created_by", "modified_by", *_RELATED.get(model, ())
    )
    if model is Source:
        return qs.annotate(passage_count=Count("passages")).order_by("title", "pk")
    if model is Citation:
        return qs.order_by("passage__source__title", "passage__seq", "start", "pk")
    cited = Citation.objects.select_related("passage__source").order_by("passage__source__title", "passage__seq")
    return qs.prefetch_related(Prefetch("citations", queryset=cited)).order_by("pk")


def queue_groups(user: Any) -> list[dict[str, Any]]:
    """The records in review, grouped by model, each with its evidence."""
    groups = []
    for model in QUEUE_MODELS:
        rows = []
        for record in _queryset(model):
            event = _event_of(record)
            row = Row(
                key=record_key(record),
                record=record,
                change_url=admin_change_url(record),
                reason=why_not(record, user),
                accounts_url=reverse("archive_curate:accounts", args=[event.slug]) if event else None,
            )
            if isinstance(record, Citation):
                row.evidence = [_evidence(record)]
                row.target = target_label(record)
            elif not isinstance(record, Source):
                row.evidence = [_evidence(c) for c in record.citations.all()]
            rows.append(row)
        if rows:
            groups.append({"name": model._meta.verbose_name_plural, "model": model._meta.model_name, "rows": rows})
    return groups


def _resolve(key: str) -> Curated | None:
    name, _sep, pk = key.rpartition("-")
    model = _MODELS_BY_NAME.get(name)
    if model is None or not pk.isdigit():
        return None
    return model.objects.filter(pk=pk).first()


def _decide(verb: str, record: Curated, user: Any, note: str) -> str | None:
    """Approve or reject one record; the refusal as a message, or None."""
    try:
        if verb == "approve":
            curation.approve(record, by=user, note=note)
        else:
            curation.reject(record, by=user, note=note)
    except PermissionDenied as exc:
        return str(exc) or _("You may not review %(record)s.") % {"record": record}
    except ValidationError as exc:
        return " ".join(exc.messages)
    return None


def _act(request: HttpRequest) -> None:
    action = request.POST.get("action", "")
    verb, _sep, key = action.partition(":")
    if verb in ("bulk-approve", "bulk-reject"):
        keys = request.POST.getlist("selected")
        note = request.POST.get("bulk_note", "").strip()
        verb = verb.removeprefix("bulk-")
        if not keys:
            messages.warning(request, _("Select the records to approve or reject first."))
            return
    elif verb in ("approve", "reject") and key:
        keys = [key]
        note = request.POST.get(f"note-{key}", "").strip()
    else:
        messages.error(request, _("Unknown action."))
        return
    done = 0
    for item in keys:
        record = _resolve(item)
        if record is None:
            messages.error(request, _("No such record: %(key)s.") % {"key": item})
            continue
        error = _decide(verb, record, request.user, note)
        if error:
            messages.error(
                request,
                _("%(kind)s “%(record)s”: %(error)s")
                % {"kind": record._meta.verbose_name, "record": record, "error": error},
            )
        else:
            done += 1
    if done:
        text = (
            ngettext("Approved %(count)d record.", "Approved %(count)d records.", done)
            if verb == "approve"
            else ngettext("Rejected %(count)d record.", "Rejected %(count)d records.", done)
        )
        messages.success(request, text % {"count": done})


def queue(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        _act(request)
        return redirect(reverse("archive_curate:review"))
    groups = queue_groups(request.user)
    context = admin_context(
        request,
        title=_("Review queue"),
        groups=groups,
        total=sum(len(g["rows"]) for g in groups),
        reviewable=sum(1 for g in groups for row in g["rows"] if row.can_review),
    )
    return render(request, "archive/curate/review.html", context)
