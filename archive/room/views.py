"""The reading room's pages: public, read-only, approved records only, fiction only when asked.

Every query comes from `archive.selectors`; what a stated field shows comes
from `archive.statements` (`archive.room.stated`). A record hidden in the
reader's mode (unapproved, or fictional with fiction left out) is a 404.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from archive import mementos, roles, search, selectors
from archive.models import Basis, Curated, Event, Location, Person, Release, Source, Unit
from archive.models.registry import FictionMode
from archive.room import battle, citing, edition, finding, memento, night, places, reading, values
from archive.room import timeline as timelines
from archive.room.links import EDITION_PAGE, citation_url, edition_page, record_url, target_url
from archive.room.records import MOST_EVENTS, Now, Records
from archive.room.records_then import Then
from archive.room.stated import stated_fields
from archive.services.mentions import MENTION_CLAIM

View = Callable[..., HttpResponse]
LIST_PAGE = 100


def _page(request: HttpRequest, template: str, context: dict[str, Any], mode: FictionMode,
          records: Records | None = None) -> HttpResponse:
    """A room page; a picture drawn as published then says so, and every link of it keeps that reading."""
    held = records.held if records is not None else {}
    context.update(mode=mode, fiction_on=mode is not FictionMode.EXCLUDE, keep=reading.query_suffix(mode, held),
                   held=held)
    if isinstance(records, Then):
        current, memento = _reading_urls(request, records)
        release = records.read.release
        context["listing"] = {"release": release.number if release is not None else None,
                              "read_at": records.read.read_at, "current_url": current, "memento_url": memento}
    context["pending_review_url"] = _pending_review_url(request, context.get("record"))
    return render(request, f"room/{template}", context)


def _pending_review_url(request: HttpRequest, record: Any) -> str | None:
    """For a signed-in reviewer, where the record's change waits in the review queue; for anyone else, nothing.

    A reader without a session cookie is not looked up at all, so the page
    stays the same for every anonymous reader and varies on no cookie.
    """
    if not isinstance(record, Curated) or settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return None
    if not request.user.is_authenticated or not roles.may_open(request.user, "review"):
        return None
    key = selectors.pending_review_key(record)
    return f"{reverse('archive_curate:review')}?item={key}" if key is not None else None


def reads_mode(view: View) -> View:
    """Reads the reader's fiction mode; a parameter it cannot read is a 400 naming it."""

    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if any("\x00" in str(value) for value in kwargs.values()):
            raise Http404(_("No record has this name."))
        try:
            reading.refuse_nul(request)
            mode = reading.fiction_mode(request)
            return view(request, mode, *args, **kwargs)
        except reading.BadParameter as bad:
            body = render_to_string("room/bad_parameter.html", {"bad": bad}, request=request)
            return HttpResponseBadRequest(body)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def drawn(view: View) -> View:
    """A picture drawn from the archive now, or with ``?as_of=`` or ``?release=`` from the archive as published then.

    The view gets the records to draw from (`archive.room.records`); a page
    of the past says so, keeps its reading in every link, and carries
    ``Memento-Datetime`` and ``Link`` (RFC 7089). ``version`` names one
    record's version, not a moment of the whole archive: a 400.
    """

    def wrapped(request: HttpRequest, mode: FictionMode, *args: Any, **kwargs: Any) -> HttpResponse:
        if not mementos.asked(request.GET):
            return view(request, mode, Now(), *args, **kwargs)
        try:
            read = mementos.listing(request.GET)
        except mementos.BadValue as bad:
            raise reading.BadParameter(bad.name, bad.message) from bad
        then = Then(read)
        response = view(request, mode, then, *args, **kwargs)
        current, memento = _reading_urls(request, then)
        return mementos.mark(response, original=request.build_absolute_uri(current),
                             memento=request.build_absolute_uri(memento), moment=read.read_at)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def _reading_urls(request: HttpRequest, then: Then) -> tuple[str, str]:
    """The page as it is now, and its permanent link as read then (the moment written in full, or the release)."""
    others = [(name, value) for name, value in request.GET.items() if name not in mementos.PARAMETERS]
    current = request.path + (f"?{urlencode(others)}" if others else "")
    return current, f"{request.path}?{urlencode(others + list(then.held.items()))}"


