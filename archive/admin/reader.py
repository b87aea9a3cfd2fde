"""The source reader: curators read a source and cite it by selecting words.

Citations are the heart of the archive, and typing offsets by hand is where
they go wrong. Here the curator selects a phrase in a passage; the browser
sends the selection's offsets in UTF-16 units (the only unit the DOM knows),
the server converts them to code points with `anchor.utf16_to_codepoint`,
verifies the quote with `anchor.locate` and saves the citation as a draft
through `Citation.full_clean()`. The reader also shows what already rests on
each passage, so a curator sees what is cited before citing it again.

The helpers that render a passage with its cited spans marked live here and
are shared by the review queue and the side-by-side accounts.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import models
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from archive.models import (
    Citation,
    Curated,
    Event,
    Passage,
    Rank,
    Revision,
    Source,
    Status,
)
from archive.models.curation import Cited
from archive.models.registry import CURATED_MODELS, TARGET_FIELDS, cited_model
from archive.services.citations import citation_create
from archive.text import anchor

PASSAGES_PER_PAGE = 100
TARGET_SEARCH_LIMIT = 30

# The models a citation can rest on, by the name of the citation's field.
TARGET_MODELS: dict[str, type[Cited]] = {field: cited_model(field) for field in TARGET_FIELDS}

# What a citation needs joined to name its target without further queries.
CITATION_RELATED = (
    "person",
    "unit",
    "location",
    "event",
    "post__person",
    "post__unit",
    "participation__event",
    "participation__person",
    "participation__unit",
)

# When spans of several statuses overlap, the mark takes the first of these.
_STATUS_PRIORITY = (Status.APPROVED, Status.IN_REVIEW, Status.DRAFT, Status.REJECTED)


def admin_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    """The context the admin's own templates expect (header, sidebar, user links)."""
    return {**admin.site.each_context(request), **extra}


def admin_change_url(record: models.Model) -> str | None:
    """The admin page of a record, or None while its ModelAdmin is not registered."""
    meta = record._meta
    try:
        return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[record.pk])
    except NoReverseMatch:
        return None


def admin_add_url(model: type[models.Model]) -> str | None:
    meta = model._meta
    try:
        return reverse(f"admin:{meta.app_label}_{meta.model_name}_add")
    except NoReverseMatch:
        return None


def target_label(citation: Citation) -> str:
    """“event: 唐生智离开南京”: the kind and name of the record a citation is evidence for."""
    target = citation.target
    if target is None:
        return ""
    return f"{target._meta.verbose_name}: {target}"


def citation_title(citation: Citation) -> str:
    """The tooltip of a cited span: what it cites, the claim, rank and status."""
    return _("%(target)s — “%(claim)s” (%(rank)s, %(status)s)") % {
        "target": target_label(citation),
        "claim": citation.claim,
        "rank": citation.get_rank_display(),
        "status": citation.get_status_display(),
    }


@dataclass
class Span:
    """A span of a passage to mark, in code points."""

    start: int
    end: int
    status: str = ""
    title: str = ""
    ids: list[int] = field(default_factory=list)
    extra_class: str = ""


def highlighted(text: str, spans: Sequence[Span]) -> SafeString:
    """The passage text as HTML, with every span wrapped in a <mark>.

    Overlapping spans are cut at every boundary, so the marks never nest and
    the element's text content stays exactly the passage text: the browser
    measures a selection against that text, character for character.
    """
    cuts = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans)})
    parts: list[str] = []
    for lo, hi in itertools.pairwise(cuts):
        if lo >= hi or lo < 0 or hi > len(text):
            continue
        covering = [s for s in spans if s.start <= lo and hi <= s.end]
        piece = escape(text[lo:hi])
        if not covering:
            parts.append(piece)
            continue
        statuses = {s.status for s in covering}
        status = next((st for st in _STATUS_PRIORITY if st in statuses), "")
        classes = ["cite"]
        if status:
            classes.append(f"cite-{status}")
        if len(covering) > 1:
            classes.append("cite-overlap")
        classes.extend(s.extra_class for s in covering if s.extra_class)
        title = "\n".join(s.title for s in covering if s.title)
        ids = " ".join(str(i) for s in covering for i in s.ids)
        parts.append(
            format_html(
                '<mark class="{}" title="{}" data-citations="{}">{}</mark>',
                " ".join(dict.fromkeys(classes)),
                title,
                ids,
                mark_safe(piece),  # already escaped above
            )
        )
    return mark_safe("".join(parts))


