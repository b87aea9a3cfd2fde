"""Sources, their passages and the citations that rest on them: a detail and a page of each, in SQL.

A passage's citations are evidence for other records, so each is shown only
when the record it is evidence for is visible (`target_visible`). A source's
passages and a passage follow the source's nature: fiction is included for a
fictional source, as the API's default is.
"""

from __future__ import annotations

from archive.api.documents_sql.parts import target_visible
from archive.api.documents_sql.texts import CITATION_TABLES, PASSAGE_TABLES, citation, passage, source
from bench.baseline.sql import page

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
                    {"slug": "src.slug"}, "slug", source()),
    "citations": page(CITATION_TABLES, "c", f"{_LISTED_VISIBLE} AND NOT cs.is_fiction",
                      {"source_slug": "cs.slug", "seq": "cp.seq", "start": "c.start"}, "source_slug, seq, start, id",
                      citation()),
    # /sources/<slug>/passages/: every passage of the source, whatever its nature.
    "passages of a source": page(PASSAGE_TABLES, "ps", f"ps.source_id = {_SOURCE_OF_PATH}", {"seq": "ps.seq"}, "seq",
                                 passage(), exists=f"EXISTS {_SOURCE_OF_PATH}"),
}
DETAILS = {
    "sources": f"SELECT {source()}::text FROM archive_source src WHERE src.slug = %(slug)s AND src.status = 'approved'",
    "passages": f"SELECT {passage()}::text FROM {PASSAGE_TABLES} WHERE ps.id = %(id)s AND src.status = 'approved'",
    "citations": f"""SELECT {citation()}::text FROM {CITATION_TABLES}
        WHERE c.id = %(id)s AND c.status = 'approved' AND cs.status = 'approved' AND {target_visible("c")}""",
}
