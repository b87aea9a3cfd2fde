"""The API documents the benchmark requests: one endpoint per kind of document, each a few representative paths.

The page of events and the person details are the main endpoints, measured
with the full `--requests`; every other kind (the pages of each record kind,
a source's passages, the details of units, places, events, sources,
citations and passages) is measured with a quarter of them and of the time
budget, so that the run stays bounded. A detail is asked for the records
with the most evidence, as a reader's interest goes; a page at a few depths.
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE = "page_size=50"
DETAILS = 8  # distinct records asked for per kind of detail


@dataclass
class Endpoint:
    title: str
    paths: list[str]  # distinct paths, requested in turn
    main: bool = False

    def requested(self, count: int) -> list[str]:
        return [self.paths[i % len(self.paths)] for i in range(count)]


def _most_cited(model: type, count: int) -> list[str]:
    """Approved records with the most approved citations: the detail pages worth reading."""
    from django.db.models import Count, Q

    from archive.models import Status

    return list(
        model.objects.approved()  # type: ignore[attr-defined]  # every curated model's manager has it
        .annotate(n=Count("citations", filter=Q(citations__status=Status.APPROVED)))
        .order_by("-n", "slug")
        .values_list("slug", flat=True)[:count]
    )


def person_slugs(count: int) -> list[str]:
    from archive.models import Person

    return _most_cited(Person, count)


def _spread(queryset: object, count: int) -> list[int]:
    """`count` values of a one-column queryset, taken evenly from its first row to its last."""
    total = queryset.count()  # type: ignore[attr-defined]
    return list(dict.fromkeys(queryset[i * total // count] for i in range(count))) if total else []  # type: ignore[index]


def _pages(kind: str, total: int, numbers: tuple[int, ...] = (1, 2, 10)) -> list[str]:
    """A list's pages of 50 at a few depths (those that exist)."""
    shown = [n for n in numbers if n == 1 or total > 50 * (n - 1)]
    return [f"/api/v1/{kind}/?{PAGE}" + (f"&page={n}" if n > 1 else "") for n in shown]


def source_detail_paths() -> list[str]:
    """Sources spread over the alphabet of their slugs."""
    from archive.models import Source

    sources = _spread(Source.objects.approved().order_by("slug").values_list("slug", flat=True), DETAILS)
    return [f"/api/v1/sources/{slug}/" for slug in sources]


def endpoints() -> list[Endpoint]:
    """Every endpoint measured, the main two first."""
    from django.db.models import Count

    from archive import selectors
    from archive.models import Event, Location, Source, Unit

    persons = person_slugs(20)
    if not persons:
        raise RuntimeError("no approved person to ask for")
    found = [
        Endpoint(f"events page ({PAGE})", [f"/api/v1/events/?{PAGE}"], main=True),
        Endpoint("person detail", [f"/api/v1/persons/{slug}/" for slug in persons], main=True),
    ]
    lists = {
        "sources": selectors.sources().filter(is_fiction=False),
        "persons": selectors.persons().filter(fictional=False),
        "units": selectors.units().filter(fictional=False),
        "locations": selectors.locations().filter(fictional=False),
        "citations": selectors.citations().filter(passage__source__is_fiction=False),
    }
    for kind, queryset in lists.items():
        found.append(Endpoint(f"{kind} page ({PAGE})", _pages(kind, queryset.count())))
    longest = (
        Source.objects.approved().annotate(n=Count("passages")).order_by("-n", "slug").values_list("slug", "n")[:2]
    )
    found.append(Endpoint(
        f"passages of a source page ({PAGE})",
        [path for slug, n in longest for path in _pages(f"sources/{slug}/passages", n, (1, 3))],
    ))
    for kind, model in (("unit", Unit), ("location", Location), ("event", Event)):
        found.append(Endpoint(f"{kind} detail", [f"/api/v1/{kind}s/{slug}/" for slug in _most_cited(model, DETAILS)]))
    found.append(Endpoint("source detail", source_detail_paths()))
    cited = selectors.citations().order_by("id").values_list("id", flat=True)
    found.append(Endpoint("citation detail", [f"/api/v1/citations/{pk}/" for pk in _spread(cited, DETAILS)]))
    # Passages that carry citations: a passage's page is read for its evidence.
    carrying = selectors.citations().order_by("passage_id").values_list("passage_id", flat=True)
    found.append(Endpoint("passage detail", [f"/api/v1/passages/{pk}/" for pk in _spread(carrying, DETAILS)]))
    return [endpoint for endpoint in found if endpoint.paths]
