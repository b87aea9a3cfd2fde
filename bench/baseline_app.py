"""The API's baseline: the same JSON built by hand-written SQL (`json_agg`) in a tiny WSGI app.

The API's figures mean little alone; beside the fastest honest way to answer
the same request on the same database they show what the ORM, DRF's nested
serializers and the middleware cost. This app answers the two benchmarked
paths, `/api/v1/events/?page_size=N&page=P` and `/api/v1/persons/<slug>/`,
with one SQL statement each that applies the API's rules (approved records
all the way down; fiction excluded, in the records listed and in the
citations nested in them; each stated field shown from its best visible
statement, with every account listed under `statements`) and returns the
document as text from PostgreSQL.
It is served by gunicorn with the same settings as the API, one persistent
connection per worker, as the API's `CONN_MAX_AGE` gives it.

Run: `BENCH_DATABASE_URL=postgres://… gunicorn bench.baseline_app:application`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

import psycopg

API = "%(base)s::text || '/api/v1/"


def _fictional(alias: str) -> str:
    """Whether a record is fiction: the flag the archive stores and keeps current (`archive.fiction`)."""
    return f"{alias}.fictional"


def _ref(alias: str, kind: str, name: str = "name") -> str:
    return (
        f"json_build_object('slug', {alias}.slug, 'name', {alias}.{name}, 'url', {API}{kind}/' || {alias}.slug || '/')"
    )


def _nullable_ref(alias: str, kind: str, name: str = "name") -> str:
    return f"CASE WHEN {alias}.id IS NULL THEN NULL ELSE {_ref(alias, kind, name)} END"


def _citations(alias: str, fk: str, include: str = "false") -> str:
    """The visible citations of one record, in the API's order; those of fiction only if `include`."""
    return f"""(SELECT coalesce(json_agg(json_build_object(
            'id', c.id, 'url', {API}citations/' || c.id || '/',
            'source', json_build_object('slug', cs.slug, 'name', cs.title, 'url', {API}sources/' || cs.slug || '/'),
            'passage', {API}passages/' || cp.id || '/',
            'seq', cp.seq, 'quote', c.quote, 'claim', c.claim, 'rank', c.rank)
            ORDER BY cs.slug, cp.seq, c.start, c.id), '[]'::json)
        FROM archive_citation c JOIN archive_passage cp ON cp.id = c.passage_id
        JOIN archive_source cs ON cs.id = cp.source_id
        WHERE c.{fk} = {alias}.id AND c.status = 'approved' AND cs.status = 'approved'
          AND ({include} OR NOT cs.is_fiction))"""


def _visible(alias: str, include: str = "false") -> str:
    """Approved, and not fictional unless `include` (an SQL boolean) says fiction is shown."""
    return f"{alias}.status = 'approved' AND ({include} OR NOT {_fictional(alias)})"


# --- statements: each stated field's visible accounts, and the value shown from them (`archive.statements`)

# The fields each kind of record states, and the one whose values add up (`archive.models.statements`).
_STATED = {
    "event": ("date", "location"),
    "participation": ("role",),
    "post": ("title", "date_from", "date_to"),
    "person": ("birth", "death"),
}
_MULTI_VALUED = {"location"}
_ACCOUNT_ORDER = (
    "CASE s.rank WHEN 'preferred' THEN 0 WHEN 'normal' THEN 1 WHEN 'deprecated' THEN 2 ELSE 9 END, s.position, s.id"
)


def _statement_cited(fiction: bool) -> str:
    return f"""EXISTS (SELECT 1 FROM archive_statement_citations sc
            JOIN archive_citation c ON c.id = sc.citation_id JOIN archive_passage cp ON cp.id = c.passage_id
            JOIN archive_source cs ON cs.id = cp.source_id
            WHERE sc.statement_id = s.id AND c.status = 'approved' AND cs.status = 'approved'
              AND {"" if fiction else "NOT "}cs.is_fiction)"""


# A fictional account: its approved citations all come from fiction.
_STATEMENT_FICTIONAL = f"({_statement_cited(True)} AND NOT {_statement_cited(False)})"


