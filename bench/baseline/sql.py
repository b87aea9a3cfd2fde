"""What the baseline's documents share: references, nested citations, statements, visibility and pages.

Each helper returns SQL text for PostgreSQL. `include` is always an SQL
boolean: whether the nested evidence of fiction is shown (the API's nested
fiction mode); a list leaves it false, a detail follows the record's own
nature. The statements take the parameters `base` (scheme and host of the
links) and, for a page, `limit`, `offset`, `next` and `previous`.
"""

from __future__ import annotations

API = "%(base)s::text || '/api/v1/"


def fictional(alias: str) -> str:
    """Whether a record is fiction: the flag the archive stores and keeps current (`archive.fiction`)."""
    return f"{alias}.fictional"


def ref(alias: str, kind: str, name: str = "name") -> str:
    return (
        f"json_build_object('slug', {alias}.slug, 'name', {alias}.{name}, 'url', {API}{kind}/' || {alias}.slug || '/')"
    )


def nullable_ref(alias: str, kind: str, name: str = "name") -> str:
    return f"CASE WHEN {alias}.id IS NULL THEN NULL ELSE {ref(alias, kind, name)} END"


def visible(alias: str, include: str = "false") -> str:
    """Approved, and not fictional unless `include` (an SQL boolean) says fiction is shown."""
    return f"{alias}.status = 'approved' AND ({include} OR NOT {fictional(alias)})"


def nested_citation(citation: str = "c", passage: str = "cp", source: str = "cs") -> str:
    """A citation inside the record it is evidence for (`NestedCitationSerializer`)."""
    return f"""json_build_object(
            'id', {citation}.id, 'url', {API}citations/' || {citation}.id || '/',
            'source', {ref(source, "sources", "title")},
            'passage', {API}passages/' || {passage}.id || '/',
            'seq', {passage}.seq, 'quote', {citation}.quote, 'claim', {citation}.claim, 'rank', {citation}.rank)"""


def citations(alias: str, fk: str, include: str = "false") -> str:
    """The visible citations of one record, in the API's order; those of fiction only if `include`."""
    return f"""(SELECT coalesce(json_agg({nested_citation()} ORDER BY cs.slug, cp.seq, c.start, c.id), '[]'::json)
        FROM archive_citation c JOIN archive_passage cp ON cp.id = c.passage_id
        JOIN archive_source cs ON cs.id = cp.source_id
        WHERE c.{fk} = {alias}.id AND c.status = 'approved' AND cs.status = 'approved'
          AND ({include} OR NOT cs.is_fiction))"""


def _approved_row(table: str, key: str) -> str:
    return f"EXISTS (SELECT 1 FROM archive_{table} t WHERE t.id = {key} AND t.status = 'approved')"


def target_visible(alias: str) -> str:
    """The record a citation is evidence for is visible (`selectors.visible_citation_q`)."""
    return f"""({_approved_row("person", f"{alias}.person_id")} OR {_approved_row("unit", f"{alias}.unit_id")}
        OR {_approved_row("location", f"{alias}.location_id")} OR {_approved_row("event", f"{alias}.event_id")}
        OR EXISTS (SELECT 1 FROM archive_post t JOIN archive_person tp ON tp.id = t.person_id
            JOIN archive_unit tu ON tu.id = t.unit_id WHERE t.id = {alias}.post_id
            AND t.status = 'approved' AND tp.status = 'approved' AND tu.status = 'approved')
        OR EXISTS (SELECT 1 FROM archive_participation t JOIN archive_event te ON te.id = t.event_id
            LEFT JOIN archive_person tp ON tp.id = t.person_id LEFT JOIN archive_unit tu ON tu.id = t.unit_id
            WHERE t.id = {alias}.participation_id AND t.status = 'approved' AND te.status = 'approved'
            AND (tp.status = 'approved' OR tu.status = 'approved')))"""


# --- statements: each stated field's visible accounts, and the value shown from them (`archive.statements`)

