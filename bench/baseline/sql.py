"""The baseline's pages: the API's envelope around the documents of one page of records, in one statement.

The documents themselves are the API's own SQL (`archive.api.documents_sql`),
written with their links after the parameter `base`. A page's statement takes
`base`, `limit`, `offset`, `next` and `previous`.
"""

from __future__ import annotations


def page(tables: str, alias: str, where: str, keys: dict[str, str], order: str, document: str,
         exists: str = "true") -> str:
    """A page of the API's envelope: `count`, `next`, `previous` and the documents of the page's records.

    `tables` names the listed records as `alias` (with joins the document
    reads), `keys` the columns `order` sorts them by; `exists` is false
    when the list itself does not exist (no such source).
    The page is chosen before its documents are built: beside correlated
    subqueries, LIMIT/OFFSET on the outer query would build them for every
    skipped row. The count is a query of its own, which PostgreSQL plans
    apart from the page's ORDER BY … LIMIT.
    """
    columns = ", ".join(f"{expression} AS {name}" for name, expression in keys.items())
    return f"""WITH pg AS (
        SELECT {alias}.id AS id, {columns} FROM {tables} WHERE {where}
        ORDER BY {order} LIMIT %(limit)s OFFSET %(offset)s
    ), total AS (SELECT count(*) AS n FROM {tables} WHERE {where})
    SELECT json_build_object(
        'count', total.n,
        'next', CASE WHEN total.n > %(offset)s + %(limit)s THEN %(next)s::text END,
        'previous', %(previous)s::text,
        'results', coalesce((
            SELECT json_agg(d.doc ORDER BY {order})
            FROM pg CROSS JOIN LATERAL (SELECT {document} AS doc FROM {tables} WHERE {alias}.id = pg.id) d
        ), '[]'::json))::text
    FROM total WHERE {exists}"""
