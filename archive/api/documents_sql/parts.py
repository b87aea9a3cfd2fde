"""What the documents built in SQL share: links, references, nested citations, statements and visibility.

Each helper returns SQL text for PostgreSQL. `include` is always an SQL
boolean: whether the nested evidence of fiction is shown (the API's nested
fiction mode). A link is written in one of two ways (`link`): as text after
the parameter `base` (scheme and host), as the benchmark's baseline serves
it, or with the API's origin mark where the host goes, as the API stores its
documents (`archive.api.stored`), chosen when a statement is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from archive.models.statements import FIELDS_OF, MULTI_VALUED

# Whether the statements written now carry the origin mark in their links (`marked_links`): one value per
# thread, so that two requests writing their statements at once never mix the two ways.
_marked: ContextVar[bool] = ContextVar("marked_links", default=False)


@contextmanager
def marked_links() -> Iterator[None]:
    """Write the links of the statements built inside with the origin mark, not the `base` parameter.

    The mark is the NUL character (`archive.api.stored.ORIGIN`), which
    PostgreSQL's text cannot hold: the link is written as a JSON string with
    the mark escaped (`\\u0000`) and cast to `json`, which keeps it as written.
    No record's text can be taken for it: the archive refuses NUL in text.
    """
    token = _marked.set(True)
    try:
        yield
    finally:
        _marked.reset(token)


def links_marked() -> bool:
    """Whether the statements written now carry the origin mark in their links (`marked_links`)."""
    return _marked.get()


def link(path: str, key: str, tail: str = "'/'") -> str:
    """The link to an API path: `path` (after `/api/v1/`), then the SQL expressions `key` and `tail`.

    Keys are slugs and ids, which need no escaping in JSON.
    """
    if _marked.get():
        return f"""('"\\u0000origin/api/v1/{path}' || {key} || {tail} || '"')::json"""
    return f"%(base)s::text || '/api/v1/{path}' || {key} || {tail}"


def fictional(alias: str) -> str:
    """Whether a record is fiction: the flag the archive stores and keeps current (`archive.fiction`)."""
    return f"{alias}.fictional"


def ref(alias: str, kind: str, name: str = "name") -> str:
    return (
        f"json_build_object('slug', {alias}.slug, 'name', {alias}.{name}, 'url', {link(f'{kind}/', f'{alias}.slug')})"
    )


def nullable_ref(alias: str, kind: str, name: str = "name") -> str:
    return f"CASE WHEN {alias}.id IS NULL THEN NULL ELSE {ref(alias, kind, name)} END"


def visible(alias: str, include: str = "false") -> str:
    """Approved, and not fictional unless `include` (an SQL boolean) says fiction is shown."""
    return f"{alias}.status = 'approved' AND ({include} OR NOT {fictional(alias)})"


def nested_citation(citation: str = "c", passage: str = "cp", source: str = "cs") -> str:
    """A citation inside the record it is evidence for (`NestedCitationSerializer`)."""
    return f"""json_build_object(
            'id', {citation}.id, 'url', {link('citations/', f'{citation}.id')},
            'source', {ref(source, "sources", "title")},
            'passage', {link('passages/', f'{passage}.id')},
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
    fields: list[str] = []
    for field in FIELDS_OF[kind]:
        if field in MULTI_VALUED:
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
        fields.append(
            f"({len(fields)}, '{field}', CASE WHEN {stated(alias, kind, field, include)} "
            f"THEN json_build_object('value', {value}, 'accounts', {listed}) END)"
        )
    # A field with no visible account is left out, as the API leaves it out; the others keep their order
    # (`json`, not `jsonb`, which would order the keys its own way).
    return f"""(SELECT coalesce(json_object_agg(f.name, f.shown ORDER BY f.n), '{{}}'::json)
        FROM (VALUES {', '.join(fields)}) AS f(n, name, shown) WHERE f.shown IS NOT NULL)"""
