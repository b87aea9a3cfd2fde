"""Where the room shows each thing: a record's page, a citation inside its source's edition."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from archive.models import Citation, Event, Location, Passage, Person, Source, Unit
from archive.models.registry import FictionMode

# Passages per page of an edition: a long source is read a page at a time.
EDITION_PAGE = 200

_ROUTES: dict[type, str] = {
    Person: "room:person",
    Unit: "room:unit",
    Location: "room:place",
    Event: "room:event",
    Source: "room:source",
}


def _with_mode(path: str, mode: FictionMode, **params: Any) -> str:
    pairs = {**({"fiction": mode.value} if mode is not FictionMode.EXCLUDE else {}), **params}
    query = "&".join(f"{key}={value}" for key, value in pairs.items())
    return f"{path}?{query}" if query else path


def record_url(record: Any, mode: FictionMode, held: dict[str, str] | None = None) -> str:
    """A record's page in the reader's mode; as published then when ``held`` names the moment or release."""
    return _with_mode(reverse(_ROUTES[type(record)], kwargs={"slug": record.slug}), mode, **(held or {}))


def edition_page(seq: int) -> int:
    return (max(seq, 1) - 1) // EDITION_PAGE + 1


def citation_url(citation: Citation, mode: FictionMode, held: dict[str, str] | None = None) -> str:
    """The cited span, marked in its passage, in the edition of its source (as published then, with ``held``)."""
    source = citation.passage.source
    path = reverse("room:source", kwargs={"slug": source.slug})
    page = edition_page(citation.passage.seq)
    params: dict[str, Any] = {**(held or {}), **({"page": page} if page > 1 else {})}
    return _with_mode(path, mode, **params) + f"#c-{citation.pk}"


def target_url(citation: Citation, mode: FictionMode) -> str | None:
    """The page of the record a citation is evidence for; a post or a participation lives on its person's or event's."""
    if (post := citation.post) is not None:
        return record_url(post.person, mode) + f"#post-{post.slug}"
    if (participation := citation.participation) is not None:
        return record_url(participation.event, mode) + f"#participation-{participation.slug}"
    target = citation.target
    return record_url(target, mode) if target is not None else None


def passage_url(passage: Passage, mode: FictionMode) -> str:
    """A passage in the edition of its source."""
    page = edition_page(passage.seq)
    path = reverse("room:source", kwargs={"slug": passage.source.slug})
    return _with_mode(path, mode, **({"page": page} if page > 1 else {})) + f"#p-{passage.seq}"


def held_passage_url(source_slug: str, seq: int, mode: FictionMode, held: dict[str, str]) -> str:
    """A passage in the edition of its source as published then (``held``: ``as_of`` or ``release``)."""
    page = edition_page(seq)
    path = reverse("room:source", kwargs={"slug": source_slug})
    return _with_mode(path, mode, **held, **({"page": str(page)} if page > 1 else {})) + f"#p-{seq}"


def page_url(route: str, slug: str, mode: FictionMode, held: dict[str, str] | None = None) -> str:
    """A record's page by its route, in the reader's mode; as published then when ``held`` names the moment."""
    return _with_mode(reverse(route, kwargs={"slug": slug}), mode, **(held or {}))
