"""What every curated admin shares: review workflow, revisions, history, spreadsheets, fast lists.

The admin is a thin layer over `archive.services`, which owns every write:
a new record is a draft of its author; an edit of a draft is saved in place,
over the version its form was opened on (`archive.locking`); an edit of a
published record — its form, an inline, a name or alias, a revert, a
deletion, a bulk action, a merge — becomes the record's pending revision and
the published version stays served until someone who contributed nothing to
the change approves it (`archive.services.revisions`). This module only
translates forms into those calls and says what happened:

* the change form of a published record shows its pending revision, and
  carries the revision's version (hidden) besides the record's, so that two
  curators never overwrite each other's proposal unseen;
* the status fields are read-only in every form, so a forged POST with
  `status=approved` changes nothing;
* the save message says when an edit went to review and that the published
  version stays live.

The changelist helpers (paginator, filters, folded search) live in
`archive.admin.lists`. This module stays longer than most because the admin's
whole write path (forms, inlines, revert, delete, bulk actions, merge) reads
best in one place next to the review actions it ends in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet, prefetch_related_objects
from django.forms import BaseInlineFormSet, ModelForm
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from simple_history.admin import SimpleHistoryAdmin

from archive import locking, roles, selectors
from archive.admin.spreadsheet_import import SpreadsheetImportMixin
from archive.importing.spreadsheets import SPREADSHEET_FORMATS
from archive.models import Citation, Curated, Revision, RevisionKind, Status
from archive.services import bulk, decisions, discussion, records, revisions
from archive.services import review as curation
from archive.text.numbers import whole_number

from .discussion import Thread, thread_for
from .lists import EstimatedCountPaginator, SearchMixin

# The changelist helpers live in `.lists`; the model admins import them from here too.
from .lists import FictionalFilter as FictionalFilter
from .lists import PassageSourceListFilter as PassageSourceListFilter
from .lists import ReviewStateFilter as ReviewStateFilter
from .lists import SourceListFilter as SourceListFilter

# Review state and audit: shown, never edited by hand.
CURATION_FIELDS = (
    "status",
    "created_by",
    "modified_by",
    "reviewed_by",
    "reviewed_at",
    "review_note",
    "created_at",
    "updated_at",
)

# Hidden fields of the change form that are no model fields: the versions it was opened on.
FORM_ONLY = ("version", "revision_version")

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def posted_note(request: HttpRequest) -> str:
    """The note of an approval or a rejection, as typed on the intermediate page."""
    return str(request.POST.get("review_note", "")).strip()


def _is_revert(request: HttpRequest, model: type[Model]) -> bool:
    match = getattr(request, "resolver_match", None)
    return bool(match and match.url_name == f"{model._meta.app_label}_{model._meta.model_name}_simple_history")


def _untracked_fields(model: type[Model]) -> list[str]:
    """Concrete fields that simple-history does not keep (e.g. a source's full text)."""
    history_model = model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    tracked = {field.attname for field in history_model._meta.concrete_fields}
    return [field.attname for field in model._meta.concrete_fields if field.attname not in tracked]


class AuditedAdmin(SearchMixin, SimpleHistoryAdmin):
    """History with who/when/diff, and the author of every inline change on the parent."""

    show_full_result_count = False
    list_per_page = 50
    paginator = EstimatedCountPaginator

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: BaseInlineFormSet, change: bool) -> None:
        """Each inline row through the services: a published record's rows become proposals."""
        instances = formset.save(commit=False)
        parent_field = formset.fk.name
        proposed = False
        for obj in formset.deleted_objects:
            if isinstance(obj, Curated):
                proposed |= records.record_delete(record=obj, by=request.user) is not None
            else:
                proposed |= records.child_delete(child=obj, parent_field=parent_field, by=request.user) is not None
        for instance in instances:
            if isinstance(instance, Curated):
                if instance.pk is None:
                    records.record_create(record=instance, by=request.user, reason="added in an inline")
                else:
                    proposed |= records.record_update(record=instance, by=request.user) is not None
            else:
                proposed |= records.child_save(child=instance, parent_field=parent_field, by=request.user) is not None
        if not records.is_published(form.instance):
            formset.save_m2m()
        if proposed:
            request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it