def passage_with_citations(passage: Passage, citations: Iterable[Citation]) -> SafeString:
    spans = [
        Span(c.start, c.end, status=c.status, title=citation_title(c), ids=[c.pk])
        for c in citations
        if 0 <= c.start < c.end <= len(passage.text)
    ]
    return highlighted(passage.text, spans)


def passage_with_quote(passage: Passage, start: int, end: int, *, css: str = "") -> SafeString:
    """The whole passage with one quote marked (the review queue, the accounts)."""
    return highlighted(passage.text, [Span(start, end, extra_class=css)])


def citations_queryset() -> QuerySet[Citation]:
    return Citation.objects.select_related(*CITATION_RELATED)


# ---------------------------------------------------------------------------
# The index of the curators' pages


def index(request: HttpRequest) -> HttpResponse:
    sources = Source.objects.annotate(
        passage_count=Count("passages", distinct=True),
        citation_count=Count("passages__citations", distinct=True),
    ).order_by("title", "slug")
    events = Event.objects.annotate(
        citation_count=Count("citations", distinct=True),
        participation_citation_count=Count("participations__citations", distinct=True),
    )
    in_review = sum(model.objects.filter(status=Status.IN_REVIEW).count() for model in _curated_models())
    return render(
        request,
        "archive/curate/index.html",
        admin_context(
            request,
            title=_("Curators' pages"),
            sources=sources,
            events=events,
            in_review=in_review,
            changes_in_review=Revision.objects.pending().count(),
        ),
    )


def _curated_models() -> tuple[type[Curated], ...]:
    return CURATED_MODELS


# ---------------------------------------------------------------------------
# The reader


def reader(request: HttpRequest, slug: str) -> HttpResponse:
    source = get_object_or_404(Source, slug=slug)
    passages = (
        source.passages.select_related("quotes")
        .prefetch_related(
            Prefetch(
                "citations",
                # The reviewer named beside a rejection's note.
                queryset=citations_queryset().select_related("reviewed_by").order_by("start", "end", "id"),
            )
        )
        .order_by("seq")
    )
    page = Paginator(passages, PASSAGES_PER_PAGE).get_page(request.GET.get("page"))
    rows = []
    for passage in page.object_list:
        cited = list(passage.citations.all())
        rows.append(
            {
                "passage": passage,
                "html": passage_with_citations(passage, cited),
                "citations": [
                    {"citation": c, "label": target_label(c), "url": admin_change_url(c), "event": _event_of(c)}
                    for c in cited
                ],
                "cite_url": reverse("archive_curate:cite", args=[passage.pk]),
            }
        )
    can_cite = request.user.has_perm("archive.add_citation")
    context = admin_context(
        request,
        title=_("Reader: %(title)s") % {"title": source.title},
        source=source,
        page=page,
        rows=rows,
        can_cite=can_cite,
        form=CitationForm(passage=None) if can_cite else None,
        add_urls=_add_urls(),
        statuses=Status,
    )
    return render(request, "archive/curate/reader.html", context)


def _event_of(citation: Citation) -> Event | None:
    if citation.event_id:
        return citation.event
    if (participation := citation.participation) is not None:
        return participation.event
    return None


def _add_urls() -> list[tuple[str, str]]:
    urls = []
    for name, model in TARGET_MODELS.items():
        url = admin_add_url(model)
        if url:
            urls.append((name, url))
    return urls


# ---------------------------------------------------------------------------
# Citing a selection


