"""The API's stored documents built for the whole synthetic archive, as after any bulk load.

`manage.py build_documents` builds every record's document in both fiction
modes, two hundred records per batch of queries. The baseline builds a sample
of the same documents one record at a time, as a first reader of each record
would have them built.
"""

from __future__ import annotations

import time

from bench.figures import Figure, Run, say

SAMPLE = 300


def build_documents(run: Run) -> None:
    from archive.api import stored
    from archive.management.commands.build_documents import RECORDS
    from archive.models.registry import FictionMode

    modes = [FictionMode.EXCLUDE, FictionMode.INCLUDE]
    started = time.perf_counter()
    count = stored.build_every(RECORDS, modes, progress=lambda what, n: say(f"stored documents: {what}: {n:,}"))
    seconds = time.perf_counter() - started
    say(f"stored documents: {count:,} in {seconds:.0f} s")

    kind = stored.KINDS["event"]
    keys = list(kind.select(FictionMode.EXCLUDE).prefetch_related(None).order_by("?")
                .values_list("slug", flat=True)[:SAMPLE])
    one_by_one = time.perf_counter()
    for key in keys:
        stored.build(kind, [key], FictionMode.EXCLUDE)
    baseline_rate = len(keys) / (time.perf_counter() - one_by_one)
    run.add(
        Figure(
            "stored documents: building every record's document in both fiction modes, documents/s",
            count / seconds,
            "documents/s",
            f"one record at a time ({len(keys)} events)",
            baseline_rate,
            "higher",
            notes=f"{count:,} documents in {seconds:.0f} s",
        )
    )