def form_links(form: ModelForm) -> dict[str, Any]:
    """The many-to-many links a form states, by field name, for `records.record_update`."""
    return {
        field.name: form.cleaned_data[field.name]
        for field in form.instance._meta.many_to_many
        if field.name in form.cleaned_data
    }


class RevertForm(forms.ModelForm):
    """simple-history's revert form: its links go to the services with the record, never onto the row.

    The revert view calls `save_model` and then the form's `save_m2m`;
    `CuratedAdmin.save_model` passes the links to `records.record_update`
    (a revision of a published record, in place for a draft), so the form
    itself writes no link.
    """

    def save(self, commit: bool = True) -> Any:
        instance = super().save(commit=False)
        self.save_m2m = self._links_went_with_the_record  # type: ignore[method-assign]  # as ModelForm.save(commit=False) sets it
        return instance

    def _links_went_with_the_record(self) -> None:
        """Nothing to write: `save_model` gave the links to the services."""


class VersionCheckedForm(forms.ModelForm):
    """A change form that refuses to save over a version it was not opened on.

    The version travels as a hidden field. A form posted without it (an old
    client, a test that posts by hand) is checked against the version read
    with the record, which is the best it can claim; but a form of a published
    record posted without the pending revision's version claims to have seen
    none, and is refused as stale while one is pending. A posted version that is
    no longer the stored one is a form error saying what changed meanwhile;
    a save that loses the race after this check is refused by the model.
    """

    version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    # The version of the pending revision the form was opened on (0: none was pending).
    revision_version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields["version"].initial = self.instance.version
            self.fields["revision_version"].initial = getattr(self.instance, "_revision_shown", 0)
            pending_m2m = getattr(self.instance, "_revision_m2m", {})
            for name, pks in pending_m2m.items():
                if name in self.fields and not self.is_bound:
                    self.initial[name] = pks

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        instance = self.instance
        if instance.pk is None or instance._state.adding:
            return cleaned
        for name, value in cleaned.items():
            # The time widget shows whole seconds: an untouched moment keeps its own
            # fraction (a derived bound ends at .999999), or every save would change it.
            initial = self.initial.get(name)
            if (
                isinstance(value, dt.datetime)
                and isinstance(initial, dt.datetime)
                and initial.microsecond
                and value == initial.replace(microsecond=0)
            ):
                cleaned[name] = initial
        posted = cleaned.get("version")
        if posted is None:
            posted = instance.version
        using = instance._state.db or "default"
        current = locking.current_version(type(instance), instance.pk, using=using)
        if current is not None and current != posted:
            raise locking.ConcurrentEdit(instance, loaded_version=posted, using=using)
        instance.version = posted
        if getattr(instance, "_revision_shown", None) is not None:
            # Checked against the pending revision when proposed. A form of a published record
            # posted without the field claims to have seen none: stale, if one is pending.
            shown = cleaned.get("revision_version")
            instance._revision_shown = shown if shown is not None else 0
        return cleaned


