"""The audit page: what `manage.py audit` finds, each finding linked to its record and passages.

Curators fix a finding in the record's own admin page, or explain it with a
curator's note (registered here too), after which the page lists it apart as
explained. The page answers to staff only (`curator_urls` wraps it in
`admin_view`), like every curators' page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from archive.audit import Finding, run_audit
from archive.audit.findings import LEVELS
from archive.models import CuratorNote

from .base import AuditedAdmin
from .reader import admin_change_url, admin_context, passage_url


@dataclass
class Row:
    finding: Finding
    change_url: str | None
    passages: list[tuple[str, str]]


def _row(finding: Finding) -> Row:
    return Row(
        finding=finding,
        change_url=admin_change_url(finding.record) if finding.record is not None else None,
        passages=[(f"{p.source.slug} §{p.seq}", passage_url(p)) for p in finding.passages],
    )


def audit(request: HttpRequest) -> HttpResponse:
    report = run_audit()
    groups = [(level, [_row(f) for f in report.open if f.level == level]) for level in LEVELS]
    context: dict[str, Any] = admin_context(
        request,
        title=_("Audit"),
        groups=groups,
        counts=report.counts(),
        explained=[_row(f) for f in report.explained],
    )
    return render(request, "archive/curate/audit.html", context)


@admin.register(CuratorNote)
class CuratorNoteAdmin(AuditedAdmin):
    list_display = ("model", "record", "code", "note", "created_by", "created_at")
    list_filter = ("model", "code")
    list_select_related = ("created_by",)
    search_fields = ("record", "code", "note")
    readonly_fields = ("created_at", "created_by")

    def save_model(self, request: HttpRequest, obj: CuratorNote, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user  # type: ignore[assignment]  # admin views have a signed-in user
        obj._history_user = request.user  # type: ignore[attr-defined]  # set here for a later reader
        super().save_model(request, obj, form, change)
