"""Room pages as published at a moment, in a release or as a version: `?as_of=`, `?release=`, `?version=`.

A record page takes any of the three; the lists of the home page take
``as_of`` or ``release`` and list the records published then, each linked to
the version listed. The state comes from `archive.mementos`, the same
reading the API answers with, so a page and its data agree. The page says it
is not the current version and links to it; ``Memento-Datetime`` and
``Link`` mark it as a memento (RFC 7089); its "cite this" cites what was
read: the record's version, or the release or moment of a list.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from archive import mementos
from archive.models import (
    Curated,
    Event,
    Location,
    NameKind,
    ParticipationRole,
    Passage,
    Person,
    Rank,
    Source,
    StatementField,
    Unit,
)
from archive.models.registry import FictionMode
from archive.room import citing, reading
from archive.room.links import EDITION_PAGE, edition_page, page_url, passage_url

# Fields a reader does not read as the record's content: bookkeeping, or shown elsewhere on the page.
_NOT_SHOWN = {"slug", "status", "version", "created_at", "updated_at", "reviewed_at", "name", "title",
              "description", "history_id", "history_date", "history_type", "history_change_reason"}


def _facts(model: type[Curated], document: dict[str, Any]) -> list[tuple[str, Any]]:
    """The record's other own fields then, by their names, leaving out links to other records and empty ones."""
    facts = []
    for field in model._meta.concrete_fields:
        value = document.get(field.attname)
        if field.attname in _NOT_SHOWN or field.is_relation or value in (None, "", [], {}):
            continue
        if field.choices:
            value = dict(field.flatchoices).get(value, value)
        elif isinstance(value, bool):
            value = _("yes") if value else _("no")
        facts.append((str(field.verbose_name), value))
    return facts


def _names(document: dict[str, Any]) -> list[dict[str, str]]:
    """The names then, each kind by its label in the reader's language."""
    kinds = dict(NameKind.choices)
    return [{"name": str(name.get("name", "")), "kind": str(kinds.get(name.get("kind", ""), name.get("kind", "")))}
            for name in document.get("names") or document.get("aliases") or []]


def _citations(document: dict[str, Any], mode: FictionMode) -> list[dict[str, Any]]:
    """The citations published then, each linked to its passage in the current edition of its source."""
    cited = document.get("citations", [])
    passages = Passage.objects.filter(pk__in={c["passage"] for c in cited}).select_related("source").only(
        "pk", "seq", "source__slug", "source__title", "source__is_fiction")
    by_pk = {passage.pk: passage for passage in passages}
    shown = []
    for citation in cited:
        passage = by_pk.get(citation["passage"])
        if passage is None or not mode.nested.shows(passage.source.is_fiction):
            continue
        shown.append({"citation": citation, "passage": passage, "url": passage_url(passage, mode)})
    return shown


