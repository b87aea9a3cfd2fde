"""The reader's suggested mentions and batches: cite one with a click, or a source's every one after a preview.

Citing every suggested mention of a source is a batch: a preview first (how
many, of which records, which names were left as ambiguous), then the
curator's confirmation, which carries the preview's digest so that what is
made is what was shown (`archive.services.batches`). The curator then submits
their drafts of the source in one call, or withdraws the batch while nobody
has decided its items.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.models import Batch, Passage, Source
from archive.services import batches
from archive.services.mentions import cite_all_mentions, cite_mention

from .reader import admin_context, back_to_reader

# Rows of the preview's lists shown at most; the counts always cover every one.
PREVIEW_ROWS = 300


def _may_cite(request: HttpRequest) -> None:
    if not request.user.has_perm("archive.add_citation"):
        raise PermissionDenied


def _reader_url(source: Source) -> str:
    return reverse("archive_curate:reader", args=[source.slug])


def cite_one(request: HttpRequest, pk: int) -> HttpResponse:
    """POST `key`: cite that suggested mention of the passage and submit it for review."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    _may_cite(request)
    passage = get_object_or_404(Passage.objects.select_related("source"), pk=pk)
    try:
        citation = cite_mention(passage=passage, key=request.POST.get("key", ""), by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request,
            _("“%(quote)s” cited as a mention of %(record)s and submitted for review.")
            % {"quote": citation.quote, "record": citation.target},
        )
    return redirect(back_to_reader(passage, request.POST.get("next", "")))


def _preview(request: HttpRequest, source: Source) -> HttpResponse:
    preview = batches.preview_mentions(source=source)
    context = admin_context(
        request,
        title=_("Cite the suggested mentions of %(source)s") % {"source": source.title},
        source=source,
        preview=preview,
        count=len(preview.chosen),
        records=preview.by_record,
        mentions=preview.chosen[:PREVIEW_ROWS],
        more_mentions=max(0, len(preview.chosen) - PREVIEW_ROWS),
        ambiguous=preview.ambiguous[:PREVIEW_ROWS],
        more_ambiguous=max(0, len(preview.ambiguous) - PREVIEW_ROWS),
        reader_url=_reader_url(source),
    )
    return render(request, "archive/curate/mentions_preview.html", context)


def cite_all(request: HttpRequest, slug: str) -> HttpResponse:
    """GET (or a POST without a digest): the preview. POST `shown`: the drafts, as one batch."""
    _may_cite(request)
    source = get_object_or_404(Source, slug=slug)
    shown = request.POST.get("shown", "") if request.method == "POST" else ""
    if not shown:
        return _preview(request, source)
    back = redirect(_reader_url(source))
    try:
        made = cite_all_mentions(source=source, by=request.user, shown=shown)
    except ValidationError as exc:  # one refused citation, or a changed preview, undoes the batch
        messages.error(request, " ".join(exc.messages))
        return _preview(request, source) if exc.code == "stale" else back
    count = len(made.created)
    if request.POST.get("submit") and made.created:
        outcome = batches.submit_drafts_of_source(source=source, by=request.user)
        text = ngettext(
            "%(count)d citation made from the suggested mentions (batch %(batch)s) and submitted for review.",
            "%(count)d citations made from the suggested mentions (batch %(batch)s) and submitted for review.",
            count,
        )
        for label, reason in outcome.refused:
            messages.warning(request, f"{label}: {reason}")
    else:
        text = ngettext(
            "%(count)d draft citation made from the suggested mentions (batch %(batch)s); check it, "
            "then submit it for review.",
            "%(count)d draft citations made from the suggested mentions (batch %(batch)s); check them, "
            "then submit them for review.",
            count,
        )
    messages.success(request, text % {"count": count, "batch": made.record.pk if made.record else "-"})
    if made.ambiguous:
        messages.warning(
            request,
            ngettext(
                "%(count)d name belongs to more than one record and was left for you to cite.",
                "%(count)d names belong to more than one record and were left for you to cite.",
                made.ambiguous,
            )
            % {"count": made.ambiguous},
        )
    return back


def submit_drafts(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: send every draft citation the user made in this source to review, in one call."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    _may_cite(request)
    source = get_object_or_404(Source, slug=slug)
    outcome = batches.submit_drafts_of_source(source=source, by=request.user)
    if outcome.done:
        messages.success(
            request,
            ngettext(
                "%(count)d draft citation of %(source)s submitted for review.",
                "%(count)d draft citations of %(source)s submitted for review.",
                len(outcome.done),
            )
            % {"count": len(outcome.done), "source": source.title},
        )
    else:
        messages.info(request, _("You have no draft citation of %(source)s.") % {"source": source.title})
    for label, reason in outcome.refused:
        messages.error(request, f"{label}: {reason}")
    back = request.POST.get("next", "")
    return redirect(back if back.startswith(_reader_url(source)) else _reader_url(source))


def withdraw_batch(request: HttpRequest, pk: int) -> HttpResponse:
    """POST: the batch's author takes back every item of it nobody has decided yet."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    _may_cite(request)
    batch = get_object_or_404(Batch.objects.select_related("source"), pk=pk)
    try:
        done = batches.withdraw_batch(batch=batch, by=request.user)
    except (PermissionDenied, ValidationError) as exc:
        messages.error(request, " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc))
    else:
        text = ngettext(
            "Batch %(batch)s withdrawn: %(count)d citation deleted.",
            "Batch %(batch)s withdrawn: %(count)d citations deleted.",
            done.withdrawn,
        ) % {"batch": batch.pk, "count": done.withdrawn}
        if done.kept:
            text += " " + ngettext(
                "%(count)d was decided already and stays.", "%(count)d were decided already and stay.", done.kept
            ) % {"count": done.kept}
        messages.success(request, text)
    return redirect(_reader_url(batch.source) if batch.source else reverse("archive_curate:index"))
