"""A version per tag of the API's documents, bumped by the writes that change them.

A cached API answer is stored under the versions of the tags it depends on
(`kind:slug` for a record's own document, `kind:list` for its lists, `*` for
everything), so a write invalidates what it touched and leaves the rest of the
archive's cached pages alone. `archive.freshness` decides which tags a write
touches; this module only reads and bumps the counters. A bump runs in the
writer's transaction, so it becomes visible exactly when the write does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import connections, models, router
from django.utils import timezone

EVERYTHING = "*"
MAX_TAG_LENGTH = 300

# A tag's row may go once it has not moved for this long and no stored document carries it. Longer
# than any build can take (a worker is killed after its timeout, build_documents builds in batches of
# seconds), so that no builder can still hold a version read before the row went: a row made again
# starts at 1, and a document stored under an older 1 would otherwise pass for current.
UNUSED_ROWS_KEPT_FOR = dt.timedelta(hours=1)
# Rows forgotten in one statement, so that the clean-up after a write stays a bounded piece of work.
FORGOTTEN_PER_STATEMENT = 1000


class DocumentVersionManager(models.Manager["DocumentVersion"]):
    def versions(self, tags: Iterable[str], using: str | None = None) -> dict[str, int]:
        """The current version of each tag; a tag never bumped is at 0."""
        wanted = sorted(set(tags))
        alias = using or router.db_for_read(self.model)
        found = dict(self.using(alias).filter(tag__in=wanted).values_list("tag", "version"))
        return {tag: found.get(tag, 0) for tag in wanted}

    def bump(self, tags: Iterable[str], using: str | None = None) -> None:
        """Add one to the version of each tag, in one statement, in the caller's transaction."""
        wanted = sorted({tag[:MAX_TAG_LENGTH] for tag in tags})
        if not wanted:
            return
        alias = using or router.db_for_write(self.model)
        connection = connections[alias]
        table = connection.ops.quote_name(self.model._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        rows = ", ".join(["(%s, 1, %s)"] * len(wanted))
        # Sorted tags lock their rows in one order, so two writers never deadlock on them.
        sql = (
            f"INSERT INTO {table} (tag, version, bumped_at) VALUES {rows} "
            f"ON CONFLICT (tag) DO UPDATE SET version = {table}.version + 1, bumped_at = excluded.bumped_at"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [value for tag in wanted for value in (tag, now)])

    def forget_unused(self, using: str | None = None, *, kept_for: dt.timedelta = UNUSED_ROWS_KEPT_FOR) -> int:
        """Delete the rows of tags that no stored document carries and nothing bumped for `kept_for`.

        Such a tag reads as 0 again, as one never bumped: its next document is built and stored
        under 0, its next write makes the row again. `*` is never forgotten. Answers how many went;
        at most FORGOTTEN_PER_STATEMENT at a time.
        """
        from archive.models.stored_documents import StoredDocument

        alias = using or router.db_for_write(self.model)
        connection = connections[alias]
        quote = connection.ops.quote_name
        table, stored = quote(self.model._meta.db_table), quote(StoredDocument._meta.db_table)
        before = connection.ops.adapt_datetimefield_value(timezone.now() - kept_for)
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {table} WHERE tag IN (SELECT v.tag FROM {table} v WHERE v.tag <> %s "
                f"AND v.bumped_at < %s AND NOT EXISTS (SELECT 1 FROM {stored} d WHERE d.tag = v.tag) LIMIT %s)",
                [EVERYTHING, before, FORGOTTEN_PER_STATEMENT],
            )
            return int(cursor.rowcount)

    def bump_everything(self, using: str | None = None) -> None:
        """For writes that bypass the model signals (COPY, bulk updates, merges): every document is stale."""
        self.bump([EVERYTHING], using=using)


class DocumentVersion(models.Model):
    tag = models.CharField(max_length=MAX_TAG_LENGTH, primary_key=True)
    version = models.BigIntegerField(default=0)
    # When the version last moved: rows of tags unused for long are deleted (`forget_unused`).
    bumped_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = DocumentVersionManager()

    def __str__(self) -> str:
        return f"{self.tag}@{self.version}"