def _accounts(statements: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The statements then, each field and rank by its label in the reader's language."""
    fields, ranks = dict(StatementField.choices), dict(Rank.choices)
    return [{"field": str(fields.get(s["field"], s["field"])), "value": s["as_written"] or s["value"],
             "rank": str(ranks.get(s["rank"], s["rank"])), "note": s["note"]} for s in statements]


def _nested(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A person's posts or an event's participations then, with their accounts and the records they name."""
    roles = dict(ParticipationRole.choices)
    shown = []
    for item in document.get("posts") or document.get("participations") or []:
        shown.append({**item, "role": str(roles.get(item.get("role", ""), item.get("role", ""))),
                      "accounts": _accounts(item["statements"])})
    return shown


def page(request: HttpRequest, mode: FictionMode, model: type[Curated], slug: str, route: str) -> HttpResponse:
    """The record ``slug`` as published then; a value that cannot be read is the room's 400 naming it."""
    try:
        found = mementos.published(model, slug, request.GET)
    except mementos.BadValue as bad:
        raise reading.BadParameter(bad.name, bad.message) from bad
    state = found.state
    # Whether a record is fiction is derived, not kept in its history: its current flag decides.
    fictional = bool(model._default_manager.filter(pk=state.id).values_list("fictional", flat=True).first())
    if not mode.shows(fictional):
        raise Http404(_("No record has this name."))
    document = mementos.document(model, state, found.read_at)
    current = page_url(route, state.slug, mode)
    permanent = reverse(route, kwargs={"slug": state.slug}) + f"?version={state.version}"
    context_heading = document.get("name") or document.get("title") or state.slug
    context = {
        "state": state,
        "fictional": fictional,
        "heading": document.get("name") or document.get("title") or state.slug,
        "document": document,
        "facts": _facts(model, document),
        "names": _names(document),
        "citations": _citations(document, mode),
        "accounts": _accounts(document.get("statements", [])),
        "nested": _nested(document),
        "current_url": current,
        "permanent_url": permanent,
        "revision": mementos.changed_by(model, state.id, state.version),
        "read_at": found.read_at if "as_of" in request.GET else None,
        "mode": mode,
        "fiction_on": mode is not FictionMode.EXCLUDE,
        "keep": reading.query_suffix(mode),
        "reference": citing.for_page(citing.of_record(
            request, model, slug=state.slug, name=str(context_heading), version=state.version,
            published=state.history_date, description=document.get("description") or "", past=True)),
    }
    return mementos.mark(render(request, "room/memento.html", context),
                         original=request.build_absolute_uri(reverse(route, kwargs={"slug": state.slug})),
                         memento=request.build_absolute_uri(permanent), moment=state.history_date)


def _fiction_ids(model: type[Curated], ids: set[int]) -> set[int]:
    """Of ``ids``, the records that are fiction now (whether a record is fiction is derived, not in its history)."""
    return set(model._default_manager.filter(pk__in=ids, fictional=True).values_list("pk", flat=True)) if ids else set()


def _listed(model: type[Curated], read: mementos.Listing, mode: FictionMode, order: Any) -> list[Any]:
    states = mementos.published_states(model, read)
    fiction = _fiction_ids(model, {state.id for state in states})
    for state in states:
        state.fictional = state.id in fiction
    return sorted((s for s in states if mode.shows(s.fictional)), key=order)[:LIST_PAGE]


LIST_PAGE = 100


def home(request: HttpRequest, mode: FictionMode) -> HttpResponse:
    """The home page's lists as a release holds them or as published at a moment; a few queries, whatever the size."""
    try:
        read = mementos.listing(request.GET)
    except mementos.BadValue as bad:
        raise reading.BadParameter(bad.name, bad.message) from bad
    by_name = lambda state: (state.name, state.slug)  # noqa: E731
    lists = [
        (_("People"), "room:person", _listed(Person, read, mode, by_name)),
        (_("Units"), "room:unit", _listed(Unit, read, mode, by_name)),
        (_("Places"), "room:place", _listed(Location, read, mode, by_name)),
        (_("Events"), "room:event", _listed(Event, read, mode, lambda s: (s.earliest is None, s.earliest, s.slug))),
    ]
    sources = sorted((s for s in mementos.published_states(Source, read) if mode.shows(s.is_fiction)),
                     key=lambda s: s.slug)
    release = read.release.number if read.release is not None else None
    reference = citing.of_archive(request, release=release, at=read.read_at)
    context = {
        "lists": lists,
        "sources": sources,
        "listing": {"release": release, "read_at": read.read_at, "current_url": reverse("room:home") + (
            reading.query_suffix(mode)), "memento_url": reference.url},
        "mode": mode,
        "fiction_on": mode is not FictionMode.EXCLUDE,
        "keep": reading.query_suffix(mode),
        "reference": citing.for_page(reference),
    }
    return mementos.mark(render(request, "room/home.html", context),
                         original=request.build_absolute_uri(reverse("room:home")), memento=reference.url,
                         moment=read.read_at)


def source(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    """A source's edition as published at a moment or as a release holds it: its passages and the citations then."""
    try:
        read = mementos.listing(request.GET)
    except mementos.BadValue as bad:
        raise reading.BadParameter(bad.name, bad.message) from bad
    state = mementos.source_state(slug, read)
    if not mode.shows(state.is_fiction):
        raise Http404(_("No record has this name."))
    raw_page = request.GET.get("page", "1")
    if not (raw_page.isascii() and raw_page.isdigit()) or len(raw_page) > 9 or int(raw_page) < 1:
        raise reading.BadParameter("page", _("A page is a whole number from 1."))
    page = int(raw_page)
    passages = mementos.source_passages(slug, read)
    pages = edition_page(passages[-1]["seq"] if passages else 0)
    if page > max(pages, 1):
        raise Http404(_("This edition has no such page."))
    release = read.release.number if read.release is not None else None
    held = f"release={release}" if release is not None else f"as_of={mementos.moment_text(read.read_at)}"
    current = reverse("room:source", kwargs={"slug": slug})
    context = {
        "record": state,
        "passages": passages[(page - 1) * EDITION_PAGE: page * EDITION_PAGE],
        "page": page,
        "pages": range(1, pages + 1) if pages > 1 else range(0),
        "held": held,
        "listing": {"release": release, "read_at": read.read_at, "current_url": current + reading.query_suffix(mode),
                    "memento_url": f"{current}?{held}"},
        "mode": mode,
        "fiction_on": mode is not FictionMode.EXCLUDE,
        "keep": reading.query_suffix(mode),
        "reference": citing.for_page(citing.of_source(request, state)),
    }
    return mementos.mark(render(request, "room/source_memento.html", context),
                         original=request.build_absolute_uri(current),
                         memento=f"{request.build_absolute_uri(current)}?{held}", moment=read.read_at)
