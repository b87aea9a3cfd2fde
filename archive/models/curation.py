"""Review state and the fields every curated record shares.

A record enters as a draft, is submitted for review and is approved or rejected
by someone other than its contributors (four eyes). The rules of every write
live in `archive.services`; the model only refuses what must never happen,
whoever calls `save()`: a reviewed status not reached by a transition, and an
in-place change of a published record (it is proposed as a revision instead,
`archive.models.revisions`). Every curated row carries a `version`, which the
services check and increment so that no save overwrites a change it has not
seen (`archive.locking`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, router, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import natural_keys


class Status(models.TextChoices):
    DRAFT = "draft", _("draft")
    IN_REVIEW = "in_review", _("in review")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")


class Side(models.TextChoices):
    CHINESE = "chinese", _("Chinese")
    JAPANESE = "japanese", _("Japanese")
    THIRD_COUNTRY = "third_country", _("third country")
    UNKNOWN = "unknown", _("unknown")


class CuratedQuerySet(models.QuerySet):
    def approved(self) -> CuratedQuerySet:
        return self.filter(status=Status.APPROVED)


class SlugManager(models.Manager.from_queryset(CuratedQuerySet)):  # type: ignore[misc]  # a manager class built at run time
    """Natural keys by slug, so that fixtures link records by key, not by id."""

    def get_by_natural_key(self, slug: str) -> Any:
        return natural_keys.find(self, (slug,), lambda: self.get(slug=slug))


class NaturalKeyBySlug:
    slug: str

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


class Curated(NaturalKeyBySlug, models.Model):
    """Abstract base of every record that is reviewed."""

    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.DRAFT, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    modified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("last changed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    review_note = models.TextField(_("review note"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    # Optimistic lock (see `archive.locking`): the version the editor loaded,
    # checked and incremented in the UPDATE itself.
    version = models.PositiveIntegerField(_("version"), default=1, editable=False)

    objects = SlugManager()

    class Meta:
        abstract = True

    # The status a row had when it was read, to detect a status changed by hand.
    _loaded_status: str | None = None
    _transition_allowed: bool = False
    # Set by `archive.services.revisions` while it applies an approved revision.
    _publishing: bool = False
    # True during a save that claimed a stored row no reader is shown (see `claimed_unpublished`).
    _claimed_unpublished: bool = False

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._transition_allowed:
            self._guard_status()
        self._transition_allowed = False
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        with transaction.atomic(using=using):
            if not self._state.adding and self.pk is not None and not kwargs.get("force_insert"):
                self._claim_version(using)
            try:
                super().save(*args, **kwargs)
            finally:
                self._claimed_unpublished = False
        self._loaded_status = self.status

    def claimed_unpublished(self) -> bool:
        """Whether the save under way claimed a stored row that is not published, which it keeps locked.

        An ordinary save claims only an unpublished row (`_claim_version`), so
        what the row was before this save was shown to no reader: whoever must
        know that (`archive.freshness`) need not read the row again.
        """
        return self._claimed_unpublished

    def _claim_version(self, using: str) -> None:
        """Move the stored row one version on, from the version this copy was loaded at, or refuse.

        The check and the increment are one UPDATE, so no other transaction can
        slip between them on either engine; the row stays locked until the save
        commits. A stored row that is published is never claimed by an ordinary
        save, whatever this copy says of its status (a copy loaded before the
        approval must not write the old values back).
        """
        rows = type(self)._default_manager.using(using).filter(pk=self.pk, version=self.version)
        if not self._publishing:
            rows = rows.exclude(status=Status.APPROVED)
        if rows.update(version=models.F("version") + 1):
            self.version += 1
            self._claimed_unpublished = not self._publishing
            return
        stored = type(self)._default_manager.using(using).filter(pk=self.pk).values_list("status", flat=True).first()
        if stored is None:
            return  # not stored: Django inserts it
        if stored == Status.APPROVED and not self._publishing:
            raise ValidationError(self._published_message())
        from archive.locking import ConcurrentEdit

        raise ConcurrentEdit(self, loaded_version=self.version, using=using, fallback=self)

    def _published_message(self) -> str:
        return _(
            "%(record)s is published: a change of it is proposed with "
            "archive.services.records.record_update, which sends it to review and keeps "
            "the approved version served."
        ) % {"record": self}

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        instance._loaded_status = instance.__dict__.get("status")
        return instance

    # Status changes an ordinary save may make; approval and rejection are not
    # among them, they are reached only through `archive.services.review`.
    _MANUAL_CHANGES = {
        (None, Status.DRAFT),
        (None, Status.IN_REVIEW),
        (Status.DRAFT, Status.DRAFT),
        (Status.DRAFT, Status.IN_REVIEW),
        (Status.IN_REVIEW, Status.IN_REVIEW),
        (Status.IN_REVIEW, Status.DRAFT),
        (Status.REJECTED, Status.REJECTED),
        (Status.REJECTED, Status.DRAFT),
        (Status.REJECTED, Status.IN_REVIEW),
    }

    def _guard_status(self) -> None:
        """A save may not set a reviewed status, nor change a published record in place."""
        if self._loaded_status == Status.APPROVED and not self._publishing:
            raise ValidationError(self._published_message())
        if self._publishing:
            return
        if (self._loaded_status, self.status) not in self._MANUAL_CHANGES:
            raise ValidationError(
                {
                    "status": _("The status “%(status)s” is reached only by a review transition.")
                    % {"status": self.status}
                }
            )

    def save_transition(self, **kwargs: Any) -> None:
        """Save a status that a transition in `archive.services.review` has checked."""
        self._transition_allowed = True
        self.save(**kwargs)


class Cited(Curated):
    """A curated record that citations are evidence for."""

    # Stored, not derived per query, so that lists and counts filter on a
    # column; `archive.fiction` recomputes it whenever its evidence changes.
    fictional = models.BooleanField(_("fictional"), default=False, editable=False)

    class Meta:
        abstract = True

    _loaded_marked_historical: bool | None = None

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A save of a stored row never writes the flag: the copy in memory may
        # be older than the evidence, which `archive.fiction` keeps it equal to.
        if not self._state.adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            kwargs["update_fields"] = [
                field.name
                for field in self._meta.concrete_fields
                if not field.primary_key and field.name != "fictional"
            ]
        super().save(*args, **kwargs)
        self._loaded_marked_historical = self.__dict__.get("marked_historical")

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        instance._loaded_marked_historical = instance.__dict__.get("marked_historical")
        return instance
