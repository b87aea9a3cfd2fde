"""The reader's suggested mentions: cite one with a click, or every one of a source as drafts in one batch."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.models import Passage, Source
from archive.services.mentions import cite_all_mentions, cite_mention

from .reader import back_to_reader


def _may_cite(request: HttpRequest) -> None:
    if not request.user.has_perm("archive.add_citation"):
        raise PermissionDenied


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


def cite_all(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: draft citations of every unambiguous suggested mention of the source, in one transaction."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    _may_cite(request)
    source = get_object_or_404(Source, slug=slug)
    back = redirect(reverse("archive_curate:reader", args=[source.slug]))
    try:
        batch = cite_all_mentions(source=source, by=request.user)
    except ValidationError as exc:  # one refused citation undoes the batch; say which and why
        messages.error(request, " ".join(exc.messages))
        return back
    text = ngettext(
        "%(count)d draft citation made from the suggested mentions; check it, then submit it for review.",
        "%(count)d draft citations made from the suggested mentions; check them, then submit them for review.",
        len(batch.created),
    ) % {"count": len(batch.created)}
    messages.success(request, text)
    if batch.ambiguous:
        messages.warning(
            request,
            ngettext(
                "%(count)d name belongs to more than one record and was left for you to cite.",
                "%(count)d names belong to more than one record and were left for you to cite.",
                batch.ambiguous,
            )
            % {"count": batch.ambiguous},
        )
    return back
