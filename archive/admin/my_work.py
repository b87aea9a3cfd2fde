"""“My work”: what became of everything a curator wrote.

A curator who submits a record or a change waits for someone else to decide
on it, and needs to learn the outcome without searching every list: this page
gathers the user's drafts, what waits in review, what was rejected with the
reviewer's note (so it can be fixed and sent again), what was approved in the
last days, and the user's changes of published records in each state.

A record counts as the user's when they created it or changed it last; a
change (revision) when they proposed it or added to it. The page reads one
query per model, whatever the user has written.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.models import CommentKind, Curated, Revision, RevisionState, Status
from archive.services import discussion

from .discussion import Thread, thread_for
from .reader import admin_context
from .review import _RELATED, QUEUE_MODELS, _revision_change_url

RECENT_DAYS = 30
# Enough to act on; a curator with more sees the newest first and is told.
LIMIT = 200


@dataclass
class Item:
    record: Any
    kind: str
    url: str | None
    thread: Thread | None = None


def _records(model: type[Curated], user: Any, since: dt.datetime) -> list[Curated]:
    mine = Q(created_by=user) | Q(modified_by=user)
    open_states = Q(status__in=[Status.DRAFT, Status.IN_REVIEW, Status.REJECTED])
    recent = Q(status=Status.APPROVED, reviewed_at__gte=since)
    return list(
        model.objects.filter(mine & (open_states | recent))
        .select_related("reviewed_by", *_RELATED.get(model, ()))
        .order_by("-updated_at", "-pk")[:LIMIT]
    )


def records_by_status(user: Any, *, since: dt.datetime) -> dict[str, list[Item]]:
    found: dict[str, list[Item]] = {status: [] for status in Status.values}
    for model in QUEUE_MODELS:
        for record in _records(model, user, since):
            item = Item(record, str(model._meta.verbose_name), _revision_change_url(model, record.pk))
            found[record.status].append(item)
    for items in found.values():
        items.sort(key=lambda item: item.record.updated_at, reverse=True)
    return found


def revisions_by_state(user: Any, *, since: dt.datetime) -> dict[str, list[Item]]:
    """The user's changes of published records: all pending ones, and those decided since `since`."""
    mine = Revision.objects.filter(Q(created_by=user) | Q(contributors=user)).values("pk")
    qs = (
        Revision.objects.filter(pk__in=mine)
        .filter(Q(state__in=[RevisionState.PENDING, RevisionState.RETURNED]) | Q(reviewed_at__gte=since))
        .select_related("record_type", "reviewed_by")
        .order_by("-updated_at", "-pk")[:LIMIT]
    )
    found: dict[str, list[Item]] = {state: [] for state in RevisionState.values}
    for revision in qs:
        model: type[models.Model] = revision.record_model
        found[revision.state].append(
            Item(revision, str(model._meta.verbose_name), _revision_change_url(model, revision.record_id))
        )
    return found


def waiting_for(user: Any, drafts: list[Item], returned: list[Item]) -> list[Item]:
    """The drafts a reviewer returned with changes requested and the changes returned, each with its thread.

    A draft waits for its author when its thread holds a request of changes;
    the threads of every draft and returned change are read in one query.
    """
    found = discussion.threads([item.record for item in [*drafts, *returned]])
    waiting = []
    for item in [*drafts, *returned]:
        comments = found.get(discussion.thread_key(item.record), [])
        if any(comment.kind == CommentKind.CHANGES_REQUESTED for comment in comments):
            item.thread = thread_for(item.record, user, found)
            waiting.append(item)
    return waiting


def my_work(request: HttpRequest) -> HttpResponse:
    since = timezone.now() - dt.timedelta(days=RECENT_DAYS)
    records = records_by_status(request.user, since=since)
    changes = revisions_by_state(request.user, since=since)
    waiting = waiting_for(request.user, records[Status.DRAFT], changes[RevisionState.RETURNED])
    sections = [
        ("drafts", _("Drafts"), records[Status.DRAFT], _("Records you created or changed that are not submitted.")),
        ("in-review", _("In review"), records[Status.IN_REVIEW], _("Waiting for another person to decide.")),
        (
            "rejected",
            _("Rejected"),
            records[Status.REJECTED],
            _("Read the reviewer's note, fix the record and submit it again."),
        ),
        (
            "approved",
            _("Approved recently"),
            records[Status.APPROVED],
            _("Published in the last %(days)d days.") % {"days": RECENT_DAYS},
        ),
    ]
    change_sections = [
        (
            "changes-pending",
            _("Changes waiting for review"),
            changes[RevisionState.PENDING],
            _("The published version stays served until someone else approves."),
        ),
        (
            "changes-rejected",
            _("Changes rejected"),
            changes[RevisionState.REJECTED],
            _("In the last %(days)d days; the published version stayed as it was.") % {"days": RECENT_DAYS},
        ),
        (
            "changes-approved",
            _("Changes approved"),
            changes[RevisionState.APPROVED],
            _("Published in the last %(days)d days.") % {"days": RECENT_DAYS},
        ),
    ]
    context = admin_context(
        request,
        title=_("My work"),
        sections=sections,
        waiting=waiting,
        change_sections=change_sections,
        limit=LIMIT,
    )
    return render(request, "archive/curate/my_work.html", context)
