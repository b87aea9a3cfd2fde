"""Admin of statements: the ranked values of a record's fields and the citations that give them.

A statement is reviewed like every curated record. The form names one record
(the model's CHECK constraint refuses two), the field it states, the value in
the field's canonical form (`Statement.clean()` checks it and fills an event
date's bounds from its EDTF when none are given), the citations of that
same record that give the value (`archive.statements.check_citations`) and
its basis: stated (a cited quote says the value; the form lists the quotes),
inferred (the citations are the premises and the reasoning says how the value
follows; never preferred over a stated account, `archive.statements.check_basis`)
or a named reference.
A reviewer who has approved statements writes their choice into the records'
own columns (which lists filter and sort on) with the action
"Show the chosen values on their records" (`archive.statements.statement_apply`).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from archive import statements
from archive.models import Citation, Statement
from archive.models.statements import STATEMENT_TARGETS, Basis
from archive.services.support import support_problems

from .base import CuratedAdmin, ReviewStateFilter
from .citations import field_label


class StatementTargetFilter(admin.SimpleListFilter):
    title = _("statement about")
    parameter_name = "about"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [(name, field_label(Statement, name)) for name in STATEMENT_TARGETS]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in STATEMENT_TARGETS:
            return queryset.filter(**{f"{self.value()}__isnull": False})
        return queryset


class StatementForm(forms.ModelForm):
    class Meta:
        model = Statement
        fields = [
            "slug", *STATEMENT_TARGETS, "field", "value", "as_written", "earliest", "latest", "rank", "position",
            "note", "basis", "reasoning", "reference", "citations",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["basis"].required = False  # left out, an account is stated, as the model's default says

    def clean_basis(self) -> str:
        return self.cleaned_data.get("basis") or Basis.STATED

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        cited = cleaned.get("citations")
        if cited is not None and not self.errors:
            probe = Statement(
                pk=self.instance.pk,
                field=cleaned.get("field") or "",
                rank=cleaned.get("rank") or "",
                basis=cleaned.get("basis") or "",
                **{name: cleaned.get(name) for name in STATEMENT_TARGETS},
            )
            statements.check_citations(statement=probe, citations=list(cited))
            statements.check_basis(statement=probe, citations=list(cited))
            # A stated account must be said by one of these quotes (the message names what is missing).
            account = Statement(**{
                name: cleaned.get(name, getattr(self.instance, name))
                for name in (*STATEMENT_TARGETS, "field", "value", "as_written", "earliest", "latest", "basis",
                             "reasoning", "reference")
            })
            statements.check_support(statement=account, citations=list(cited))
        return cleaned


@admin.register(Statement)
class StatementAdmin(CuratedAdmin):
    form = StatementForm
    list_display = ("slug", "field", "value", "as_written", "rank", "basis", "status", "modified_by")
    list_filter = (ReviewStateFilter, "field", "rank", "basis", StatementTargetFilter)
    list_select_related = ("modified_by",)
    search_fields = ("slug", "value", "as_written", "note", "reasoning", "reference")
    autocomplete_fields = ("event", "participation", "post", "person", "location", "citations")
    fieldsets = [
        (None, {"fields": ("slug", "event", "participation", "post", "person", "location", "field")}),
        (_("Value"), {"fields": ("value", "as_written", "earliest", "latest", "rank", "position", "note")}),
        (_("Evidence"), {"fields": ("basis", "citations", "cited_quotes", "reasoning", "reference")}),
    ]
    readonly_fields = ("cited_quotes",)
    actions = (*CuratedAdmin.actions, "apply_to_records")

    @admin.display(description=_("cited quotes"))
    def cited_quotes(self, statement: Statement) -> str:
        """The words each citation quotes, each marked with what it does for the account: for a stated
        account, whether the quote alone states the value (`archive.services.support`); for an inferred
        one, that it is a premise."""
        if statement.pk is None:
            return "-"
        cited = statement.citations.select_related("passage__source").order_by("passage__source__slug", "passage__seq")
        lines = [(f"{c.passage.source.slug} §{c.passage.seq}", c.quote, self._what_it_does(statement, c))
                 for c in cited]
        if not lines:
            return str(_("No citation yet."))
        return format_html_join(mark_safe("<br>"), "{}: «{}» — {}", lines)

    @staticmethod
    def _what_it_does(statement: Statement, citation: Citation) -> str:
        if statement.basis == Basis.INFERRED:
            return str(_("a premise"))
        if statement.basis == Basis.REFERENCE:
            return str(_("not needed: the reference gives the value"))
        problems = support_problems(statement, [citation])
        if not problems:
            return str(_("states the value"))
        return str(_("does not state it alone: %(problem)s") % {"problem": problems[0]})

    @admin.action(description=_("Show the chosen values on their records"), permissions=["review"])
    def apply_to_records(self, request: HttpRequest, queryset: QuerySet) -> None:
        records = {(type(s.target), s.target.pk): s.target for s in queryset.select_related(*STATEMENT_TARGETS)}
        changed = sum(1 for record in records.values() if statements.statement_apply(record=record))
        self.message_user(
            request,
            ngettext("%(count)d record now shows its chosen values.", "%(count)d records now show their chosen values.",
                     changed) % {"count": changed},
            messages.SUCCESS,
        )