def _accounts(alias: str, kind: str, field: str, include: str, *, live: bool = False) -> str:
    """FROM and WHERE of the visible statements `s` of one field of a record; `live` leaves out deprecated ones."""
    return f"""FROM archive_statement s WHERE s.{kind}_id = {alias}.id AND s.field = '{field}'
        AND s.status = 'approved' AND ({include} OR NOT {_STATEMENT_FICTIONAL})
        {"AND s.rank <> 'deprecated'" if live else ""}"""


def _chosen(alias: str, kind: str, field: str, include: str, column: str = "value") -> str:
    """A column of the account the record shows for a single-valued field; NULL when none is live."""
    return f"(SELECT s.{column} {_accounts(alias, kind, field, include, live=True)} ORDER BY {_ACCOUNT_ORDER} LIMIT 1)"


def _stated(alias: str, kind: str, field: str, include: str) -> str:
    """Whether the field has visible accounts: then they, not the record's column, say what is shown."""
    return f"EXISTS (SELECT 1 {_accounts(alias, kind, field, include)})"


def _stated_text(alias: str, kind: str, field: str, include: str, fallback: str, column: str = "value") -> str:
    """A text the record shows: the chosen account's (or "" when all are deprecated) if stated, else `fallback`."""
    return (
        f"CASE WHEN {_stated(alias, kind, field, include)} "
        f"THEN coalesce({_chosen(alias, kind, field, include, column)}, '') ELSE {fallback} END"
    )


def _statement_citations(include: str) -> str:
    return f"""(SELECT coalesce(json_agg(json_build_object(
            'id', c.id, 'url', {API}citations/' || c.id || '/',
            'source', json_build_object('slug', cs.slug, 'name', cs.title, 'url', {API}sources/' || cs.slug || '/'),
            'passage', {API}passages/' || cp.id || '/',
            'seq', cp.seq, 'quote', c.quote, 'claim', c.claim, 'rank', c.rank)
            ORDER BY cs.slug, cp.seq, c.start, c.id), '[]'::json)
        FROM archive_statement_citations sc JOIN archive_citation c ON c.id = sc.citation_id
        JOIN archive_passage cp ON cp.id = c.passage_id JOIN archive_source cs ON cs.id = cp.source_id
        WHERE sc.statement_id = s.id AND c.status = 'approved' AND cs.status = 'approved'
          AND ({include} OR NOT cs.is_fiction))"""


def _statements(alias: str, kind: str, include: str = "false") -> str:
    """The `statements` document of a record: per stated field, the value shown and every visible account."""
    account = f"""json_build_object('value', s.value, 'as_written', s.as_written, 'earliest', s.earliest,
        'latest', s.latest, 'rank', s.rank, 'fictional', {_STATEMENT_FICTIONAL}, 'note', s.note,
        'citations', {_statement_citations(include)})"""
    fields = []
    for field in _STATED[kind]:
        if field in _MULTI_VALUED:
            value = (
                f"(SELECT coalesce(json_agg(s.value ORDER BY {_ACCOUNT_ORDER}), '[]'::json) "
                f"{_accounts(alias, kind, field, include, live=True)})"
            )
        else:
            value = _chosen(alias, kind, field, include)
        accounts = (
            f"(SELECT coalesce(json_agg({account} ORDER BY {_ACCOUNT_ORDER}), '[]'::json) "
            f"{_accounts(alias, kind, field, include)})"
        )
        # A field with no visible account is left out, as the API leaves it out.
        fields.append(
            f"CASE WHEN {_stated(alias, kind, field, include)} THEN jsonb_build_object('{field}', "
            f"json_build_object('value', {value}, 'accounts', {accounts})) ELSE '{{}}'::jsonb END"
        )
    return f"({' || '.join(fields)})"


def _participation(event: str = "ev", include: str = "false") -> str:
    return f"""json_build_object(
        'slug', pa.slug, 'fictional', {_fictional("pa")},
        'event', {_ref(event, "events", "title")},
        'person', {_nullable_ref("pp", "persons")}, 'unit', {_nullable_ref("pu", "units")},
        'role', coalesce({_chosen("pa", "participation", "role", include)}, pa.role),
        'position', pa.position, 'note', pa.note,
        'citations', {_citations("pa", "participation_id", include)},
        'statements', {_statements("pa", "participation", include)})"""


