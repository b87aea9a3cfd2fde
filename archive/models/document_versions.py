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

# A tag's row may go once it has not moved for this long and no stored document carries it
# (`archive.api.stored.forget_unused_versions`). Longer than any build can take (a worker is killed
# after its timeout, build_documents builds in batches of seconds), so that no builder can still
# hold a version read before the row went: a row made again starts at 1, and a document stored
# under an older 1 would otherwise pass for current.
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

    def bump_everything(self, using: str | None = None) -> None:
        """For writes that bypass the model signals (COPY, bulk updates, merges): every document is stale."""
        self.bump([EVERYTHING], using=using)


class DocumentVersion(models.Model):
    tag = models.CharField(max_length=MAX_TAG_LENGTH, primary_key=True)
    version = models.BigIntegerField(default=0)
    # When the version last moved: rows of tags unused for long are deleted.
    bumped_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = DocumentVersionManager()

    def __str__(self) -> str:
        return f"{self.tag}@{self.version}"