class CitationForm(forms.Form):
    """A citation of a selection; `start`/`end` arrive in UTF-16 units, as the browser counts."""

    start = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    end = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    quote = forms.CharField(
        label=gettext_lazy("Quote"),
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "vLargeTextField"}),
        help_text=gettext_lazy("The words you selected; they must be the passage's own."),
    )
    target_type = forms.ChoiceField(
        label=gettext_lazy("Evidence for"),
        choices=[(name, model._meta.verbose_name) for name, model in TARGET_MODELS.items()],
        initial="event",
    )
    target_id = forms.IntegerField(label=gettext_lazy("Record"), widget=forms.Select)
    claim = forms.CharField(
        label=gettext_lazy("Claim"),
        max_length=500,
        widget=forms.TextInput(attrs={"class": "vLargeTextField"}),
        help_text=gettext_lazy("What the passage says about the record, in a few words."),
    )
    rank = forms.ChoiceField(label=gettext_lazy("Rank"), choices=Rank.choices, initial=Rank.NORMAL)

    def __init__(self, *args: Any, passage: Passage | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.passage = passage
        self.closest: anchor.QuoteNotFound | None = None
        self.target: models.Model | None = None
        self.codepoints: tuple[int, int] | None = None
        target_type = self.data.get("target_type") or self["target_type"].initial
        self.fields["target_id"].widget.choices = _target_choices(target_type, self.data.get("target_id"))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.passage is None or self.errors:
            return data
        text = self.passage.text
        try:
            start = anchor.utf16_to_codepoint(text, data["start"])
            end = anchor.utf16_to_codepoint(text, data["end"])
        except ValueError:
            raise ValidationError(
                _("The selection does not fall on whole characters of passage %(passage)s.") % {"passage": self.passage}
            ) from None
        if end <= start:
            raise ValidationError(_("The selection is empty."))
        try:
            found = anchor.locate(text, data["quote"], hint_start=start)
        except anchor.QuoteNotFound as exc:
            self.closest = exc
            self.add_error(
                "quote",
                _("The quote is not in passage %(passage)s. Closest match: “%(closest)s”.")
                % {"passage": self.passage, "closest": exc.closest},
            )
            return data
        except anchor.AmbiguousQuote:
            self.add_error("quote", _("The quote occurs several times in the passage; select the one you mean."))
            return data
        except ValueError:
            self.add_error("quote", _("The quote is empty."))
            return data
        self.codepoints = (found.start, found.end)
        data["quote"] = found.exact
        model = TARGET_MODELS[data["target_type"]]
        self.target = model.objects.filter(pk=data["target_id"]).first()
        if self.target is None:
            self.add_error("target_id", _("Choose a record."))
        return data


def _target_queryset(target_type: str) -> QuerySet[Any]:
    model = TARGET_MODELS[target_type]
    qs = model.objects.exclude(status=Status.REJECTED)
    if target_type == "post":
        qs = qs.select_related("person", "unit")
    elif target_type == "participation":
        qs = qs.select_related("event", "person", "unit")
    return qs


def _target_choices(target_type: str, selected: Any) -> list[tuple[Any, str]]:
    """The first records of a type, and the selected one, as select options."""
    if target_type not in TARGET_MODELS:
        return [("", "---------")]
    records = list(_target_queryset(target_type)[:TARGET_SEARCH_LIMIT])
    if selected and str(selected).isdigit() and all(str(r.pk) != str(selected) for r in records):
        records += list(_target_queryset(target_type).filter(pk=selected))
    return [("", "---------"), *((r.pk, _record_option(r)) for r in records)]


def _record_option(record: Any) -> str:
    if record.status == Status.APPROVED:
        return str(record)
    return f"{record} ({record.get_status_display()})"


def _search_filter(target_type: str, term: str) -> Q:
    if target_type == "person":
        return Q(name__icontains=term) | Q(names__name__icontains=term) | Q(slug__icontains=term)
    if target_type in ("unit", "location"):
        return Q(name__icontains=term) | Q(aliases__name__icontains=term) | Q(slug__icontains=term)
    if target_type == "event":
        return Q(title__icontains=term) | Q(slug__icontains=term) | Q(date_text__icontains=term)
    if target_type == "post":
        return (
            Q(title__icontains=term)
            | Q(person__name__icontains=term)
            | Q(unit__name__icontains=term)
            | Q(slug__icontains=term)
        )
    return (
        Q(event__title__icontains=term)
        | Q(person__name__icontains=term)
        | Q(unit__name__icontains=term)
        | Q(slug__icontains=term)
    )


def target_search(request: HttpRequest) -> JsonResponse:
    """Records a citation may rest on, matching `q`, for the citation form's record list."""
    target_type = request.GET.get("type", "")
    if target_type not in TARGET_MODELS:
        return JsonResponse({"error": _("Unknown record type “%(type)s”.") % {"type": target_type}}, status=400)
    term = request.GET.get("q", "").strip()
    qs = _target_queryset(target_type)
    if term:
        ids = TARGET_MODELS[target_type].objects.filter(_search_filter(target_type, term)).values("pk")
        qs = qs.filter(pk__in=ids)
    results = [{"id": r.pk, "text": _record_option(r), "status": r.status} for r in qs[:TARGET_SEARCH_LIMIT]]
    return JsonResponse({"results": results})


def cite(request: HttpRequest, pk: int) -> HttpResponse:
    """The citation form of one passage: GET with `?start=&end=` (UTF-16), POST to save."""
    passage = get_object_or_404(Passage.objects.select_related("source"), pk=pk)
    if not request.user.has_perm("archive.add_citation"):
        raise PermissionDenied
    reader_url = reverse("archive_curate:reader", args=[passage.source.slug])
    if request.method == "POST":
        form = CitationForm(request.POST, passage=passage)
        if form.is_valid() and form.codepoints and form.target is not None:
            data = form.cleaned_data
            submit = "_submit" in request.POST
            try:
                citation = citation_create(
                    passage=passage,
                    quote=data["quote"],
                    start=form.codepoints[0],
                    end=form.codepoints[1],
                    target_type=data["target_type"],
                    target=form.target,
                    claim=data["claim"],
                    rank=data["rank"],
                    by=request.user,
                    submit=submit,
                )
            except ValidationError as exc:
                for message in exc.messages:
                    form.add_error(None, message)
            else:
                text = (
                    _("Citation “%(quote)s” saved and submitted for review.")
                    if submit
                    else _("Citation “%(quote)s” saved as a draft.")
                )
                messages.success(request, text % {"quote": citation.quote})
                return redirect(passage_url(passage))
        status = 200
    else:
        form, status = _form_from_selection(request, passage)
    context = admin_context(
        request,
        title=_("Cite passage %(passage)s") % {"passage": passage},
        passage=passage,
        form=form,
        reader_url=reader_url,
        passage_html=_passage_for_form(passage, form),
        add_urls=_add_urls(),
    )
    return render(request, "archive/curate/cite.html", context, status=status)


def _page_query(passage: Passage) -> str:
    return f"page={(passage.seq - 1) // PASSAGES_PER_PAGE + 1}"


def passage_url(passage: Passage) -> str:
    """The passage in the reader: its page and its anchor."""
    reader_url = reverse("archive_curate:reader", args=[passage.source.slug])
    return f"{reader_url}?{_page_query(passage)}#passage-{passage.seq}"


def _form_from_selection(request: HttpRequest, passage: Passage) -> tuple[CitationForm, int]:
    """Prefill the form from a selection given in UTF-16 offsets."""
    text = passage.text
    try:
        start16 = int(request.GET.get("start", ""))
        end16 = int(request.GET.get("end", ""))
        start = anchor.utf16_to_codepoint(text, start16)
        end = anchor.utf16_to_codepoint(text, end16)
    except ValueError:
        form = CitationForm(passage=passage)
        form.selection_error = _(  # type: ignore[attr-defined]  # set here for a later reader
            "Select the words to cite in the passage: the selection is missing or does not fall on whole characters."
        )
        return form, 400 if "start" in request.GET or "end" in request.GET else 200
    if end <= start:
        form = CitationForm(passage=passage)
        form.selection_error = _("The selection is empty.")  # type: ignore[attr-defined]  # set here for a later reader
        return form, 400
    initial: dict[str, Any] = {"start": start16, "end": end16, "quote": text[start:end]}
    if request.GET.get("target_type") in TARGET_MODELS:
        initial["target_type"] = request.GET["target_type"]
    form = CitationForm(initial=initial, passage=passage)
    if "target_type" in initial:
        form.fields["target_id"].widget.choices = _target_choices(initial["target_type"], None)
    form.codepoints = (start, end)
    return form, 200


def _passage_for_form(passage: Passage, form: CitationForm) -> SafeString:
    spans = []
    if form.codepoints:
        spans.append(Span(*form.codepoints, extra_class="cite-selection"))
    if form.closest is not None and form.closest.closest_end > form.closest.closest_start:
        spans.append(
            Span(
                form.closest.closest_start,
                form.closest.closest_end,
                title=_("closest match"),
                extra_class="cite-closest",
            )
        )
    return highlighted(passage.text, spans)
