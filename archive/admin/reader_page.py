"""The source reader's page and the curators' index: a page of passages, what rests on each, what is left to cite.

The reader shows a short page of passages (20 by default) with their cited
spans marked, each passage's citations folded into a count by status and
listed beside the text when opened, and the names of known records that the
passage does not cite yet (`archive.reading.mentions`). What the curator
narrows it to (uncited passages, their own citations, a status, a kind of
record, fiction, words of the text) and the passage to jump to are all in the
URL (`archive.reading.passages.ReaderFilters`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from archive.models import Batch, Citation, Event, Revision, Source, Status
from archive.models.registry import CURATED_MODELS, TARGET_FIELDS
from archive.reading import coverage, mentions
from archive.reading.passages import PAGE_SIZES, ReaderFilters, reader_passages
from archive.search import admin_filter as admin_search
from archive.search.query import QueryError
from archive.selectors import my_drafts_of_source
from archive.text.numbers import whole_number

from .citations import field_label
from .reader import (
    CitationForm,
    Span,
    admin_change_url,
    admin_context,
    citation_title,
    citations_queryset,
    claims_json,
    highlighted,
    target_label,
)

SOURCES_PER_PAGE = 20
_STATUS_ORDER = (Status.APPROVED, Status.IN_REVIEW, Status.DRAFT, Status.REJECTED)


# ---------------------------------------------------------------------------
# The index of the curators' pages


def index(request: HttpRequest) -> HttpResponse:
    term = request.GET.get("q", "").strip()
    sources: QuerySet[Source] = Source.objects.order_by("title", "slug")
    if term:
        try:
            sources = admin_search.filter_queryset(sources, term)
        except QueryError as exc:
            messages.error(request, exc.message)
    page = Paginator(sources, SOURCES_PER_PAGE).get_page(request.GET.get("page"))
    shares = coverage.of_sources([s.pk for s in page.object_list], with_mentions=True)
    rows = [{"source": s, "coverage": shares[s.pk]} for s in page.object_list]
    events = Event.objects.annotate(
        citation_count=Count("citations", distinct=True),
        participation_citation_count=Count("participations__citations", distinct=True),
    )
    in_review = sum(model.objects.filter(status=Status.IN_REVIEW).count() for model in CURATED_MODELS)
    return render(
        request,
        "archive/curate/index.html",
        admin_context(
            request,
            title=_("Curators' pages"),
            rows=rows,
            page=page,
            page_query=urlencode({"q": term}) + "&" if term else "",
            term=term,
            events=events,
            in_review=in_review,
            changes_in_review=Revision.objects.pending().count(),
        ),
    )


# ---------------------------------------------------------------------------
# The reader


def _jump(request: HttpRequest, source: Source, filters: ReaderFilters, passages: QuerySet[Any]) -> HttpResponse | None:
    """`?seq=N`: the page that holds §N under the current filters, or without them if they hide it."""
    wanted = request.GET.get("seq", "").strip().lstrip("§")
    if not wanted:
        return None
    base = reverse("archive_curate:reader", args=[source.slug])
    # Nine digits at most: a larger number is no passage, and PostgreSQL would refuse it as an integer.
    seq = whole_number(wanted, max_digits=9)
    if seq is None or not source.passages.filter(seq=seq).exists():
        messages.error(request, _("This source has no passage §%(seq)s.") % {"seq": wanted[:20]})
        return redirect(f"{base}?{filters.as_query()}")
    query = filters.as_query()
    if not passages.filter(seq=seq).exists():
        messages.warning(request, _("§%(seq)s is hidden by the filters; they are cleared.") % {"seq": seq})
        filters = ReaderFilters(page_size=filters.page_size)
        passages = reader_passages(source, filters, request.user)
        query = filters.as_query()
    before = passages.filter(seq__lt=seq).count()
    page = before // filters.page_size + 1
    focus = whole_number(request.GET.get("focus", ""), max_digits=9)
    extra = f"&focus={focus if focus is not None else seq}"
    return redirect(f"{base}?{query}{'&' if query else ''}page={page}{extra}#passage-{seq}")


def _counts(citations: list[Citation]) -> list[tuple[str, Any, int]]:
    counted = Counter(c.status for c in citations)
    return [(status.value, status.label, counted[status]) for status in _STATUS_ORDER if counted[status]]


def _rows(page_passages: list[Any], chosen_ids: set[int] | None) -> list[dict[str, Any]]:
    suggested = mentions.suggestions(page_passages)
    rows = []
    for passage in page_passages:
        cited = list(passage.citations.all())
        found = suggested.get(passage.pk, [])
        spans = [
            Span(c.start, c.end, status=c.status, title=citation_title(c), ids=[c.pk])
            for c in cited
            if 0 <= c.start < c.end <= len(passage.text)
        ]
        spans += [
            Span(s.start, s.end, title=_("suggested: %(name)s") % {"name": s.label}, extra_class="mention")
            for s in found
        ]
        shown = [c for c in cited if chosen_ids is None or c.pk in chosen_ids]
        rows.append(
            {
                "passage": passage,
                "html": highlighted(passage.text, spans),
                "counts": _counts(cited),
                "citations": [
                    {"citation": c, "label": target_label(c), "url": admin_change_url(c), "event": _event_of(c)}
                    for c in shown
                ],
                "hidden": len(cited) - len(shown),
                "suggestions": found,
                "cite_url": reverse("archive_curate:cite", args=[passage.pk]),
                "mention_url": reverse("archive_curate:cite_mention", args=[passage.pk]),
            }
        )
    return rows


def _event_of(citation: Citation) -> Event | None:
    if citation.event_id:
        return citation.event
    if (participation := citation.participation) is not None:
        return participation.event
    return None


def open_batches(source: Source, user: Any) -> list[Batch]:
    """The user's batches of `source` that still hold items nobody has decided, with how many."""
    undecided = Count("citations", filter=Q(citations__status__in=(Status.DRAFT, Status.IN_REVIEW)))
    return list(
        Batch.objects.filter(source=source, created_by=user, withdrawn_at__isnull=True)
        .annotate(undecided=undecided)
        .filter(undecided__gt=0)
        .order_by("-created_at")[:5]
    )


