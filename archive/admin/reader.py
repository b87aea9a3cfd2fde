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
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from archive.models import (
    Citation,
    Echelon,
    Event,
    EventKind,
    LocationKind,
    NameKind,
    Passage,
    Person,
    Rank,
    Status,
    Unit,
)
from archive.models.curation import Cited
from archive.models.registry import TARGET_FIELDS, cited_model
from archive.reading.kinds import likely_kind
from archive.search import admin_filter as admin_search
from archive.search.query import QueryError
from archive.services.citations import (
    CLAIM_OPTIONAL,
    CLAIM_TEMPLATES,
    ROLE_CLAIMS,
    DuplicateCitation,
    citation_create,
    offered_claim,
)
from archive.services.citations import claim_for as claim_rule
from archive.services.new_records import (
    NEW_KINDS,
    NewRecord,
    build_record,
    cite_with_new_record,
    default_name_kind,
    free_slug,
    suggested_name,
)
from archive.text import anchor
from archive.text.numbers import whole_number

TARGET_SEARCH_LIMIT = 30
BLANK: list[tuple[str, Any]] = [("", "---------")]

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
    # No kind at first: the dialog preselects what the selection names, else the kind used last,
    # and its search looks in every kind until one is chosen.
    target_type = forms.ChoiceField(
        label=gettext_lazy("Evidence for"),
        choices=[
            ("", gettext_lazy("any kind")),
            *((name, model._meta.verbose_name) for name, model in TARGET_MODELS.items()),
        ],
        initial="",
    )
    target_id = forms.IntegerField(label=gettext_lazy("Record"), widget=forms.Select, required=False)
    # A new record made with the citation: its name (the selected words by default), what
    # kind of name the words are (a person), and what its model requires.
    new_name = forms.CharField(label=gettext_lazy("Name of the new record"), max_length=200, required=False)
    new_slug = forms.SlugField(
        label=gettext_lazy("Slug"),
        max_length=100,
        required=False,
        help_text=gettext_lazy("Made from the name's pinyin; change it only if you must."),
    )
    new_words_kind = forms.ChoiceField(
        label=gettext_lazy("The selected words are"), choices=NameKind.choices, initial=NameKind.PRIMARY, required=False
    )
    new_echelon = forms.ChoiceField(label=gettext_lazy("Echelon"), choices=BLANK + Echelon.choices, required=False)
    new_location_kind = forms.ChoiceField(
        label=gettext_lazy("Kind of place"), choices=BLANK + LocationKind.choices, required=False
    )
    new_event_kind = forms.ChoiceField(
        label=gettext_lazy("Kind of event"), choices=BLANK + EventKind.choices, required=False
    )
    claim = forms.CharField(
        label=gettext_lazy("Claim"),
        max_length=500,
        required=False,
        widget=forms.TextInput(attrs={"class": "vLargeTextField", "list": "claim-templates", "autocomplete": "off"}),
        help_text=gettext_lazy(
            "What the passage says about the record, in a few words. For a person, unit or place it only names, "
            "leave it empty: it is stored as “named here”."
        ),
    )
    rank = forms.ChoiceField(label=gettext_lazy("Rank"), choices=Rank.choices, initial=Rank.NORMAL)

    def __init__(self, *args: Any, passage: Passage | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.passage = passage
        self.closest: anchor.QuoteNotFound | None = None
        self.target: models.Model | None = None
        self.new_record: NewRecord | None = None
        self.duplicate: Citation | None = None
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
        try:
            data["claim"] = claim_rule(data["target_type"], data.get("claim", ""))
        except ValidationError as exc:
            self.add_error("claim", exc.message_dict["claim"])
            return data
        if data.get("target_id") is None and data.get("new_name", "").strip():
            self._clean_new_record(data)
            return data
        model = TARGET_MODELS[data["target_type"]]
        if data.get("target_id") is not None:
            self.target = model.objects.filter(pk=data["target_id"]).first()
        if self.target is None:
            self.add_error("target_id", _("Choose a record, or make a new one."))
        return data

    def _clean_new_record(self, data: dict[str, Any]) -> None:
        if data["target_type"] not in NEW_KINDS:
            self.add_error("target_type", _("Only a person, unit, place or event can be made here."))
            return
        new = NewRecord(
            kind=data["target_type"],
            name=data["new_name"],
            words=data["quote"],
            words_kind=data.get("new_words_kind") or NameKind.PRIMARY,
            echelon=data.get("new_echelon", ""),
            location_kind=data.get("new_location_kind", ""),
            event_kind=data.get("new_event_kind", ""),
            slug=data.get("new_slug", ""),
        )
        try:
            build_record(new)
        except ValidationError as exc:
            for name, messages_ in _new_record_errors(exc, new.kind).items():
                self.add_error(name, messages_)
            return
        self.new_record = new


def _new_record_errors(exc: ValidationError, kind: str) -> dict[str | None, list[str]]:
    """The model's errors of a new record, each under the field of the form that sets it."""
    if not hasattr(exc, "error_dict"):
        return {None: exc.messages}
    fields = {
        "name": "new_name",
        "title": "new_name",
        "new_name": "new_name",
        "slug": "new_slug",
        "echelon": "new_echelon",
        "kind": "new_location_kind" if kind == "location" else "new_event_kind",
    }
    found: dict[str | None, list[str]] = {}
    for name, errors in exc.message_dict.items():
        found.setdefault(fields.get(name), []).extend(errors)
    return found


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
    number = whole_number(selected) if selected else None
    if number is not None and all(r.pk != number for r in records):
        records += list(_target_queryset(target_type).filter(pk=number))
    return [("", "---------"), *((r.pk, _record_option(r)) for r in records)]


def _record_option(record: Any) -> str:
    if record.status == Status.APPROVED:
        return str(record)
    return f"{record} ({record.get_status_display()})"


def _matching(target_type: str, qs: QuerySet[Any], term: str) -> QuerySet[Any]:
    """The records of `qs` that `term` finds by the admin's folded search (Traditional, Simplified, pinyin, aliases).

    A post or participation is found by its person, unit or event, or by its
    title or slug; those records are looked up by the same search.
    """
    if target_type in NEW_KINDS:
        return admin_search.filter_queryset(qs, term)
    person_ids = admin_search.filter_queryset(Person.objects.all(), term).values("pk")
    unit_ids = admin_search.filter_queryset(Unit.objects.all(), term).values("pk")
    by_related = Q(person__in=person_ids) | Q(unit__in=unit_ids) | Q(slug__icontains=term)
    if target_type == "post":
        return qs.filter(by_related | Q(title__icontains=term))
    event_ids = admin_search.filter_queryset(Event.objects.all(), term).values("pk")
    return qs.filter(by_related | Q(event__in=event_ids))


def target_search(request: HttpRequest) -> JsonResponse:
    """Records a citation may rest on, matching `q`, for the citation form's record list."""
    target_type = request.GET.get("type", "")
    term = request.GET.get("q", "").strip()
    if target_type == "":
        return _search_every_kind(term)
    if target_type not in TARGET_MODELS:
        return JsonResponse({"error": _("Unknown record type “%(type)s”.") % {"type": target_type}}, status=400)
    qs = _target_queryset(target_type)
    if term:
        try:
            qs = _matching(target_type, qs, term)
        except QueryError as exc:
            return JsonResponse({"error": exc.message}, status=400)
    results = [_result(target_type, r) for r in qs[:TARGET_SEARCH_LIMIT]]
    return JsonResponse({"results": results})


def _result(target_type: str, record: Any, *, labelled: bool = False) -> dict[str, Any]:
    text = _record_option(record)
    found = {"id": record.pk, "kind": target_type, "status": record.status,
             "text": f"{record._meta.verbose_name}: {text}" if labelled else text}
    if target_type == "participation" and record.role in ROLE_CLAIMS:
        found["claim"] = offered_claim(ROLE_CLAIMS[record.role])
    return found


# Each kind's share of a search in every kind: the list stays short, every kind gets its place.
_PER_KIND = 8


def _search_every_kind(term: str) -> JsonResponse:
    """Records of every kind that `term` finds, each labelled with its kind: the search before a kind is chosen."""
    if not term:
        return JsonResponse({"results": []})
    results: list[dict[str, Any]] = []
    try:
        for target_type in TARGET_MODELS:
            qs = _matching(target_type, _target_queryset(target_type), term)
            results += [_result(target_type, r, labelled=True) for r in qs[:_PER_KIND]]
    except QueryError as exc:
        return JsonResponse({"error": exc.message}, status=400)
    return JsonResponse({"results": results})


def kind_of_selection(request: HttpRequest) -> JsonResponse:
    """What the selected `words` most likely name (person, unit, place or nothing), and the records so named."""
    guess = likely_kind(request.GET.get("words", "")[:200])
    return JsonResponse({"kind": guess.kind, "ids": guess.ids})


def claims_json() -> str:
    """What the dialog offers as claims (templates per kind) and which kinds may leave the claim empty."""
    return json.dumps(
        {
            "templates": {kind: [offered_claim(t) for t in found] for kind, found in CLAIM_TEMPLATES.items()},
            "optional": sorted(CLAIM_OPTIONAL),
        },
        ensure_ascii=False,
    )


def new_record_defaults(request: HttpRequest) -> JsonResponse:
    """What the cite dialog prefills for a new record: its name from the selected words, its slug, the kind of name."""
    kind = request.GET.get("type", "")
    if kind not in NEW_KINDS:
        return JsonResponse({"error": _("Unknown record type “%(type)s”.") % {"type": kind}}, status=400)
    words = request.GET.get("words", "")[:200].strip()
    name = request.GET.get("name", "")[:200].strip() or suggested_name(words)
    model = TARGET_MODELS[kind]
    slug = free_slug(model, name, kind=kind) if name else ""
    return JsonResponse({"name": name, "slug": slug, "words_kind": default_name_kind(words)})


def cite(request: HttpRequest, pk: int) -> HttpResponse:
    """The citation form of one passage: GET with `?start=&end=` (UTF-16), POST to save."""
    passage = get_object_or_404(Passage.objects.select_related("source"), pk=pk)
    if not request.user.has_perm("archive.add_citation"):
        raise PermissionDenied
    reader_url = reverse("archive_curate:reader", args=[passage.source.slug])
    back = request.POST.get("next") or request.GET.get("next") or ""
    if request.method == "POST":
        form = CitationForm(request.POST, passage=passage)
        if form.is_valid() and form.codepoints and (form.target is not None or form.new_record is not None):
            saved = _save_citation(request, passage, form)
            if saved is not None:
                return redirect(back_to_reader(passage, back))
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
        duplicate_url=admin_change_url(form.duplicate) if form.duplicate else None,
        next_url=back if back.startswith(reader_url) else "",
        back_url=back_to_reader(passage, back),
        claims_json=claims_json(),
    )
    return render(request, "archive/curate/cite.html", context, status=status)


