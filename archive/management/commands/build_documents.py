"""Build the API's stored documents of a whole archive (`archive.api.stored`).

A document is built on its first read anyway; after a bulk load, building
them all at once spares the first readers of each record that cost. The
documents that can no longer be read (of records changed, deleted or
renamed since) are deleted first.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from archive.api import stored
from archive.models.registry import FictionMode

RECORDS = ["source", "person", "unit", "location", "event"]


class Command(BaseCommand):
    help = "Build the API's stored JSON documents of every shown record."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kind", action="append", choices=sorted(stored.KINDS),
                            help=f"kinds of document (default: {', '.join(RECORDS)}); repeat for several")
        parser.add_argument("--fiction", choices=["exclude", "include", "both"], default="both",
                            help="the fiction mode of the nested data (default both)")
        parser.add_argument("--batch", type=int, default=200, help="records built per query batch")

    def handle(self, *args: Any, **options: Any) -> None:
        modes = [FictionMode.EXCLUDE, FictionMode.INCLUDE] if options["fiction"] == "both" else [
            FictionMode(options["fiction"])]
        started = time.perf_counter()

        def report(what: str, count: int) -> None:
            self.stdout.write(f"{what}: {count} documents")

        self.stdout.write(f"Removed {stored.prune()} documents that can no longer be read.")
        forgotten = 0
        while (batch := stored.forget_unused_versions()) > 0:
            forgotten += batch
        self.stdout.write(f"Forgot the versions of {forgotten} tags that no document carries.")
        count = stored.build_every(options["kind"] or RECORDS, modes, batch=options["batch"], progress=report)
        self.stdout.write(f"Built {count} documents in {time.perf_counter() - started:.1f} s.")
