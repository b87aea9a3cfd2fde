"""The search index of passage text.

Passages are the one table that grows to millions of rows, and their text must
be matched after folding (Traditional/Simplified, NFKC, case), which the
database cannot do. So each passage gets one entry holding its folded text,
written in Python by `archive.search.reindex` and the `rebuild_search_index`
command. On PostgreSQL the migrations add a `grams` column (bigint[]: the
character 1- and 2-grams of the folded text as numbers, computed in Python
when the entry is written, see `archive.search.keys.gram_code`) with a GIN index, which serves one- and two-character
Chinese terms that pg_trgm cannot; the model does not declare that column so
that the same model and migration work on SQLite, where `folded LIKE` is used.

The small tables (persons, units, places, events, sources) are not indexed:
they are matched on the fly, so a rename is found at once.

`source` and `seq` repeat the passage's, so that counting and paging hits
need neither the passage table nor its text. `text_sha256` is the passage's
hash when the entry was written: an entry whose hash differs is stale.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core import checks
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.translation import gettext_lazy as _

from .sources import Passage, Source


class PassageSearchEntry(models.Model):
    passage = models.OneToOneField(
        Passage, verbose_name=_("passage"), primary_key=True, on_delete=models.CASCADE, related_name="search_entry"
    )
    # Indexed together with `seq` (Meta), the order hits are listed in.
    source = models.ForeignKey(
        Source, verbose_name=_("source"), on_delete=models.CASCADE, related_name="+", db_index=False
    )
    seq = models.PositiveIntegerField(_("number"))
    folded = models.TextField(_("folded text"))
    text_sha256 = models.CharField(_("SHA-256 of the indexed text"), max_length=64)

    class Meta:
        verbose_name = _("passage search entry")
        verbose_name_plural = _("passage search entries")
        # Hits come in this order: PostgreSQL walks it and stops after a page
        # for a common term; a rare one goes through the GIN index instead.
        indexes = [models.Index(fields=["source", "seq"], name="archive_pse_source_seq")]

    def __str__(self) -> str:
        return f"search entry of passage {self.passage_id}"


def database_encoding_problem(connection: BaseDatabaseWrapper) -> str | None:
    """Why the database cannot hold or match Chinese text, or None when it can.

    PostgreSQL's encoding is fixed when a database is created; SQL_ASCII or
    LATIN1 store CJK as bytes or refuse it, and lengths and offsets go wrong.
    The locale does not matter to this index (it compares whole grams), only
    to pg_trgm, which it does not use.
    """
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_encoding_to_char(encoding), datctype FROM pg_database WHERE datname = current_database()"
        )
        row = cursor.fetchone()
    if row is None:
        return None
    encoding, ctype = row
    if encoding.upper() not in {"UTF8", "UTF-8"}:
        return (
            f"The database {connection.settings_dict.get('NAME')!r} uses the encoding {encoding} "
            f"(LC_CTYPE {ctype}); Chinese text needs UTF8. Recreate it with "
            "CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0."
        )
    return None


@checks.register(checks.Tags.database)
def check_database_encoding(
    app_configs: object = None, databases: Iterable[str] | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    problems: list[checks.CheckMessage] = []
    for alias in databases or ():
        problem = database_encoding_problem(connections[alias])
        if problem:
            problems.append(checks.Warning(problem, id="archive.W101", obj=alias))
    return problems