def versioned(model: type[Curated], route: str) -> Callable[[View], View]:
    """A record page that also answers ``?as_of=``, ``?release=`` or ``?version=`` with the record as published then."""

    def decorate(view: View) -> View:
        def wrapped(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
            if mementos.asked(request.GET):
                return memento.page(request, mode, model, slug, route)
            return view(request, mode, slug)

        wrapped.__name__ = view.__name__
        wrapped.__doc__ = view.__doc__
        return wrapped

    return decorate


def _revision(record: Curated) -> Any:
    """The approved revision that published the record's current version, if one did."""
    return mementos.changed_by(type(record), record.pk, record.version)


def _visible(queryset: QuerySet, mode: FictionMode, slug: str, field: str = "fictional") -> Any:
    return get_object_or_404(selectors.filter_fiction(queryset, mode, field), slug=slug)


def _citations(records: list[Any], mode: FictionMode) -> list[dict[str, Any]]:
    return [{"citation": c, "url": citation_url(c, mode)} for c in records]


def _evidence(cited: list[Any], stated: list[dict[str, Any]], mode: FictionMode) -> dict[str, Any]:
    """The citations not already printed under a stated value: what the sources say, then where they only name it.

    Each quotation is printed once on a page; a mention ("named here") says
    only that a passage names the record, so mentions are counted and folded
    after the statements.
    """
    printed = {item["citation"].pk for field in stated for entry in field["accounts"] for item in entry["citations"]}
    rest = [citation for citation in cited if citation.pk not in printed]
    return {
        "citations": _citations([c for c in rest if c.claim != MENTION_CLAIM], mode),
        "mentions": _citations([c for c in rest if c.claim == MENTION_CLAIM], mode),
    }


def _item(record: Any, mode: FictionMode, **extra: Any) -> dict[str, Any]:
    """A post or a participation with its stated fields and the citations not printed under them."""
    stated = _accounts(record, mode)
    return {"stated": stated, **_evidence(record.visible_citations, stated, mode), **extra}


def _record_page(request: HttpRequest, template: str, context: dict[str, Any], mode: FictionMode) -> HttpResponse:
    """A record's page: its values put into words, its own evidence after what its fields already cite."""
    record = context["record"]
    context.update(_evidence(record.visible_citations, context.get("stated", []), mode))
    context["reference"] = citing.for_page(citing.of_record(
        request, type(record), slug=record.slug, name=str(record), version=record.version,
        published=record.reviewed_at or record.updated_at, description=record.description))
    values.label_values(context, mode)
    return _page(request, template, context, mode)


def _accounts(record: Any, mode: FictionMode) -> list[dict[str, Any]]:
    """Each stated field with its chosen value and every account, each account's citations linked."""
    return [
        {
            "field": stated,
            "accounts": [
                {"account": account, "chosen": account in stated.shown,
                 "citations": _citations(account.citations, mode),
                 "premises": _citations(account.premises, mode) if account.basis == Basis.INFERRED else []}
                for account in stated.accounts
            ],
        }
        for stated in stated_fields(record, mode)
    ]


@reads_mode
def home(request: HttpRequest, mode: FictionMode) -> HttpResponse:
    if mementos.asked(request.GET):  # the lists as a release holds them or as published then
        return memento.home(request, mode)

    def listed(model: type[Curated], order: str) -> Any:
        visible = selectors.filter_fiction(model.objects.approved(), mode)
        return visible.only("slug", order, "fictional").order_by(order, "slug")

    lists = [
        (_("People"), "room:person", listed(Person, "name")[:LIST_PAGE]),
        (_("Units"), "room:unit", listed(Unit, "name")[:LIST_PAGE]),
        (_("Places"), "room:place", listed(Location, "name")[:LIST_PAGE]),
        (_("Events"), "room:event", selectors.filter_fiction(Event.objects.approved(), mode)
         .only("slug", "title", "earliest", "latest", "fictional")[:LIST_PAGE]),
    ]
    sources = selectors.filter_fiction(selectors.sources(), mode, "is_fiction")
    return _page(request, "home.html", {"lists": lists, "sources": sources}, mode)


@reads_mode
@versioned(Person, "room:person")
def person(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    record = _visible(selectors.persons(mode), mode, slug)
    context = {
        "record": record,
        "revision": _revision(record),
        "stated": _accounts(record, mode),
        "posts": [_item(post, mode, post=post) for post in record.visible_posts],
        "participations": [_item(p, mode, participation=p, event_url=record_url(p.event, mode))
                           for p in record.visible_participations],
    }
    return _record_page(request, "person.html", context, mode)


@reads_mode
@versioned(Unit, "room:unit")
def unit(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    record = _visible(selectors.units(mode), mode, slug)
    context = {
        "record": record,
        "revision": _revision(record),
        "parent_url": record_url(record.parent, mode) if record.parent else None,
        "children": [(child, record_url(child, mode)) for child in record.visible_children],
        "posts": [_item(post, mode, post=post, person_url=record_url(post.person, mode))
                  for post in record.visible_posts],
    }
    return _record_page(request, "unit.html", context, mode)


@reads_mode
@versioned(Location, "room:place")
def place(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    record = _visible(selectors.locations(mode), mode, slug)
    context = {
        "record": record,
        "revision": _revision(record),
        "parent_url": record_url(record.parent, mode) if record.parent else None,
        "stated": _accounts(record, mode),
        "timeline_query": f"place={record.slug}",
    }
    return _record_page(request, "place.html", context, mode)


@reads_mode
@versioned(Event, "room:event")
def event(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    record = _visible(selectors.events(mode), mode, slug)
    context = {
        "record": record,
        "revision": _revision(record),
        "parent_url": record_url(record.parent, mode) if record.parent else None,
        "children": [(child, record_url(child, mode)) for child in record.visible_children],
        "places": [(p, record_url(p, mode)) for p in record.locations.all()],
        "stated": _accounts(record, mode),
        "participations": [_item(p, mode, participation=p, who_url=record_url(p.person or p.unit, mode))
                           for p in record.visible_participations],
    }
    return _record_page(request, "event.html", context, mode)


def _shown_target(citation: Any, mode: FictionMode) -> bool:
    """With fiction left out, a citation that is evidence for a fictional record is not linked."""
    if mode is not FictionMode.EXCLUDE:
        return True
    target = citation.post or citation.participation or citation.target
    return not getattr(target, "fictional", False)


def _passages_of(source: Source, low: int, high: int) -> QuerySet:
    """The passages numbered `low` to `high`: a page of an edition."""
    return source.passages.filter(seq__gte=low, seq__lte=high).order_by("seq").only(
        "id", "seq", "text", "role", "source_id")


@reads_mode
def source(request: HttpRequest, mode: FictionMode, slug: str) -> HttpResponse:
    """A source as an edition: numbered passages, every cited span marked and linked to its records."""
    if mementos.asked(request.GET):  # the edition as published then, or as a release holds it
        return memento.source(request, mode, slug)
    record = _visible(selectors.sources(), mode, slug, "is_fiction")
    raw_page = request.GET.get("page", "1")
    if not (raw_page.isascii() and raw_page.isdigit()) or int(raw_page) < 1:
        raise reading.BadParameter("page", _("A page is a whole number from 1."))
    page = int(raw_page)
    last_seq = record.passages.order_by("-seq").values_list("seq", flat=True).first() or 0
    pages = edition_page(last_seq)
    if page > max(pages, 1):
        raise Http404(_("This edition has no such page."))
    passages = list(_passages_of(record, (page - 1) * EDITION_PAGE + 1, page * EDITION_PAGE))
    cited: dict[int, list[Any]] = {}
    queryset = selectors.filter_fiction(selectors.citations_with_targets(), mode.nested, "passage__source__is_fiction")
    for citation in queryset.filter(passage__in=[p.pk for p in passages]):
        if _shown_target(citation, mode):
            citation.target_url = target_url(citation, mode)
            cited.setdefault(citation.passage_id, []).append(citation)
    shown = []
    for passage in passages:
        notes = sorted(cited.get(passage.pk, []), key=lambda c: (c.start, c.end, c.pk))
        shown.append({"passage": passage, "text": edition.marked(passage.text, notes),
                      "notes": edition.notes(notes) if notes else ""})
    context = {
        "record": record,
        "revision": _revision(record),
        "passages": shown,
        "page": page,
        "pages": range(1, pages + 1) if pages > 1 else range(0),
        "reference": citing.for_page(citing.of_source(request, record)),
    }
    return _page(request, "source.html", context, mode)


def _narrowing(request: HttpRequest, mode: FictionMode, records: Records) -> dict[str, Any]:
    """The person, unit or place the reader narrowed the timeline or map to; an unknown slug is a 400."""
    found: dict[str, Any] = {}
    for name, model in (("person", Person), ("unit", Unit), ("place", Location)):
        slug = request.GET.get(name, "")
        if not slug:
            continue
        record = records.find(model, slug, mode)
        if record is None:
            raise reading.BadParameter(name, _("No %(kind)s is named “%(slug)s”.") % {
                "kind": model._meta.verbose_name, "slug": slug})
        found[name] = record
    return found


def _choices(found: dict[str, list[tuple[str, str]]], narrow: dict[str, Any]) -> list[dict[str, Any]]:
    """The narrowing selects of the timeline's form, each with its label and the reader's choice."""
    labels = {"person": _("Person"), "unit": _("Unit"), "place": _("Place")}
    chosen = {name: record.slug for name, record in narrow.items()}
    options = {name: list(pairs) for name, pairs in found.items()}
    for name, record in narrow.items():
        if record.slug not in dict(options[name]):
            options[name].insert(0, (record.slug, str(record)))
    return [{"name": name, "label": labels[name], "options": options[name], "chosen": chosen.get(name, "")}
            for name in ("person", "unit", "place")]


def _window_query(window: reading.Window, mode: FictionMode, narrow: dict[str, Any], records: Records) -> str:
    pairs = [("from", window.start.isoformat()), ("to", window.end.isoformat())]
    pairs += [(name, record.slug) for name, record in narrow.items()]
    if mode is not FictionMode.EXCLUDE:
        pairs.append(("fiction", mode.value))
    return urlencode(pairs + list(records.held.items()))


@reads_mode
@drawn
def timeline(request: HttpRequest, mode: FictionMode, records: Records) -> HttpResponse:
    window = reading.window(request)
    narrow = _narrowing(request, mode, records)
    line = timelines.timeline(window, mode, records, **narrow)
    group = request.GET.get("group", "") or "event"
    if group not in timelines.GROUPS:
        raise reading.BadParameter("group", _("“%(value)s” is not one of %(choices)s.") % {
            "value": group, "choices": ", ".join(timelines.GROUPS)})
    context = {
        "line": line,
        "bars": timelines.bar_data(line, timelines.taking_part(line, mode, records)),
        "group": group,
        "middle": window.start + (window.end - window.start) / 2,
        "window": window,
        "narrow": narrow,
        "narrowed_to": [(record, records.link(record, mode)) for record in narrow.values()],
        "choices": _choices(timelines.narrowing_choices(line, mode, records), narrow),
        "window_query": _window_query(window, mode, narrow, records),
        "most": MOST_EVENTS,
    }
    return _page(request, "timeline.html", context, mode, records)


@reads_mode
@drawn
def map_view(request: HttpRequest, mode: FictionMode, records: Records) -> HttpResponse:
    window = reading.window(request)
    narrow = _narrowing(request, mode, records)
    line = timelines.timeline(window, mode, records, **narrow)
    mapped = places.map_data(mode, [row.event for row in line.rows], records)
    context = {
        "places": mapped,
        "window": window,
        "narrow": narrow,
        "window_query": _window_query(window, mode, narrow, records),
    }
    return _page(request, "map.html", context, mode, records)


def _step(moment: dt.datetime, hours: int, window: reading.Window, mode: FictionMode, records: Records) -> str:
    """The query of the same window at a moment some hours away, or "" when that falls outside it."""
    later = moment + dt.timedelta(hours=hours)
    if not window.start <= later <= window.end:
        return ""
    pairs = [("at", later.isoformat()), ("from", window.start.isoformat()), ("to", window.end.isoformat())]
    if mode is not FictionMode.EXCLUDE:
        pairs.append(("fiction", mode.value))
    return urlencode(pairs + list(records.held.items()))


@reads_mode
@drawn
def night_view(request: HttpRequest, mode: FictionMode, records: Records) -> HttpResponse:
    """Who was where at one moment, by which account, with who commanded what: a slider moves the moment."""
    moment = reading.moment(request, "at", night.DEFAULT_AT)
    window = reading.window(request, night.default_window(moment))
    if not window.start <= moment <= window.end:
        raise reading.BadParameter("at", _("The moment must lie inside the window (from … to)."))
    seen = night.night(moment, window, mode, records)
    context = {
        "night": seen,
        "spans": night.span_data(seen.spans),
        "window": window,
        "moment": moment,
        "earlier": _step(moment, -1, window, mode, records),
        "later": _step(moment, 1, window, mode, records),
        "window_query": _window_query(window, mode, {}, records),
    }
    return _page(request, "night.html", context, mode, records)


@reads_mode
@drawn
def order_of_battle(request: HttpRequest, mode: FictionMode, records: Records) -> HttpResponse:
    return _page(request, "order_of_battle.html", {"lines": battle.lines(battle.tree(mode, records))}, mode, records)


@reads_mode
def search_page(request: HttpRequest, mode: FictionMode) -> HttpResponse:
    """Records and passages matching the reader's words, folded as the archive folds them, a page at a time.

    With ``?as_of=`` or ``?release=``: the archive as published then, marked as a memento.
    """
    read = _search_reading(request)
    raw = request.GET.get("q", "")
    then = finding.held(read) if read is not None else None
    context: dict[str, Any] = {"query": raw, "groups": [], "page_obj": None, "refused": "", "then": then or {}}
    if read is not None:
        current = reverse("room:search") + (f"?{urlencode({'q': raw})}" if raw else "")
        context["listing"] = {"release": then.get("release") if then else None, "read_at": read.read_at,
                              "current_url": current, "memento_url": finding.page_link(raw, mode, 1, then)}
    try:
        query = finding.cleaned(raw)
    except finding.Unsearchable as refused:
        context["refused"] = str(refused)
        response = _page(request, "search.html", context, mode)
        response.status_code = 400
        return response
    if query:
        try:
            page, groups = finding.results(query, mode, request.GET.get("page", "1"), read)
        except search.SearchBackendError:
            context["refused"] = _("The search is unavailable for a moment; try again.")
            response = _page(request, "search.html", context, mode)
            response.status_code = 503
            return response
        except search.QueryError as refused:  # too much rewritten since the moment to read it then
            raise reading.BadParameter(refused.param, refused.message) from refused
        context.update(
            groups=groups, page_obj=page,
            previous_url=finding.page_link(query, mode, page.previous_page_number(), then) if page.has_previous()
            else "",
            next_url=finding.page_link(query, mode, page.next_page_number(), then) if page.has_next() else "",
        )
    response = _page(request, "search.html", context, mode)
    if read is None:
        return response
    listing = context["listing"]
    return mementos.mark(response, original=request.build_absolute_uri(listing["current_url"]),
                         memento=request.build_absolute_uri(listing["memento_url"]), moment=read.read_at)


def _search_reading(request: HttpRequest) -> mementos.Listing | None:
    """The moment or release a search is read at, if the reader named one; a bad value is a 400 naming it."""
    if not mementos.asked(request.GET):
        return None
    try:
        return mementos.listing(request.GET)
    except mementos.BadValue as bad:
        raise reading.BadParameter(bad.name, bad.message) from bad


@reads_mode
def cite(request: HttpRequest, mode: FictionMode, kind: str, slug: str) -> HttpResponse:
    """A page's reference as a file: `?format=csl|bibtex|ris`, of the version asked (`?version=`, `?as_of=` …)."""
    model: Any = citing.KINDS.get(kind)
    if model is None:
        raise Http404(_("No record has this name."))
    fmt = request.GET.get("format", "")
    if fmt not in citing.FORMATS:
        raise reading.BadParameter("format", _("“%(value)s” is not one of %(choices)s.") % {
            "value": fmt, "choices": ", ".join(citing.FORMATS)})
    if model is Source:
        ref = citing.of_source(request, _visible(selectors.sources(), mode, slug, "is_fiction"))
    elif mementos.asked(request.GET):
        try:
            found = mementos.published(model, slug, request.GET)
        except mementos.BadValue as bad:
            raise reading.BadParameter(bad.name, bad.message) from bad
        _visible(model.objects.approved().only("slug", "fictional"), mode, slug)
        state = found.state
        name = str(getattr(state, "name", None) or getattr(state, "title", ""))
        ref = citing.of_record(request, model, slug=state.slug, name=name, version=state.version,
                               published=state.history_date, past=True)
    else:
        record = _visible(model.objects.approved(), mode, slug)
        ref = citing.of_record(request, model, slug=record.slug, name=str(record), version=record.version,
                               published=record.reviewed_at or record.updated_at)
    media_type, extension = citing.FORMATS[fmt]
    response = HttpResponse(citing.render(ref, fmt), content_type=f"{media_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{ref.key}.{extension}"'
    return response


@reads_mode
def cite_archive(request: HttpRequest, mode: FictionMode) -> HttpResponse:
    """The reference of the archive as a release holds it (`?release=N`) or as published then (`?as_of=`), as a file."""
    fmt = request.GET.get("format", "")
    if fmt not in citing.FORMATS:
        raise reading.BadParameter("format", _("“%(value)s” is not one of %(choices)s.") % {
            "value": fmt, "choices": ", ".join(citing.FORMATS)})
    if not mementos.asked(request.GET):
        raise reading.BadParameter("release", _("Give the release (release=N) or the moment (as_of=) to cite."))
    try:
        read = mementos.listing(request.GET)
    except mementos.BadValue as bad:
        raise reading.BadParameter(bad.name, bad.message) from bad
    ref = citing.of_archive(request, release=read.release.number if read.release else None, at=read.read_at)
    media_type, extension = citing.FORMATS[fmt]
    response = HttpResponse(citing.render(ref, fmt), content_type=f"{media_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{ref.key}.{extension}"'
    return response


@reads_mode
@drawn
def releases(request: HttpRequest, mode: FictionMode, records: Records) -> HttpResponse:
    """The releases, newest first, with their files and checksums; as of a moment or a release, those made by then."""
    listed = Release.objects.defer("published", "contributors").prefetch_related("files").order_by("-number")
    if isinstance(records, Then):
        listed = listed.filter(made_at__lte=records.read.read_at)
    return _page(request, "releases.html", {"releases": listed}, mode, records)