def _save_citation(request: HttpRequest, passage: Passage, form: CitationForm) -> Citation | None:
    """Save the form's citation (and its new record); on a refusal, the reason goes on the form."""
    data = form.cleaned_data
    submit = "_submit" in request.POST
    assert form.codepoints is not None
    start, end = form.codepoints
    common = {"passage": passage, "quote": data["quote"], "start": start, "end": end, "claim": data["claim"],
              "rank": data["rank"], "by": request.user, "submit": submit}
    if form.new_record is not None and not request.user.has_perm(f"archive.add_{form.new_record.kind}"):
        form.add_error(None, _("You may not make a new record of this kind."))
        return None
    try:
        if form.new_record is not None:
            record, citation = cite_with_new_record(new=form.new_record, **common)
        else:
            assert form.target is not None
            citation = citation_create(target_type=data["target_type"], target=form.target, **common)
            record = None
    except DuplicateCitation as exc:
        form.duplicate = exc.existing
        form.add_error(None, exc.messages[0])
        return None
    except ValidationError as exc:
        for message in exc.messages:
            form.add_error(None, message)
        return None
    if record is not None:
        text = (
            _("%(record)s made and cited by “%(quote)s”; both submitted for review.")
            if submit
            else _("%(record)s made and cited by “%(quote)s”; both saved as drafts.")
        )
        messages.success(request, text % {"record": record, "quote": citation.quote})
    else:
        text = (
            _("Citation “%(quote)s” saved and submitted for review.")
            if submit
            else _("Citation “%(quote)s” saved as a draft.")
        )
        messages.success(request, text % {"quote": citation.quote})
    return citation