EVENT_DOCUMENT = f"""json_build_object(
    'url', {API}events/' || e.slug || '/', 'slug', e.slug, 'title', e.title,
    'fictional', {_fictional("e")}, 'kind', e.kind, 'description', e.description,
    'date_text', {_stated_text("e", "event", "date", "false", "e.date_text", "as_written")},
    'date', {_stated_text("e", "event", "date", "false", "e.date")},
    'earliest', CASE WHEN {_stated("e", "event", "date", "false")}
        THEN {_chosen("e", "event", "date", "false", "earliest")} ELSE e.earliest END,
    'latest', CASE WHEN {_stated("e", "event", "date", "false")}
        THEN {_chosen("e", "event", "date", "false", "latest")} ELSE e.latest END,
    'locations', (SELECT coalesce(json_agg(json_build_object(
            'slug', l.slug, 'name', l.name, 'url', {API}locations/' || l.slug || '/',
            'parent', {_nullable_ref("lp", "locations")}) ORDER BY l.name, l.slug), '[]'::json)
        FROM archive_event_locations el JOIN archive_location l ON l.id = el.location_id
        LEFT JOIN archive_location lp ON lp.id = l.parent_id AND {_visible("lp")}
        WHERE el.event_id = e.id AND {_visible("l")}
          AND (NOT {_stated("e", "event", "location", "false")}
               OR l.slug IN (SELECT s.value {_accounts("e", "event", "location", "false", live=True)}))),
    'parent', (SELECT {_ref("pe", "events", "title")} FROM archive_event pe
        WHERE pe.id = e.parent_id AND {_visible("pe")}),
    'children', (SELECT coalesce(json_agg({_ref("ce", "events", "title")}
            ORDER BY ce.earliest ASC NULLS LAST, ce.latest ASC NULLS LAST, ce.slug), '[]'::json)
        FROM archive_event ce WHERE ce.parent_id = e.id AND {_visible("ce")}),
    'participations', (SELECT coalesce(json_agg({_participation("e")} ORDER BY pa.position, pa.id), '[]'::json)
        FROM archive_participation pa
        LEFT JOIN archive_person pp ON pp.id = pa.person_id AND pp.status = 'approved'
        LEFT JOIN archive_unit pu ON pu.id = pa.unit_id AND pu.status = 'approved'
        WHERE pa.event_id = e.id AND (pp.id IS NOT NULL OR pu.id IS NOT NULL)
          AND {_visible("pa")}),
    'citations', {_citations("e", "event_id")},
    'statements', {_statements("e", "event")})"""

# Paginate in an inner query: beside correlated subqueries, LIMIT/OFFSET on
# the outer one would evaluate them for every skipped row.
EVENTS = f"""WITH visible AS (
        SELECT e.id, e.earliest, e.latest, e.slug FROM archive_event e WHERE {_visible("e")}
    ), page AS (
        SELECT * FROM visible ORDER BY earliest ASC NULLS LAST, latest ASC NULLS LAST, slug
        LIMIT %(limit)s OFFSET %(offset)s
    ), total AS (SELECT count(*) AS n FROM visible)
    SELECT json_build_object(
        'count', total.n,
        'next', CASE WHEN total.n > %(offset)s + %(limit)s THEN %(next)s::text END,
        'previous', %(previous)s::text,
        'results', coalesce((
            SELECT json_agg(d.doc ORDER BY pg.earliest ASC NULLS LAST, pg.latest ASC NULLS LAST, pg.slug)
            FROM page pg CROSS JOIN LATERAL (SELECT {EVENT_DOCUMENT} AS doc FROM archive_event e WHERE e.id = pg.id) d
        ), '[]'::json))::text
    FROM total"""

