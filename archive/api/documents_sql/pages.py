"""A page of a list, in the API's envelope, as one SQL statement: the first reading of each list, kind by kind.

A list as it is first shown leaves fiction out, in its records and in the
evidence nested in them, and keeps its model's default order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from archive.api.documents_sql import parts, records, texts


@dataclass(frozen=True)
class ListOf:
    """One list: its records `alias` in `tables` where `where` holds, sorted by `keys` in `order`."""

    tables: str
    alias: str
    where: str
    keys: dict[str, str]  # the columns the order sorts by, by the name `order` gives them
    order: str
    document: Callable[[], str]


def _records(table: str, alias: str, document: Callable[[str], str], keys: dict[str, str], order: str) -> ListOf:
    return ListOf(f"archive_{table} {alias}", alias, parts.visible(alias), keys, order, lambda: document("false"))


# Over a whole list, each kind of visible record is read once, into a hash the citations are
# looked up in: cheaper than a probe per citation and kind, and than a dozen joins to plan.
_VISIBLE_TARGETS = {
    "person": "SELECT t.id FROM archive_person t WHERE t.status = 'approved'",
    "unit": "SELECT t.id FROM archive_unit t WHERE t.status = 'approved'",
    "location": "SELECT t.id FROM archive_location t WHERE t.status = 'approved'",
    "event": "SELECT t.id FROM archive_event t WHERE t.status = 'approved'",
    "post": """SELECT t.id FROM archive_post t JOIN archive_person tp ON tp.id = t.person_id
        JOIN archive_unit tu ON tu.id = t.unit_id
        WHERE t.status = 'approved' AND tp.status = 'approved' AND tu.status = 'approved'""",
    "participation": """SELECT t.id FROM archive_participation t JOIN archive_event te ON te.id = t.event_id
        LEFT JOIN archive_person tp ON tp.id = t.person_id LEFT JOIN archive_unit tu ON tu.id = t.unit_id
        WHERE t.status = 'approved' AND te.status = 'approved'
          AND (tp.status = 'approved' OR tu.status = 'approved')""",
}
_LISTED_VISIBLE = "c.status = 'approved' AND cs.status = 'approved' AND ({})".format(
    " OR ".join(f"c.{field}_id IN ({ids})" for field, ids in _VISIBLE_TARGETS.items())
)

# Each list by the kind of its records, in the models' default orderings (`Meta.ordering`).
LISTS = {
    "person": _records("person", "p", records.person, {"name": "p.name", "slug": "p.slug"}, "name, slug"),
    "unit": _records("unit", "u", records.unit, {"name": "u.name", "slug": "u.slug"}, "name, slug"),
    "location": _records("location", "l", records.location, {"name": "l.name", "slug": "l.slug"}, "name, slug"),
    "event": _records("event", "e", records.event, {"earliest": "e.earliest", "latest": "e.latest", "slug": "e.slug"},
                      "earliest ASC NULLS LAST, latest ASC NULLS LAST, slug"),
    "source": ListOf("archive_source src", "src", "src.status = 'approved' AND NOT src.is_fiction",
                     {"slug": "src.slug"}, "slug", texts.source),
    "citation": ListOf(texts.CITATION_TABLES, "c", f"{_LISTED_VISIBLE} AND NOT cs.is_fiction",
                       {"source_slug": "cs.slug", "seq": "cp.seq", "start": "c.start"}, "source_slug, seq, start, id",
                       texts.citation),
}


def page(tables: str, alias: str, where: str, keys: dict[str, str], order: str, document: str,
         exists: str = "true", *, totals: str = "", columns: str = "") -> str:
    """A page of the API's envelope: `count`, `next`, `previous` and the documents of the page's records.

    `tables` names the listed records as `alias` (with joins the document
    reads), `keys` the columns `order` sorts them by; `exists` is false
    when the list itself does not exist (no such source). `totals` adds
    aggregates of the whole list to the count (`, max(…) AS name`), and
    `columns` more columns after the page, which may read them from `total`.
    The statement takes `limit`, `offset`, `next` and `previous`; with its
    links marked (`parts.marked_links`) the links are JSON strings.
    The page is chosen before its documents are built: beside correlated
    subqueries, LIMIT/OFFSET on the outer query would build them for every
    skipped row. The count is a query of its own, which PostgreSQL plans
    apart from the page's ORDER BY … LIMIT.
    """
    sorted_by = ", ".join(f"{expression} AS {name}" for name, expression in keys.items())
    link = "json" if parts.links_marked() else "text"
    return f"""WITH pg AS (
        SELECT {alias}.id AS id, {sorted_by} FROM {tables} WHERE {where}
        ORDER BY {order} LIMIT %(limit)s OFFSET %(offset)s
    ), total AS (SELECT count(*) AS n{totals} FROM {tables} WHERE {where})
    SELECT json_build_object(
        'count', total.n,
        'next', CASE WHEN total.n > %(offset)s + %(limit)s THEN %(next)s::{link} END,
        'previous', %(previous)s::{link},
        'results', coalesce((
            SELECT json_agg(d.doc ORDER BY {order})
            FROM pg CROSS JOIN LATERAL (SELECT {document} AS doc FROM {tables} WHERE {alias}.id = pg.id) d
        ), '[]'::json))::text{columns}
    FROM total WHERE {exists}"""


def first_reading(kind: str, *, totals: str = "", columns: str = "") -> str:
    """The statement of a page of `kind`'s list as it is first shown (no filter, no fiction)."""
    of = LISTS[kind]
    return page(of.tables, of.alias, of.where, of.keys, of.order, of.document(), totals=totals, columns=columns)