def reader(request: HttpRequest, slug: str) -> HttpResponse:
    source = get_object_or_404(Source, slug=slug)
    filters = ReaderFilters.from_query(request.GET)
    passages = reader_passages(source, filters, request.user)
    if (jump := _jump(request, source, filters, passages)) is not None:
        return jump
    for error in filters.errors:
        messages.error(request, error)
    passages = passages.select_related("quotes").prefetch_related(
        Prefetch(
            "citations",
            # The reviewer named beside a rejection's note.
            queryset=citations_queryset().select_related("reviewed_by").order_by("start", "end", "id"),
        )
    )
    page = Paginator(passages, filters.page_size).get_page(request.GET.get("page"))
    page_passages = list(page.object_list)
    chosen_ids = None
    if filters.on_citations:
        chosen_ids = set(
            Citation.objects.filter(filters.citation_q(request.user), passage__in=[p.pk for p in page_passages])
            .values_list("pk", flat=True)
        )
    can_cite = request.user.has_perm("archive.add_citation")
    focus = whole_number(request.GET.get("focus", ""), max_digits=9)
    # The messages go beside the passage just cited, if it is on this page; else at the top.
    shown = {p.seq for p in page_passages}
    query = filters.as_query()
    context = admin_context(
        request,
        title=_("Reader: %(title)s") % {"title": source.title},
        source=source,
        page=page,
        page_query=f"{query}&" if query else "",
        rows=_rows(page_passages, chosen_ids),
        filters=filters,
        coverage=coverage.of_sources([source.pk], with_mentions=True)[source.pk],
        focus=focus if focus in shown else None,
        can_cite=can_cite,
        form=CitationForm(passage=None) if can_cite else None,
        claims_json=claims_json() if can_cite else "",
        statuses=Status,
        kinds=[(name, field_label(Citation, name)) for name in TARGET_FIELDS],
        page_sizes=PAGE_SIZES,
        batch_url=reverse("archive_curate:cite_all_mentions", args=[source.slug]),
        my_drafts=my_drafts_of_source(source, request.user).count() if can_cite else 0,
        my_batches=open_batches(source, request.user) if can_cite else [],
        here=request.get_full_path(),
    )
    return render(request, "archive/curate/reader.html", context)
