"""Persons, units, places and events: a detail and a page of each kind, and the filtered events page, in SQL.

A list shows records that are not fiction, with no evidence from fiction
(`include` false); a detail always answers for an approved record and shows
its evidence, fiction included, when the record is itself fictional (the
API's default for the detail of a fictional record).
"""

from __future__ import annotations

from archive.api.documents_sql.parts import fictional, visible
from archive.api.documents_sql.records import event, location, person, unit
from bench.baseline.sql import page

# The models' default orderings (`Meta.ordering`), which the API's lists keep.
_KINDS = {
    # path: (table, alias, document, sort keys, order of the keys)
    "persons": ("person", "p", person, {"name": "p.name", "slug": "p.slug"}, "name, slug"),
    "units": ("unit", "u", unit, {"name": "u.name", "slug": "u.slug"}, "name, slug"),
    "locations": ("location", "l", location, {"name": "l.name", "slug": "l.slug"}, "name, slug"),
    "events": (
        "event", "e", event, {"earliest": "e.earliest", "latest": "e.latest", "slug": "e.slug"},
        "earliest ASC NULLS LAST, latest ASC NULLS LAST, slug",
    ),
}


def _statements() -> tuple[dict[str, str], dict[str, str]]:
    pages, details = {}, {}
    for kind, (table, alias, document, keys, order) in _KINDS.items():
        pages[kind] = page(
            f"archive_{table} {alias}", alias, f"{visible(alias)}", keys, order, document("false")
        )
        details[kind] = f"""SELECT {document(fictional(alias))}::text FROM archive_{table} {alias}
            WHERE {alias}.slug = %(slug)s AND {alias}.status = 'approved'"""
    return pages, details


# The statement of a page (parameters `limit`, `offset`, `next`, `previous`) and of a detail (`slug`), by path.
PAGES, DETAILS = _statements()


def _took_part(who: str) -> str:
    """The event `e` has a visible participation of the approved person or unit named by `slug` (`EventFilter`)."""
    return f"""e.id IN (SELECT pa.event_id FROM archive_participation pa
        JOIN archive_event pe ON pe.id = pa.event_id AND pe.status = 'approved'
        LEFT JOIN archive_person pp ON pp.id = pa.person_id AND pp.status = 'approved'
        LEFT JOIN archive_unit pu ON pu.id = pa.unit_id AND pu.status = 'approved'
        WHERE pa.status = 'approved' AND (pp.id IS NOT NULL OR pu.id IS NOT NULL)
          AND pa.{who}_id = (SELECT w.id FROM archive_{who} w WHERE w.slug = %(slug)s AND w.status = 'approved'))"""


def _filtered_events() -> dict[str, str]:
    table, alias, document, keys, order = _KINDS["events"]
    return {who: page(f"archive_{table} {alias}", alias, f"{visible(alias)} AND {_took_part(who)}", keys, order,
                      document("false"))
            for who in ("person", "unit")}


# The events page filtered by `?person=` or `?unit=` (parameter `slug` besides a page's), by filter.
FILTERED_EVENTS = _filtered_events()