def passage_url(passage: Passage, *, focus: bool = False) -> str:
    """The passage in the reader: `seq` makes the reader open the page that holds it, at its anchor.

    With `focus`, the passage is marked and the messages of what was just done there are shown beside it.
    """
    reader_url = reverse("archive_curate:reader", args=[passage.source.slug])
    extra = f"&focus={passage.seq}" if focus else ""
    return f"{reader_url}?seq={passage.seq}{extra}#passage-{passage.seq}"


# What the reader's URL says of where the curator was that is not a filter, a page or a passage size.
_NOT_KEPT = ("seq", "focus")


def back_to_reader(passage: Passage, back: str) -> str:
    """The reader as the curator left it (`back`: its filters, page and size), at `passage`, marked.

    The passage is not looked up again (`seq`): a filter such as "uncited"
    may hide it now that it is cited, and the reader would clear the filters
    to show it. The same page keeps the curator's place; the messages go to
    its top when the passage left it. A `back` that is not this source's
    reader gives the passage's page in the plain reader.
    """
    reader_url = reverse("archive_curate:reader", args=[passage.source.slug])
    path, _sep, query = back.partition("#")[0].partition("?")
    if path != reader_url:
        return passage_url(passage, focus=True)
    kept = [(key, value) for key, value in parse_qsl(query, keep_blank_values=True) if key not in _NOT_KEPT]
    kept.append(("focus", str(passage.seq)))
    return f"{reader_url}?{urlencode(kept)}#passage-{passage.seq}"


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
