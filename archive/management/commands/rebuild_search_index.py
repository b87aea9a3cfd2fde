"""Rebuild the passage search index, or bring it up to date after a bulk load.

Bulk writes (the importer's COPY, `bulk_create`, fixtures) do not index
passages one by one; this command does it in one pass, with COPY and a
single GIN build on PostgreSQL. `--update` writes only missing and stale
entries; `--check` reports them and fails when there are any.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from archive import search


class Command(BaseCommand):
    help = "Rebuild the search index of passage text (persons, places … are matched on the fly)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--update", action="store_true", help="Write only missing and stale entries.")
        parser.add_argument("--check", action="store_true", help="Report missing and stale entries; fail if any.")
        parser.add_argument("--database", default="default")
        parser.add_argument("--batch-size", type=int, default=5000)

    def handle(self, *args: Any, **options: Any) -> None:
        using = options["database"]
        try:
            search.index.ensure_usable(using)
        except search.SearchBackendError as error:
            raise CommandError(str(error)) from error
        if options["check"]:
            behind = search.stale_count(using=using)
            self.stdout.write(f"{behind['missing']} passages without an entry, {behind['stale']} stale entries")
            if behind["missing"] or behind["stale"]:
                raise CommandError("The search index is not up to date: run rebuild_search_index --update.")
            return

        def progress(written: int) -> None:
            if options["verbosity"] > 1:
                self.stdout.write(f"  {written} entries written")

        stats = search.rebuild(
            using=using, update_only=options["update"], batch_size=options["batch_size"], progress=progress
        )
        if options["verbosity"]:
            self.stdout.write(
                self.style.SUCCESS(f"Search index: {stats['written']} entries written, {stats['removed']} removed; "
                                   f"keys of {stats['names']} names stored.")
            )