# A detail always answers; a fictional record shows its evidence, fiction
# included (the API's default for the detail of a fictional record).
_SHOWN = "f.fictional"
PERSON = f"""SELECT json_build_object(
    'url', {API}persons/' || p.slug || '/', 'slug', p.slug, 'name', p.name,
    'fictional', f.fictional, 'marked_historical', p.marked_historical,
    'side', p.side, 'birth', {_stated_text("p", "person", "birth", _SHOWN, "p.birth")},
    'death', {_stated_text("p", "person", "death", _SHOWN, "p.death")}, 'description', p.description,
    'names', (SELECT coalesce(json_agg(json_build_object('name', n.name, 'kind', n.kind, 'script', n.script,
            'note', n.note) ORDER BY n.id), '[]'::json) FROM archive_personname n WHERE n.person_id = p.id),
    'posts', (SELECT coalesce(json_agg(json_build_object(
            'slug', po.slug, 'fictional', {_fictional("po")},
            'person', {_ref("p", "persons")}, 'unit', {_ref("u", "units")},
            'title', coalesce({_chosen("po", "post", "title", _SHOWN)}, po.title),
            'date_from', {_stated_text("po", "post", "date_from", _SHOWN, "po.date_from")},
            'date_to', {_stated_text("po", "post", "date_to", _SHOWN, "po.date_to")},
            'acting', po.acting, 'concurrent', po.concurrent,
            'note', po.note, 'citations', {_citations("po", "post_id", _SHOWN)},
            'statements', {_statements("po", "post", _SHOWN)})
            ORDER BY u.name, u.slug, po.title, po.slug), '[]'::json)
        FROM archive_post po JOIN archive_unit u ON u.id = po.unit_id AND u.status = 'approved'
        WHERE po.person_id = p.id AND {_visible("po", include=_SHOWN)}),
    'participations', (SELECT coalesce(json_agg({_participation("ev", _SHOWN)}
            ORDER BY ev.earliest ASC NULLS LAST, ev.slug, pa.id), '[]'::json)
        FROM archive_participation pa JOIN archive_event ev ON ev.id = pa.event_id
        JOIN archive_person pp ON pp.id = pa.person_id
        LEFT JOIN archive_unit pu ON pu.id = pa.unit_id AND pu.status = 'approved'
        WHERE pa.person_id = p.id AND {_visible("pa", include=_SHOWN)}
          AND {_visible("ev", include=_SHOWN)}),
    'citations', {_citations("p", "person_id", _SHOWN)},
    'statements', {_statements("p", "person", _SHOWN)})::text
FROM archive_person p CROSS JOIN LATERAL (SELECT {_fictional("p")} AS fictional) f
WHERE p.slug = %(slug)s AND p.status = 'approved'"""

_PERSON_PATH = re.compile(r"^/api/v1/persons/([^/]+)/$")
_connection: psycopg.Connection[Any] | None = None


def _cursor() -> psycopg.Cursor[Any]:
    global _connection
    if _connection is None or _connection.closed:
        _connection = psycopg.connect(os.environ["BENCH_DATABASE_URL"], autocommit=True)
        _connection.execute("SET TIME ZONE 'Asia/Shanghai'")
    return _connection.cursor()


def _page_link(base: str, page: int, size: int) -> str | None:
    return None if page < 1 else f"{base}/api/v1/events/?page={page}&page_size={size}"


def _events(base: str, query: dict[str, list[str]]) -> bytes | None:
    size = min(200, int(query.get("page_size", ["50"])[0]))
    page = int(query.get("page", ["1"])[0])
    previous = None if page == 1 else (f"{base}/api/v1/events/?page_size={size}" if page == 2 else None)
    if page > 2:
        previous = _page_link(base, page - 1, size)
    params = {
        "base": base,
        "limit": size,
        "offset": (page - 1) * size,
        "next": _page_link(base, page + 1, size),
        "previous": previous,
    }
    with _cursor() as cursor:
        cursor.execute(EVENTS, params)
        row = cursor.fetchone()
    return row[0].encode() if row else None


def _person(base: str, slug: str) -> bytes | None:
    with _cursor() as cursor:
        cursor.execute(PERSON, {"base": base, "slug": slug})
        row = cursor.fetchone()
    return row[0].encode() if row else None


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    path = environ.get("PATH_INFO", "")
    base = f"http://{environ.get('HTTP_HOST', '127.0.0.1')}"
    query = parse_qs(environ.get("QUERY_STRING", ""))
    body: bytes | None
    if path == "/api/v1/events/":
        body = _events(base, query)
    elif match := _PERSON_PATH.match(path):
        body = _person(base, match.group(1))
    elif path == "/health/":
        body = b'{"status": "ok"}'
    else:
        body = None
    if body is None:
        start_response("404 Not Found", [("Content-Type", "application/json")])
        return [b'{"detail": "Not found."}']
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
