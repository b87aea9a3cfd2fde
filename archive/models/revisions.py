"""Revisions: a proposed change of a published record, kept apart until reviewed.

An approved record is what the archive publishes. Editing it must not take it
offline, so an edit of an approved record (its fields, its many-to-many links,
its names, aliases or passages, a revert, a deletion or a merge) is stored here
as a pending revision and the record's own row keeps the approved values, which
every API endpoint, count and search keeps serving. Approving the revision by
someone who did not contribute to it applies it to the row in one transaction
(`archive.services.revisions`); rejecting it leaves the row as it was.

One record has at most one open (pending or returned) revision (a partial unique constraint), as
Wagtail keeps one latest revision per page: successive edits update it and add
their authors to its contributors. `version` counts those updates, so that two
curators editing the same pending revision never overwrite each other unseen.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .curation import Curated


class RevisionState(models.TextChoices):
    PENDING = "pending", _("pending review")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")
    WITHDRAWN = "withdrawn", _("withdrawn")
    # Sent back to its contributors by a reviewer; still the record's open change, reviewed again once edited.
    RETURNED = "returned", _("changes requested")


class RevisionKind(models.TextChoices):
    CHANGE = "change", _("change")
    REVERT = "revert", _("revert")
    DELETE = "delete", _("deletion")
    MERGE = "merge", _("merge")


OPEN_STATES = (RevisionState.PENDING, RevisionState.RETURNED)


class RevisionQuerySet(models.QuerySet["Revision"]):
    def pending(self) -> RevisionQuerySet:
        return self.filter(state=RevisionState.PENDING)

    def open(self) -> RevisionQuerySet:
        """Pending or returned to its contributors: the record's one change not yet decided for good."""
        return self.filter(state__in=OPEN_STATES)

    def of(self, record: models.Model) -> RevisionQuerySet:
        return self.filter(record_type=ContentType.objects.get_for_model(type(record)), record_id=record.pk)


class Revision(models.Model):
    """A change of a published record awaiting (or past) review.

    `changes` holds only what differs from the published record:
    ``{"fields": {attname: value}, "m2m": {field: [pk, …]},
    "children": {"app.model": {"<pk>": {attname: value} | None, "new-<n>": {…}}},
    "delete": true, "merge": {"duplicate": pk}}``; values are JSON forms of the
    fields' own values (`archive.services.revisions` converts both ways).
    """

    record_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    record_id = models.PositiveBigIntegerField(_("record id"))
    record_label = models.CharField(_("record"), max_length=300)
    kind = models.CharField(_("kind"), max_length=16, choices=RevisionKind.choices, default=RevisionKind.CHANGE)
    changes = models.JSONField(_("changes"), default=dict, blank=True)
    base_version = models.PositiveIntegerField(_("based on version"))
    version = models.PositiveIntegerField(_("version"), default=1)
    state = models.CharField(
        _("state"), max_length=16, choices=RevisionState.choices, default=RevisionState.PENDING, db_index=True
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("proposed by"), null=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    contributors = models.ManyToManyField(settings.AUTH_USER_MODEL, verbose_name=_("contributors"), related_name="+")
    created_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("reviewed by"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    review_note = models.TextField(_("review note"), blank=True)

    objects = RevisionQuerySet.as_manager()

    class Meta:
        verbose_name = _("revision")
        verbose_name_plural = _("revisions")
        ordering = ("-updated_at", "-pk")
        indexes = [models.Index(fields=["record_type", "record_id"], name="revision_record")]
        constraints = [
            models.UniqueConstraint(
                fields=["record_type", "record_id"],
                condition=models.Q(state__in=["pending", "returned"]),
                name="revision_one_pending_per_record",
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=["pending", "approved", "rejected", "withdrawn", "returned"]),
                name="revision_state_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.record_label} ({self.get_kind_display()}, {self.get_state_display()})"

    @property
    def record_model(self) -> type[Curated]:
        model = self.record_type.model_class()
        assert model is not None and issubclass(model, Curated), "a revision's record is a curated model"
        return model

    def record(self) -> Any:
        """The published record, or None once a deletion or merge removed it."""
        return self.record_model._default_manager.filter(pk=self.record_id).order_by().first()
