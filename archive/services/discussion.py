"""Threads of comments on a record, a citation or a revision: write, edit, read them in one query.

Whoever may edit or review an item may discuss it: its curators and its
reviewers. A comment is edited only by its author, and every edit is kept by
the comment's history (simple-history), so a thread never changes unseen.
A reviewer's "changes requested" decision (`review.request_changes`,
`revisions.request_revision_changes`) writes its note into the thread as a
comment of that kind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.models import Comment, CommentKind, Curated, Revision
from archive.services.authorship import save_as

MAX_LENGTH = 5000


def _model_of(subject: models.Model) -> type[models.Model]:
    return subject.record_model if isinstance(subject, Revision) else type(subject)


def may_discuss(subject: models.Model, user: Any) -> bool:
    """Curators who may change the item and reviewers who may decide it."""
    if not getattr(user, "is_staff", False) or not user.is_active:
        return False
    opts = _model_of(subject)._meta
    return bool(
        user.is_superuser
        or user.has_perm(f"{opts.app_label}.change_{opts.model_name}")
        or user.has_perm(f"{opts.app_label}.review_{opts.model_name}")
    )


def _clean_text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": _("A comment says something.")})
    if len(text) > MAX_LENGTH:
        raise ValidationError({"text": _("A comment is at most %(max)d characters.") % {"max": MAX_LENGTH}})
    return text


def _check_subject(subject: models.Model) -> None:
    if not isinstance(subject, Curated | Revision) or subject.pk is None:
        raise ValidationError(_("Only a stored record, citation or change is discussed."))


@transaction.atomic
def comment_add(*, subject: models.Model, by: Any, text: str) -> Comment:
    _check_subject(subject)
    if not may_discuss(subject, by):
        raise PermissionDenied(_("You may not discuss %(item)s.") % {"item": subject})
    comment = Comment(
        subject_type=ContentType.objects.get_for_model(type(subject)),
        subject_id=subject.pk,
        author=by,
        text=_clean_text(text),
    )
    save_as(comment, by=by, reason="commented")
    return comment


def record_request(*, subject: models.Model, by: Any, text: str) -> Comment:
    """The reviewer's request of a "changes requested" decision, as a comment of the item's thread."""
    _check_subject(subject)
    comment = Comment(
        subject_type=ContentType.objects.get_for_model(type(subject)),
        subject_id=subject.pk,
        author=by,
        kind=CommentKind.CHANGES_REQUESTED,
        text=_clean_text(text),
    )
    save_as(comment, by=by, reason="changes requested")
    return comment


@transaction.atomic
def comment_edit(*, comment: Comment, by: Any, text: str) -> Comment:
    """Change the text of one's own comment; the history keeps what it said before."""
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    if by is None or comment.author_id != by.pk:
        raise PermissionDenied(_("Only its author edits a comment."))
    new_text = _clean_text(text)
    if new_text == comment.text:
        return comment
    comment.text = new_text
    comment.edited_at = timezone.now()
    save_as(comment, by=by, reason="edited")
    return comment


# -- reading


def _key(subject: models.Model) -> tuple[int, Any]:
    return (ContentType.objects.get_for_model(type(subject)).pk, subject.pk)


def threads(subjects: Iterable[models.Model]) -> dict[tuple[int, Any], list[Comment]]:
    """The threads of many items, by `thread_key`, oldest comment first, in one query (content types are cached)."""
    wanted: dict[int, set[Any]] = defaultdict(set)
    for subject in subjects:
        if subject is not None and subject.pk is not None:
            type_id, pk = _key(subject)
            wanted[type_id].add(pk)
    found: dict[tuple[int, Any], list[Comment]] = defaultdict(list)
    if not wanted:
        return found
    condition = models.Q()
    for type_id, pks in wanted.items():
        condition |= models.Q(subject_type_id=type_id, subject_id__in=sorted(pks))
    for comment in Comment.objects.filter(condition).select_related("author").order_by("created_at", "pk"):
        found[(comment.subject_type_id, comment.subject_id)].append(comment)
    return found


def thread_key(subject: models.Model) -> tuple[int, Any]:
    return _key(subject)


def thread(subject: models.Model) -> list[Comment]:
    return threads([subject]).get(_key(subject), [])


def waiting_for_changes(model: type[models.Model], pks: Iterable[Any]) -> set[Any]:
    """Of the records `pks` of `model`, those a reviewer returned with changes requested (their thread says so)."""
    content_type = ContentType.objects.get_for_model(model)
    return set(
        Comment.objects.filter(
            subject_type=content_type, subject_id__in=list(pks), kind=CommentKind.CHANGES_REQUESTED
        ).values_list("subject_id", flat=True)
    )
