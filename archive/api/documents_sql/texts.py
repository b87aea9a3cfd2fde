"""Sources, their passages and the citations that rest on them: the document of each, as one SQL expression.

A passage's citations are evidence for other records, so each is shown only
when the record it is evidence for is visible (`parts.target_visible`). A
source's passages and a passage follow the source's nature: fiction is
included for a fictional source, as the API's default is.
"""

from __future__ import annotations

from archive.api.documents_sql.parts import link, nested_citation, ref, target_visible


def source() -> str:
    """A source `src`."""
    return f"""json_build_object(
    'url', {link("sources/", "src.slug")}, 'slug', src.slug, 'title', src.title, 'author', src.author,
    'kind', src.kind, 'fictional', src.is_fiction, 'language', src.language, 'date', src.date,
    'publisher', src.publisher, 'publisher_place', src.publisher_place, 'container_title', src.container_title,
    'source_url', src.url, 'description', src.description, 'length', src.length, 'sha256', src.sha256,
    'file_name', src.file_name, 'passages', {link("sources/", "src.slug", "'/passages/'")})"""


def passage(include: str = "true") -> str:
    """A passage `ps` of its source `src`; the citations on it are all of that source, shown if `include`
    or the source is not fiction."""
    return f"""json_build_object(
    'id', ps.id, 'url', {link("passages/", "ps.id")}, 'fictional', src.is_fiction,
    'source', {ref("src", "sources", "title")}, 'seq', ps.seq, 'text', ps.text, 'start', ps.start,
    'end', ps."end", 'role', ps.role, 'sha256', ps.sha256,
    'quotes', (SELECT {ref("q", "sources", "title")} FROM archive_source q
        WHERE q.id = ps.quotes_id AND q.status = 'approved'),
    'citations', (SELECT coalesce(json_agg({nested_citation("c", "ps", "src")} ORDER BY c.start, c.id), '[]'::json)
        FROM archive_citation c WHERE c.passage_id = ps.id AND c.status = 'approved'
          AND ({include} OR NOT src.is_fiction) AND {target_visible("c")}))"""


# The tables `passage()` reads.
PASSAGE_TABLES = "archive_passage ps JOIN archive_source src ON src.id = ps.source_id"


def _target(field: str, tables: str, kind: str, slug: str, name: str, anchor: str = "") -> str:
    """The record a citation `c` is evidence for, when its `field` is set: a post or a participation
    is shown inside its person's or event's document, at an anchor."""
    tail = f"'/#{anchor}-' || t.slug" if anchor else "'/'"
    return f"""WHEN c.{field}_id IS NOT NULL THEN (SELECT json_build_object('type', '{field}', 'slug', t.slug,
            'name', {name}, 'url', {link(f"{kind}/", slug, tail)})
        FROM {tables} WHERE t.id = c.{field}_id)"""


def _target_of_citation() -> str:
    """The record a citation is evidence for, as a reference.

    The target's name is its `str()`: a post's and a participation's are built of their parts
    (a participation's role label is its value in English, the API's language).
    """
    return f"""CASE
    {_target("person", "archive_person t", "persons", "t.slug", "t.name")}
    {_target("unit", "archive_unit t", "units", "t.slug", "t.name")}
    {_target("location", "archive_location t", "locations", "t.slug", "t.name")}
    {_target("event", "archive_event t", "events", "t.slug", "t.title")}
    {_target("post", "archive_post t JOIN archive_person tp ON tp.id = t.person_id "
             "JOIN archive_unit tu ON tu.id = t.unit_id", "persons", "tp.slug",
             "tp.name || ' · ' || tu.name || ' ' || t.title", "post")}
    {_target("participation", "archive_participation t JOIN archive_event te ON te.id = t.event_id "
             "LEFT JOIN archive_person tp ON tp.id = t.person_id LEFT JOIN archive_unit tu ON tu.id = t.unit_id",
             "events", "te.slug", "coalesce(tp.name, tu.name) || ' · ' || t.role || ' · ' || te.title",
             "participation")}
    END"""

def citation() -> str:
    """A citation `c` on its passage `cp` of its source `cs`, with the record it is evidence for."""
    return f"""json_build_object(
    'id', c.id, 'url', {link("citations/", "c.id")}, 'slug', c.slug, 'fictional', cs.is_fiction,
    'source', {ref("cs", "sources", "title")}, 'passage', {link("passages/", "cp.id")}, 'seq', cp.seq,
    'quote', c.quote, 'start', c.start, 'end', c."end", 'claim', c.claim, 'rank', c.rank,
    'target', {_target_of_citation()})"""


# The tables `citation()` reads.
CITATION_TABLES = (
    "archive_citation c JOIN archive_passage cp ON cp.id = c.passage_id JOIN archive_source cs ON cs.id = cp.source_id"
)
