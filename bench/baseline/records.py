"""Persons, units, places and events: a detail and a page of each kind, and the filtered events page, in SQL.

A list shows records that are not fiction, with no evidence from fiction
(`include` false); a detail always answers for an approved record and shows
its evidence, fiction included, when the record is itself fictional (the
API's default for the detail of a fictional record).
"""

from __future__ import annotations

from archive.api.documents_sql.pages import LISTS, first_reading, page
from archive.api.documents_sql.parts import fictional
from archive.api.documents_sql.records import event, location, person, unit


def _statements() -> tuple[dict[str, str], dict[str, str]]:
    pages, details = {}, {}
    for path, (kind, document) in {"persons": ("person", person), "units": ("unit", unit),
                                   "locations": ("location", location), "events": ("event", event)}.items():
        pages[path] = first_reading(kind)
        of = LISTS[kind]
        details[path] = f"""SELECT {document(fictional(of.alias))}::text FROM {of.tables}
            WHERE {of.alias}.slug = %(slug)s AND {of.alias}.status = 'approved'"""
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
    of = LISTS["event"]
    return {who: page(of.tables, of.alias, f"{of.where} AND {_took_part(who)}", of.keys, of.order, of.document())
            for who in ("person", "unit")}


# The events page filtered by `?person=` or `?unit=` (parameter `slug` besides a page's), by filter.
FILTERED_EVENTS = _filtered_events()
