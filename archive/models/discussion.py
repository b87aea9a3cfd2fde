"""Discussion where the decision is made: a thread of comments on a record, a citation or a revision.

A curator and a reviewer talk about an item before (and while) it is
decided, as on a review in Gerrit or GitHub or an annotation in Hypothesis.
A comment names its subject by content type and id, so one table holds the
threads of every curated model and of revisions; it keeps its author and
time, and simple-history keeps every edit of its text. A reviewer's
"changes requested" decision is itself a comment of that kind, so the thread
shows why the item went back to its author.

Comments are the curators' working notes: the API and the reading room never
read this table; the export's backup carries it with the rest of the history.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords


class CommentKind(models.TextChoices):
    COMMENT = "comment", _("comment")
    CHANGES_REQUESTED = "changes_requested", _("changes requested")


class CommentQuerySet(models.QuerySet["Comment"]):
    def on(self, subject: models.Model) -> CommentQuerySet:
        return self.filter(subject_type=ContentType.objects.get_for_model(type(subject)), subject_id=subject.pk)


class Comment(models.Model):
    subject_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    subject_id = models.PositiveBigIntegerField(_("subject id"))
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("author"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(_("kind"), max_length=24, choices=CommentKind.choices, default=CommentKind.COMMENT)
    text = models.TextField(_("text"))
    created_at = models.DateTimeField(_("written at"), default=timezone.now)
    edited_at = models.DateTimeField(_("edited at"), null=True, blank=True)

    history = HistoricalRecords()
    objects = CommentQuerySet.as_manager()

    class Meta:
        verbose_name = _("comment")
        verbose_name_plural = _("comments")
        ordering = ("created_at", "pk")
        indexes = [models.Index(fields=["subject_type", "subject_id"], name="comment_subject")]
        constraints = [
            models.CheckConstraint(condition=~models.Q(text=""), name="comment_not_empty"),
            models.CheckConstraint(
                condition=models.Q(kind__in=["comment", "changes_requested"]), name="comment_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"
