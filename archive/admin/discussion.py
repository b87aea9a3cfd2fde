"""Threads in the admin: read beside a decision, written from the review queue, the change form and "My work".

Every item of the review queue and every record's change form shows its
thread (a record's includes the thread of its open change) and a box to add
to it. The queue's reviewers also request changes from here: the button sits
beside Approve and Reject inside the queue's one form and posts the same note
and pin to this view (`formaction`), so a decision is pinned to what was
read whichever button is pressed. Every action comes back to the page it was
made on, at the item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from archive.models import Comment, Curated, Revision, RevisionState
from archive.models.registry import CURATED_MODELS
from archive.services import discussion, review, revisions
from archive.text.numbers import whole_number

_MODELS: dict[str, type[Curated]] = {model._meta.model_name or "": model for model in CURATED_MODELS}


def subject_key(subject: models.Model) -> str:
    """`person-12`, `revision-7`: the key the queue names an item by."""
    return f"{subject._meta.model_name}-{subject.pk}"


def _subject(key: str) -> models.Model | None:
    name, _sep, pk = key.rpartition("-")
    number = whole_number(pk, max_digits=18)
    if number is None:
        return None
    if name == "revision":
        return Revision.objects.filter(pk=number).first()
    model = _MODELS.get(name)
    return model._default_manager.filter(pk=number).first() if model is not None else None


@dataclass
class Thread:
    """What the thread include shows: the comments, the key of the item, and whether the reader may write."""

    key: str
    comments: list[Comment]
    may_write: bool
    returned: bool = False  # a change returned to its contributors, who may send it back as it is


def thread_for(subject: models.Model, user: Any, found: dict[tuple[int, Any], list[Comment]]) -> Thread:
    returned = (
        isinstance(subject, Revision)
        and subject.state == RevisionState.RETURNED
        and user.pk in revisions.contributors(subject)
    )
    return Thread(
        key=subject_key(subject),
        comments=found.get(discussion.thread_key(subject), []),
        may_write=discussion.may_discuss(subject, user),
        returned=returned,
    )


def _back(request: HttpRequest, anchor: str) -> HttpResponse:
    back = request.POST.get("next", "")
    if not back or not url_has_allowed_host_and_scheme(back, {request.get_host()}, require_https=request.is_secure()):
        back = reverse("archive_curate:review")
    return redirect(f"{back.split('#')[0]}#{anchor}")


def discuss(request: HttpRequest) -> HttpResponse:
    """POST `thread_action`: `comment:<key>`, `edit:<comment id>`, `changes:<key>` or `resubmit:<key>`."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    verb, _sep, key = request.POST.get("thread_action", "").partition(":")
    if verb == "edit":
        return _edit(request, key)
    subject = _subject(key)
    if subject is None or verb not in ("comment", "changes", "resubmit"):
        messages.error(request, _("No such item to discuss: %(key)s.") % {"key": key[:40]})
        return _back(request, "content")
    anchor = f"thread-{key}"
    try:
        if verb == "comment":
            discussion.comment_add(subject=subject, by=request.user, text=request.POST.get(f"comment-{key}", ""))
            messages.success(request, _("Comment added to the thread of “%(item)s”.") % {"item": _label(subject)})
        elif verb == "changes":
            _request_changes(request, subject, key)
            anchor = "content"
        else:
            if not isinstance(subject, Revision):
                raise ValidationError(_("Only a change of a published record is sent back as it is."))
            revisions.resubmit_revision(revision=subject, by=request.user)
            messages.success(
                request, _("The change of “%(item)s” is back in review.") % {"item": subject.record_label}
            )
    except (PermissionDenied, ValidationError) as exc:
        text = " ".join(exc.messages) if isinstance(exc, ValidationError) else (str(exc) or _("Not allowed."))
        messages.error(request, _("“%(item)s”: %(error)s") % {"item": _label(subject), "error": text})
    return _back(request, anchor)


def _label(subject: models.Model) -> str:
    return subject.record_label if isinstance(subject, Revision) else str(subject)


def _request_changes(request: HttpRequest, subject: models.Model, key: str) -> None:
    note = request.POST.get(f"note-{key}", "").strip()
    shown = str(request.POST.get(f"pin-{key}", ""))
    if isinstance(subject, Revision):
        revisions.request_revision_changes(revision=subject, by=request.user, note=note, shown=shown)
        text = _("Changes requested on the change of “%(item)s”: it went back to its contributors with the thread.")
    else:
        assert isinstance(subject, Curated)
        review.request_changes(subject, by=request.user, note=note, shown=shown)
        text = _("Changes requested on “%(item)s”: it went back to its author as a draft with the thread.")
    messages.success(request, text % {"item": _label(subject)})


def _edit(request: HttpRequest, key: str) -> HttpResponse:
    number = whole_number(key, max_digits=18)
    comment = Comment.objects.filter(pk=number).first() if number is not None else None
    if comment is None:
        messages.error(request, _("No such comment."))
        return _back(request, "content")
    subject_model = comment.subject_type.model_class()
    anchor = f"thread-{subject_model._meta.model_name if subject_model else 'x'}-{comment.subject_id}"
    try:
        discussion.comment_edit(comment=comment, by=request.user, text=request.POST.get(f"edit-{comment.pk}", ""))
    except (PermissionDenied, ValidationError) as exc:
        text = " ".join(exc.messages) if isinstance(exc, ValidationError) else (str(exc) or _("Not allowed."))
        messages.error(request, text)
    else:
        messages.success(request, _("Comment edited; its earlier text stays in its history."))
    return _back(request, anchor)