class CuratedAdmin(SpreadsheetImportMixin, AuditedAdmin):
    """Admin of a curated model: review actions, read-only status, spreadsheets."""

    formats = SPREADSHEET_FORMATS
    actions: Sequence[str] = ("submit_selected", "approve_selected", "reject_selected")
    review_template = "archive/admin/review_action.html"

    # -- reading

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        readonly = list(super().get_readonly_fields(request, obj))
        return [*readonly, *(name for name in CURATION_FIELDS if name not in readonly)]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[tuple[Any, dict[str, Any]]]:
        fieldsets = super().get_fieldsets(request, obj)
        cleaned = []
        for name, options in fieldsets:
            fields = [field for field in options.get("fields", ()) if field not in CURATION_FIELDS]
            cleaned.append((name, {**options, "fields": [field for field in fields if field not in FORM_ONLY]}))
        return [*cleaned, (_("Review"), {"fields": (*CURATION_FIELDS, *FORM_ONLY)})]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        # `version` is not an editable model field; the form declares it.
        if kwargs.get("fields") is None and "fields" not in kwargs:
            # The fieldsets' options are plain dicts here, not the stubs' TypedDict.
            kwargs["fields"] = flatten_fieldsets(self.get_fieldsets(request, obj))  # type: ignore[arg-type]
        if kwargs.get("fields") is not None:
            kwargs["fields"] = [name for name in kwargs["fields"] if name not in FORM_ONLY]
        form = super().get_form(request, obj, change, **kwargs)
        if _is_revert(request, self.model):
            # A revert starts from an old version on purpose; `_prepare_revert` saves it on the current one.
            hidden = {name: forms.IntegerField(widget=forms.HiddenInput, required=False) for name in FORM_ONLY}
            return type(form.__name__, (RevertForm, form), hidden)
        return type(form.__name__, (VersionCheckedForm, form), {})

    def changeform_view(self, request: HttpRequest, object_id: str | None = None, form_url: str = "",
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra_context = {**(extra_context or {}), "show_submit_for_review": True}
        if object_id is not None:
            record = self.get_object(request, object_id)
            if record is not None:
                extra_context["threads"] = self._threads(request, record)
            if isinstance(record, Curated) and roles.may_open(request.user, "review"):
                key = selectors.pending_review_key(record)
                if key is not None:
                    extra_context["pending_review_url"] = f"{reverse('archive_curate:review')}?item={key}"
            pending = getattr(record, "_pending_revision", None)
            if pending is not None and request.method == "GET":
                self.message_user(
                    request,
                    _(
                        "This form shows a change pending review (by %(who)s); the published version "
                        "stays live until another person approves it."
                    )
                    % {"who": pending.created_by or "?"},
                    messages.WARNING,
                )
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except (locking.ConcurrentEdit, revisions.RevisionChanged) as exc:
            # Lost the race between the form's check and the UPDATE: nothing
            # was saved (the view's transaction rolled back); say why.
            self.message_user(request, " ".join(exc.messages), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    object_history_template = "admin/archive/object_history.html"

    def _threads(self, request: HttpRequest, record: Curated) -> list[Thread]:
        """The record's thread and its open change's, for its change form and its history."""
        subjects: list[Model] = [record]
        pending = getattr(record, "_pending_revision", None) or revisions.pending_revision(record)
        if pending is not None:
            subjects.append(pending)
        found = discussion.threads(subjects)
        return [thread_for(subject, request.user, found) for subject in subjects]

    def history_view(self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
                     ) -> HttpResponse:
        number = whole_number(object_id)
        if number is None:
            raise Http404(_("No record has the id “%(id)s”.") % {"id": object_id[:40]})
        record = self.model._default_manager.filter(pk=number).first()
        if record is not None:
            extra_context = {**(extra_context or {}), "threads": self._threads(request, record)}
        return super().history_view(request, object_id, extra_context)

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        """The record as its editor should see it: with its pending revision laid over the published values."""
        record = super().get_object(request, object_id, from_field)
        if isinstance(record, Curated) and record.status == Status.APPROVED and not _is_revert(request, self.model):
            pending = revisions.pending_revision(record)
            if pending is not None:
                revisions.with_pending(record, pending)
                record._pending_revision = pending  # type: ignore[attr-defined]  # set here for a later reader
            else:
                record._revision_shown = 0  # type: ignore[attr-defined]  # set here for a later reader
        return record

    def has_review_permission(self, request: HttpRequest) -> bool:
        opts = self.opts
        return request.user.has_perm(f"{opts.app_label}.review_{opts.model_name}")

    def has_import_permission(self, request: HttpRequest) -> bool:
        return self.has_add_permission(request) and self.has_change_permission(request)

    def has_export_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    # -- writing

    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        if not change:
            records.record_create(record=obj, by=request.user)
            if "_submit_for_review" in request.POST:
                curation.submit(obj, by=request.user)
            return
        if records.is_published(obj):
            # Proposed in `save_related`, together with the links and inline rows of the form.
            obj._archive_kind = RevisionKind.REVERT if _is_revert(request, self.model) else RevisionKind.CHANGE
            if obj._archive_kind == RevisionKind.REVERT:
                # A revert states the whole old version: compared field by field with the published
                # one. simple-history's revert view calls no `save_related`, so it is proposed here.
                pending = revisions.pending_revision(obj)
                obj._revision_shown = pending.version if pending is not None else 0
                # It states an old version on purpose, proposed over the current one.
                obj.version = self.model._default_manager.values_list("version", flat=True).get(pk=obj.pk)
                records.record_update(record=obj, by=request.user, m2m=form_links(form), kind=RevisionKind.REVERT)
                obj._archive_kind = None
                request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it
            return
        if _is_revert(request, self.model):
            self._prepare_revert(request, obj)
            records.record_update(
                record=obj, by=request.user, reason="reverted to an earlier version", m2m=form_links(form)
            )
        elif form.has_changed():
            records.record_update(record=obj, by=request.user)
        if "_submit_for_review" in request.POST and obj.status in (Status.DRAFT, Status.REJECTED):
            curation.submit(obj, by=request.user)

    def save_related(self, request: HttpRequest, form: ModelForm, formsets: Iterable[Any], change: bool) -> None:
        obj = form.instance
        kind = getattr(obj, "_archive_kind", None)
        if kind is None:
            super().save_related(request, form, formsets, change)
            return
        revision = records.record_update(record=obj, by=request.user, m2m=form_links(form), kind=kind)
        request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it
        request._archive_revision = revision  # type: ignore[attr-defined]  # a mark on the request, read later in it
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def _said_proposed(self, request: HttpRequest, obj: Any) -> bool:
        if not getattr(request, "_archive_proposed", False):
            return False
        pending = revisions.pending_revision(obj) if obj.pk is not None else None
        if pending is None:
            self.message_user(
                request,
                _("%(record)s: nothing differs from the published version any more; no change is pending.")
                % {"record": obj},
                messages.SUCCESS,
            )
        else:
            self.message_user(
                request,
                _(
                    "Your change of %(record)s went to review. The published version stays live until "
                    "another person approves the change."
                )
                % {"record": obj},
                messages.SUCCESS,
            )
        return True

    def response_change(self, request: HttpRequest, obj: Any) -> HttpResponse:
        if self._said_proposed(request, obj):
            return HttpResponseRedirect(request.path)
        if "_submit_for_review" in request.POST and obj.status == Status.IN_REVIEW:
            self.message_user(request, _("%(record)s was submitted for review.") % {"record": obj}, messages.SUCCESS)
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        if records.record_delete(record=obj, by=request.user) is not None:
            request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for record in self._records(queryset):
            self.delete_model(request, record)

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any) -> HttpResponse:
        if getattr(request, "_archive_proposed", False):
            self.message_user(
                request,
                _("The deletion of %(record)s went to review; the record stays published until it is approved.")
                % {"record": obj_display},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"))
        return super().response_delete(request, obj_display, obj_id)

    def _prepare_revert(self, request: HttpRequest, obj: Any) -> None:
        """Restore an old version's fields of an unpublished record, keeping its review state."""
        current = self.model._default_manager.get(pk=obj.pk)
        for attname in _untracked_fields(self.model):
            setattr(obj, attname, getattr(current, attname))
        obj._loaded_status = current.status
        obj.version = current.version
        obj.status = current.status
        obj.created_by_id = current.created_by_id
        obj.reviewed_by = current.reviewed_by
        obj.reviewed_at = current.reviewed_at
        obj.review_note = current.review_note

    # -- review actions

    def _records(self, queryset: QuerySet) -> list[Any]:
        # Fresh rows, so that each transition sees the stored state.
        return list(self.model._default_manager.filter(pk__in=queryset.values("pk")))

    def _transition(self, request: HttpRequest, queryset: QuerySet, step: Any, done: str) -> None:
        succeeded = 0
        for record in self._records(queryset):
            try:
                step(record)
            except (PermissionDenied, ValidationError) as exc:
                text: StrOrPromise = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
                self.message_user(request, f"{record}: {text}", messages.ERROR)
            else:
                succeeded += 1
        if succeeded:
            self.message_user(
                request,
                ngettext("%(count)d record %(done)s.", "%(count)d records %(done)s.", succeeded)
                % {"count": succeeded, "done": done},
                messages.SUCCESS,
            )

    def _bulk_outcome(self, request: HttpRequest, outcome: bulk.Outcome, done: str) -> None:
        for name, reason in outcome.refused:
            self.message_user(request, f"{name}: {reason}", messages.ERROR)
        if outcome.done:
            self.message_user(
                request,
                ngettext("%(count)d record %(done)s.", "%(count)d records %(done)s.", len(outcome.done))
                % {"count": len(outcome.done), "done": done},
                messages.SUCCESS,
            )

    @admin.action(description=_("Submit selected for review"), permissions=["change"])
    def submit_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        keys = [(self.model, pk) for pk in queryset.values_list("pk", flat=True)]
        self._bulk_outcome(request, bulk.submit_many(records=keys, by=request.user), "submitted")

    @admin.action(description=_("Approve selected…"), permissions=["review"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        if "apply" not in request.POST:
            return self._review_page(request, queryset, "approve_selected", _("Approve"), note_required=False)
        note = posted_note(request)
        without_evidence = str(request.POST.get("without_evidence", "")).strip()
        if without_evidence:
            # Each record published without evidence keeps its own stated reason: one by one.
            self._transition(
                request,
                queryset,
                lambda record: curation.approve(
                    record,
                    by=request.user,
                    note=note,
                    without_evidence=without_evidence,
                    shown=self._pinned(request, record),
                ),
                "approved",
            )
            return None
        shown = {(self.model, record.pk): self._pinned(request, record) for record in self._records(queryset)}
        self._bulk_outcome(request, bulk.approve_many(shown=shown, by=request.user, note=note), "approved")
        return None

    @admin.action(description=_("Reject selected…"), permissions=["review"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        note = posted_note(request)
        if "apply" not in request.POST or not note:
            error = _("A rejection says why.") if "apply" in request.POST else None
            return self._review_page(request, queryset, "reject_selected", _("Reject"), note_required=True, error=error)
        shown = {(self.model, record.pk): self._pinned(request, record) for record in self._records(queryset)}
        self._bulk_outcome(request, bulk.reject_many(shown=shown, by=request.user, note=note), "rejected")
        return None

    @staticmethod
    def _pinned(request: HttpRequest, record: Any) -> str:
        """The state of `record` its reviewer read on the intermediate page (`archive.services.decisions`)."""
        return str(request.POST.get(f"pin-{record.pk}", ""))

    def _review_page(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        action: str,
        verb: StrOrPromise,
        *,
        note_required: bool,
        error: StrOrPromise | None = None,
    ) -> TemplateResponse:
        records = self._records(queryset)
        if records and hasattr(records[0], "citations") and not isinstance(records[0], Citation):
            prefetch_related_objects(records, "citations")  # each pin reads the record's evidence
        # Four eyes read from one history query, not one per record.
        contributors = curation.contributors_of_many(self.model, records)
        may = self.has_review_permission(request) or request.user.is_superuser
        rows = [
            (record, may and request.user.pk not in contributors[record.pk], decisions.record_pin(record))
            for record in records
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": f"{verb}: {self.opts.verbose_name_plural}",
            "opts": self.opts,
            "rows": rows,
            "action": action,
            "verb": verb,
            "note_required": note_required,
            "note": posted_note(request),
            "error": error,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, self.review_template, context)


class CuratedInlineMixin:
    """An inline of a curated child (post, participation, citation): status shown, never edited."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        readonly = list(super().get_readonly_fields(request, obj))  # type: ignore[misc]  # a mixin: the class it joins has the method
        return [*readonly, "status"] if "status" not in readonly else readonly


class ChildAdmin(SpreadsheetImportMixin, AuditedAdmin):
    """Admin of a name or an alias: a change of one is a change of the record it names."""

    formats = SPREADSHEET_FORMATS
    parent_field: str = ""

    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        # A revert form never "has changed"; the services compare with the stored row instead.
        if records.child_save(child=obj, parent_field=self.parent_field, by=request.user) is not None:
            request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        if records.child_delete(child=obj, parent_field=self.parent_field, by=request.user) is not None:
            request._archive_proposed = True  # type: ignore[attr-defined]  # a mark on the request, read later in it

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for child in queryset:
            self.delete_model(request, child)

    def response_change(self, request: HttpRequest, obj: Any) -> HttpResponse:
        if getattr(request, "_archive_proposed", False):
            self.message_user(
                request,
                _(
                    "Your change of %(child)s went to review as a change of %(record)s; the published version "
                    "stays live until another person approves it."
                )
                % {"child": obj, "record": getattr(obj, self.parent_field)},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: str | None = None) -> HttpResponse:
        if getattr(request, "_archive_proposed", False):
            self.message_user(
                request,
                _("The new %(child)s went to review as a change of %(record)s.")
                % {"child": obj._meta.verbose_name, "record": getattr(obj, self.parent_field)},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"))
        return super().response_add(request, obj, post_url_continue)

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any) -> HttpResponse:
        if getattr(request, "_archive_proposed", False):
            self.message_user(
                request,
                _("The deletion of %(child)s went to review; it stays published until it is approved.")
                % {"child": obj_display},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"))
        return super().response_delete(request, obj_display, obj_id)

    def has_import_permission(self, request: HttpRequest) -> bool:
        return self.has_add_permission(request) and self.has_change_permission(request)

    def has_export_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)


class MergeMixin:
    """The action “merge selected into…”: two records, the curator picks the survivor."""

    merge_template = "archive/admin/merge_action.html"

    @admin.action(description=_("Merge the two selected records into one…"), permissions=["change"])
    def merge_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        from archive.services import merges

        records = list(self.model._default_manager.filter(pk__in=queryset.values("pk")))  # type: ignore[attr-defined]  # a mixin of ModelAdmin
        if len(records) != 2:
            self.message_user(request, _("Select exactly two records to merge."), messages.ERROR)  # type: ignore[attr-defined]  # a mixin of ModelAdmin
            return None
        chosen = str(request.POST.get("survivor", ""))
        if "apply" in request.POST and chosen in {str(record.pk) for record in records}:
            survivor = next(record for record in records if str(record.pk) == chosen)
            duplicate = next(record for record in records if str(record.pk) != chosen)
            old_slug = duplicate.slug
            try:
                outcome = merges.merge(survivor=survivor, duplicate=duplicate, by=request.user)
            except (PermissionDenied, ValidationError) as exc:
                text: StrOrPromise = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
                self.message_user(request, text, messages.ERROR)  # type: ignore[attr-defined]  # a mixin of ModelAdmin
            else:
                if isinstance(outcome, Revision):
                    text = _(
                        "The merge of %(old)s into %(survivor)s went to review; both stay published as they "
                        "are until another person approves it."
                    )
                else:
                    text = _("Merged %(old)s into %(survivor)s; the survivor is now in review.")
                self.message_user(  # type: ignore[attr-defined]  # a mixin of ModelAdmin
                    request, text % {"old": old_slug, "survivor": survivor.slug}, messages.SUCCESS
                )
            return None
        context = {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]  # a mixin of ModelAdmin
            "title": _("Merge two %(records)s") % {"records": self.opts.verbose_name_plural},  # type: ignore[attr-defined]  # a mixin of ModelAdmin
            "opts": self.opts,  # type: ignore[attr-defined]  # a mixin of ModelAdmin
            "records": records,
            "action": "merge_selected",
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, self.merge_template, context)
