"""Sources, their passages and the citations that rest on them: each document in one SQL statement.

A passage's citations are evidence for other records, so each is shown only
when the record it is evidence for is visible (`sql.target_visible`). A
source's passages and a passage follow the source's nature: fiction is
included for a fictional source, as the API's default is.
"""

from __future__ import annotations

from bench.baseline.sql import API, nested_citation, page, ref, target_visible

SOURCE = f"""json_build_object(
    'url', {API}sources/' || src.slug || '/', 'slug', src.slug, 'title', src.title, 'author', src.author,
    'kind', src.kind, 'fictional', src.is_fiction, 'language', src.language, 'date', src.date,
    'publisher', src.publisher, 'publisher_place', src.publisher_place, 'container_title', src.container_title,
    'source_url', src.url, 'description', src.description, 'length', src.length, 'sha256', src.sha256,
    'file_name', src.file_name, 'passages', {API}sources/' || src.slug || '/passages/')"""

# A passage `ps` of its source `src`; the citations on it are all of that source.
PASSAGE = f"""json_build_object(
    'id', ps.id, 'url', {API}passages/' || ps.id || '/', 'fictional', src.is_fiction,
    'source', {ref("src", "sources", "title")}, 'seq', ps.seq, 'text', ps.text, 'start', ps.start,
    'end', ps."end", 'role', ps.role, 'sha256', ps.sha256,
    'quotes', (SELECT {ref("q", "sources", "title")} FROM archive_source q
        WHERE q.id = ps.quotes_id AND q.status = 'approved'),
    'citations', (SELECT coalesce(json_agg({nested_citation("c", "ps", "src")} ORDER BY c.start, c.id), '[]'::json)
        FROM archive_citation c WHERE c.passage_id = ps.id AND c.status = 'approved' AND {target_visible("c")}))"""
_PASSAGES = "archive_passage ps JOIN archive_source src ON src.id = ps.source_id"


def _target(field: str, tables: str, kind: str, slug: str, name: str, anchor: str = "") -> str:
    """The record a citation `c` is evidence for, when its `field` is set: a post or a participation
    is shown inside its person's or event's document, at an anchor."""
    suffix = f" || '#{anchor}-' || t.slug" if anchor else ""
    return f"""WHEN c.{field}_id IS NOT NULL THEN (SELECT json_build_object('type', '{field}', 'slug', t.slug,
            'name', {name}, 'url', {API}{kind}/' || {slug} || '/'{suffix})
        FROM {tables} WHERE t.id = c.{field}_id)"""


# The target's name is its `str()`: a post's and a participation's are built of their parts
# (a participation's role label is its value in English, the API's language).
_TARGET = f"""CASE
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

CITATION = f"""json_build_object(
    'id', c.id, 'url', {API}citations/' || c.id || '/', 'slug', c.slug, 'fictional', cs.is_fiction,
    'source', {ref("cs", "sources", "title")}, 'passage', {API}passages/' || cp.id || '/', 'seq', cp.seq,
    'quote', c.quote, 'start', c.start, 'end', c."end", 'claim', c.claim, 'rank', c.rank, 'target', {_TARGET})"""
_CITATIONS = (
    "archive_citation c JOIN archive_passage cp ON cp.id = c.passage_id JOIN archive_source cs ON cs.id = cp.source_id"
)
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
_SOURCE_OF_PATH = "(SELECT s.id FROM archive_source s WHERE s.slug = %(slug)s AND s.status = 'approved')"

PAGES = {
    "sources": page("archive_source src", "src", "src.status = 'approved' AND NOT src.is_fiction",
                    {"slug": "src.slug"}, "slug", SOURCE),
    "citations": page(_CITATIONS, "c", f"{_LISTED_VISIBLE} AND NOT cs.is_fiction",
                      {"source_slug": "cs.slug", "seq": "cp.seq", "start": "c.start"}, "source_slug, seq, start, id",
                      CITATION),
    # /sources/<slug>/passages/: every passage of the source, whatever its nature.
    "passages of a source": page(_PASSAGES, "ps", f"ps.source_id = {_SOURCE_OF_PATH}", {"seq": "ps.seq"}, "seq",
                                 PASSAGE, exists=f"EXISTS {_SOURCE_OF_PATH}"),
}
DETAILS = {
    "sources": f"SELECT {SOURCE}::text FROM archive_source src WHERE src.slug = %(slug)s AND src.status = 'approved'",
    "passages": f"SELECT {PASSAGE}::text FROM {_PASSAGES} WHERE ps.id = %(id)s AND src.status = 'approved'",
    "citations": f"""SELECT {CITATION}::text FROM {_CITATIONS}
        WHERE c.id = %(id)s AND c.status = 'approved' AND cs.status = 'approved' AND {target_visible("c")}""",
}
