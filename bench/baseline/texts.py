"""Sources, their passages and the citations that rest on them: a detail and a page of each, in SQL.

A passage's citations are evidence for other records, so each is shown only
when the record it is evidence for is visible (`target_visible`). A source's
passages and a passage follow the source's nature: fiction is included for a
fictional source, as the API's default is.
"""

from __future__ import annotations

from archive.api.documents_sql.pages import first_reading, page
from archive.api.documents_sql.parts import target_visible
from archive.api.documents_sql.texts import CITATION_TABLES, PASSAGE_TABLES, citation, passage, source

_SOURCE_OF_PATH = "(SELECT s.id FROM archive_source s WHERE s.slug = %(slug)s AND s.status = 'approved')"
PAGES = {
    "sources": first_reading("source"),
    "citations": first_reading("citation"),
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