# The fields each kind of record states, and the one whose values add up (`archive.models.statements`).
STATED = {
    "event": ("date", "location"),
    "participation": ("role",),
    "post": ("title", "date_from", "date_to"),
    "person": ("birth", "death"),
    "location": ("coordinates",),
}
_MULTI_VALUED = {"location"}
# As `archive.models.statements.preference`: deprecated last, then stated before inferred, then rank.
_ACCOUNT_ORDER = (
    "s.rank = 'deprecated', s.basis = 'inferred', "
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


def accounts(alias: str, kind: str, field: str, include: str, *, live: bool = False) -> str:
    """FROM and WHERE of the visible statements `s` of one field of a record; `live` leaves out deprecated ones."""
    return f"""FROM archive_statement s WHERE s.{kind}_id = {alias}.id AND s.field = '{field}'
        AND s.status = 'approved' AND ({include} OR NOT {_STATEMENT_FICTIONAL})
        {"AND s.rank <> 'deprecated'" if live else ""}"""


def chosen(alias: str, kind: str, field: str, include: str, column: str = "value") -> str:
    """A column of the account the record shows for a single-valued field; NULL when none is live."""
    return f"(SELECT s.{column} {accounts(alias, kind, field, include, live=True)} ORDER BY {_ACCOUNT_ORDER} LIMIT 1)"


def stated(alias: str, kind: str, field: str, include: str) -> str:
    """Whether the field has visible accounts: then they, not the record's column, say what is shown."""
    return f"EXISTS (SELECT 1 {accounts(alias, kind, field, include)})"


def stated_text(alias: str, kind: str, field: str, include: str, fallback: str, column: str = "value") -> str:
    """A text the record shows: the chosen account's (or "" when all are deprecated) if stated, else `fallback`."""
    return (
        f"CASE WHEN {stated(alias, kind, field, include)} "
        f"THEN coalesce({chosen(alias, kind, field, include, column)}, '') ELSE {fallback} END"
    )


def _statement_citations(include: str) -> str:
    return f"""(SELECT coalesce(json_agg({nested_citation()} ORDER BY cs.slug, cp.seq, c.start, c.id), '[]'::json)
        FROM archive_statement_citations sc JOIN archive_citation c ON c.id = sc.citation_id
        JOIN archive_passage cp ON cp.id = c.passage_id JOIN archive_source cs ON cs.id = cp.source_id
        WHERE sc.statement_id = s.id AND c.status = 'approved' AND cs.status = 'approved'
          AND ({include} OR NOT cs.is_fiction))"""


def statements(alias: str, kind: str, include: str = "false") -> str:
    """The `statements` document of a record: per stated field, the value shown and every visible account."""
    account = f"""json_build_object('value', s.value, 'as_written', s.as_written, 'earliest', s.earliest,
        'latest', s.latest, 'rank', s.rank, 'basis', s.basis, 'reasoning', s.reasoning, 'reference', s.reference,
        'fictional', {_STATEMENT_FICTIONAL}, 'note', s.note,
        'citations', {_statement_citations(include)})"""
    fields = []
    for field in STATED[kind]:
        if field in _MULTI_VALUED:
            value = (
                f"(SELECT coalesce(json_agg(s.value ORDER BY {_ACCOUNT_ORDER}), '[]'::json) "
                f"{accounts(alias, kind, field, include, live=True)})"
            )
        else:
            value = chosen(alias, kind, field, include)
        listed = (
            f"(SELECT coalesce(json_agg({account} ORDER BY {_ACCOUNT_ORDER}), '[]'::json) "
            f"{accounts(alias, kind, field, include)})"
        )
        # A field with no visible account is left out, as the API leaves it out.
        fields.append(
            f"CASE WHEN {stated(alias, kind, field, include)} THEN jsonb_build_object('{field}', "
            f"json_build_object('value', {value}, 'accounts', {listed})) ELSE '{{}}'::jsonb END"
        )
    return f"({' || '.join(fields)})"


# --- pages ---------------------------------------------------------------------------------


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
