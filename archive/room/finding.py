"""The room's search: the archive's folded search (`archive.search`), its hits grouped by kind and linked.

The hits are the API's own (`search.find`): approved records first, then
passages, a page at a time, fiction as the reader chose. With ``?as_of=`` or
``?release=`` they are those of the archive as published then
(`search.find_as_of`), each linked to its page then. A hit's snippet is
HTML the search escaped; the page gets it back as plain runs (marked or not),
which the template escapes again, so no data reaches the page unescaped.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from archive import mementos, search
from archive.models import Passage
from archive.models.registry import FictionMode
from archive.room.links import held_passage_url, page_url, passage_url

# Hits per page of results, records and passages together.
PER_PAGE = 25
_ROUTES = {
    "person": "room:person",
    "unit": "room:unit",
    "location": "room:place",
    "event": "room:event",
    "source": "room:source",
}
HEADINGS = {
    "person": _("People"),
    "unit": _("Units"),
    "location": _("Places"),
    "event": _("Events"),
    "source": _("Sources"),
    "passage": _("Passages"),
}
_MARK = re.compile(r"(</?mark>)")


class Unsearchable(ValueError):
    """A query the search refuses (too long, or nothing left after folding); the page says why."""


@dataclass(frozen=True)
class Run:
    text: str
    marked: bool


@dataclass
class Found:
    hit: search.Hit
    url: str
    runs: list[Run]
    source_title: str = ""
    seq: int | None = None


@dataclass
class Group:
    type: str
    heading: str
    found: list[Found] = field(default_factory=list)


def runs(snippet: str) -> list[Run]:
    """The escaped snippet as plain text runs, those inside <mark> marked; the search escaped every other '<'."""
    found: list[Run] = []
    marked = False
    for part in _MARK.split(snippet):
        if part in ("<mark>", "</mark>"):
            marked = part == "<mark>"
        elif part:
            found.append(Run(html.unescape(part), marked))
    return found


def cleaned(raw: str) -> str:
    """The reader's query, or "" for none; a query the search cannot take is `Unsearchable`."""
    if not raw.strip():
        return ""
    try:
        return search.clean_query(raw)
    except search.QueryError as refused:
        if "empty" in refused.message:
            raise Unsearchable(str(_("Nothing is left to search for in this query."))) from refused
        raise Unsearchable(str(_("A query has at most %(most)d characters.") % {"most": search.MAX_QUERY_LENGTH})) \
            from refused


def _passages(ids: list[int]) -> dict[int, Passage]:
    return {p.pk: p for p in Passage.objects.filter(pk__in=ids).select_related("source").only(
        "pk", "seq", "source__slug", "source__title")}


def held(read: mementos.Listing) -> dict[str, str]:
    """The parameter that names a reading then in a link: the release, or the moment."""
    if read.release is not None:
        return {"release": str(read.release.number)}
    return {"as_of": mementos.moment_text(read.read_at)}


def results(query: str, mode: FictionMode, number: Any, read: mementos.Listing | None = None
            ) -> tuple[Page, list[Group]]:
    """One page of the hits of `query`, grouped by kind in the search's order; a bad page number is the last.

    With ``read``, the archive as published then (`search.find_as_of`), each hit linked to its page then.
    """
    found: search.SearchResults | search.AsOfResults = (
        search.find(query, fiction=mode.value) if read is None
        else search.AsOfResults(query, read, fiction=mode.value))
    page = Paginator(found, PER_PAGE, allow_empty_first_page=True).get_page(number)
    hits = list(page.object_list)
    then = held(read) if read is not None else None
    passages = _passages([hit.id for hit in hits if hit.type == "passage"]) if then is None else {}
    groups: dict[str, Group] = {}
    for hit in hits:
        group = groups.setdefault(hit.type, Group(hit.type, str(HEADINGS[hit.type])))
        if hit.type == "passage" and isinstance(found, search.AsOfResults) and then is not None:
            slug, seq = found.places[hit.id]
            title = hit.title.rsplit(" §", 1)[0]
            group.found.append(Found(hit, held_passage_url(slug, seq, mode, then), runs(hit.snippet), title, seq))
        elif hit.type == "passage":
            passage = passages.get(hit.id)
            if passage is None:
                continue
            group.found.append(Found(hit, passage_url(passage, mode), runs(hit.snippet),
                                     passage.source.title, passage.seq))
        else:
            group.found.append(Found(hit, page_url(_ROUTES[hit.type], str(hit.slug), mode, then), runs(hit.snippet)))
    order = {name: i for i, name in enumerate(search.TYPES)}
    return page, sorted(groups.values(), key=lambda g: order[g.type])


def page_link(query: str, mode: FictionMode, number: int, then: dict[str, str] | None = None) -> str:
    pairs = [("q", query), *(then or {}).items(), ("page", str(number))]
    if mode is not FictionMode.EXCLUDE:
        pairs.append(("fiction", mode.value))
    return f"{reverse('room:search')}?{urlencode(pairs)}"
