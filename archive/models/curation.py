"""Review state and the fields every curated record shares.

A record enters as a draft, is submitted for review and is approved or rejected
by someone other than its author (four eyes). The transitions live here, in the
model layer, so that the admin, the importers and a shell script all go through
the same rules: `save()` refuses a status that was not reached by a transition.
Every curated row also carries a `version`, checked and incremented by the
UPDATE of each save, so that no save overwrites a change it has not seen
(`archive.locking`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


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


class SlugManager(models.Manager.from_queryset(CuratedQuerySet)):  # type: ignore[misc]
    """Natural keys by slug, so that fixtures link records by key, not by id."""

    def get_by_natural_key(self, slug: str) -> Any:
        return self.get(slug=slug)


def fictional_expression(
    model: type[models.Model], citation_model: type[models.Model] | None = None
) -> models.Expression:
    """Fiction is a property of evidence: the definition of `Cited.fictional`.

    A record is fictional when it has approved citations and all of them come
    from fiction; a person, unit or place a curator marked historical never is.
    `archive.fiction` stores its value on each record and keeps it current.
    `citation_model` is given by migrations, which use historical models.
    """
    if citation_model is None:
        from .citations import Citation as citation_model

    field = model._meta.model_name
    cited = citation_model._default_manager.filter(**{field: models.OuterRef("pk")}, status=Status.APPROVED)
    expression = models.Exists(cited.filter(passage__source__is_fiction=True)) & ~models.Exists(
        cited.filter(passage__source__is_fiction=False)
    )
    if any(f.name == "marked_historical" for f in model._meta.get_fields()):
        expression &= models.Q(marked_historical=False)
    return models.ExpressionWrapper(expression, output_field=models.BooleanField())


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
    # Set by `_save_table` for the duration of a raw save (loaddata).
    _raw_save: bool = False

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._transition_allowed:
            self._guard_status()
        self._transition_allowed = False
        super().save(*args, **kwargs)

    def _save_table(self, raw: bool = False, *args: Any, **kwargs: Any) -> Any:
        # loaddata calls `Model.save_base` itself, so the raw flag is caught here.
        self._raw_save = raw
        try:
            return super()._save_table(raw, *args, **kwargs)
        finally:
            self._raw_save = False

    def _do_update(
        self, base_qs: Any, using: str, pk_val: Any, values: list[Any], update_fields: Any, forced_update: bool
    ) -> bool:
        """Update only the version that was loaded, incrementing it in the same statement.

        A row that exists under another version is a concurrent edit and
        raises `archive.locking.ConcurrentEdit`; nothing is written. A raw
        save (loaddata) writes the fixture's version unchecked.
        """
        from archive.locking import ConcurrentEdit

        version_field = self._meta.get_field("version")
        if self._raw_save or not any(field is version_field for field, _model, _value in values):
            return super()._do_update(base_qs, using, pk_val, values, update_fields, forced_update)
        loaded = self.version
        values = [
            (field, model, models.F("version") + 1 if field is version_field else value)
            for field, model, value in values
        ]
        if base_qs.filter(pk=pk_val, version=loaded)._update(values) > 0:
            self.version = loaded + 1
            return True
        if base_qs.filter(pk=pk_val).exists():
            raise ConcurrentEdit(self, loaded_version=loaded, using=using, fallback=self)
        return False

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        instance._loaded_status = instance.__dict__.get("status")
        return instance

    # Status changes an ordinary save may make; approval and rejection are not
    # among them, they are reached only through `archive.curation`.
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
        (Status.APPROVED, Status.IN_REVIEW),
    }

    def _guard_status(self) -> None:
        """An ordinary save may not set a reviewed status; an edit reopens review."""
        if self._loaded_status == Status.APPROVED and self.status == Status.APPROVED:
            self.status = Status.IN_REVIEW
            self.reviewed_by = None
            self.reviewed_at = None
            return
        if (self._loaded_status, self.status) not in self._MANUAL_CHANGES:
            raise ValidationError(
                {
                    "status": _("The status “%(status)s” is reached only by a review transition.")
                    % {"status": self.status}
                }
            )

    def save_transition(self, **kwargs: Any) -> None:
        """Save a status that a transition in `archive.curation` has checked."""
        self._transition_allowed = True
        self.save(**kwargs)
        self._loaded_status = self.status


class Cited(Curated):
    """A curated record that citations are evidence for."""

    # Stored, not derived per query, so that lists and counts filter on a
    # column; `archive.fiction` recomputes it whenever its evidence changes.
    fictional = models.BooleanField(_("fictional"), default=False, editable=False)

    class Meta:
        abstract = True

    _loaded_marked_historical: bool | None = None

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        self._loaded_marked_historical = self.__dict__.get("marked_historical")

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> Any:
        instance = super().from_db(db, field_names, values)
        instance._loaded_marked_historical = instance.__dict__.get("marked_historical")
        return instance

    def _do_update(
        self, base_qs: Any, using: str, pk_val: Any, values: list[Any], update_fields: Any, forced_update: bool
    ) -> bool:
        # A save never writes the flag: the copy in memory may be older than the evidence.
        values = [entry for entry in values if entry[0].name != "fictional"]
        return super()._do_update(base_qs, using, pk_val, values, update_fields, forced_update)
