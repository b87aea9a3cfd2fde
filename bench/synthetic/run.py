"""One run of the generator: every source planned, written in one transaction, and summed up.

`generate` is what the benchmarks and the command call; `describe` turns
its summary into lines for a person.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from django.db import router, transaction

from archive import fiction
from archive.db.statistics import refresh_statistics
from archive.models import Passage, Source

from .corpus import SeedCorpus, load_corpus
from .plan import DEFAULT_SOURCE_SIZES, plan_kinds, plan_sizes
from .rows import Summary, peak_rss_mib
from .writer import Writer


def generate(
    *,
    passages: int,
    seed: int,
    corpus: SeedCorpus | None = None,
    seed_dir: Path | str | None = None,
    source_sizes: tuple[int, int] = DEFAULT_SOURCE_SIZES,
    using: str | None = None,
    progress: Callable[[str], None] | None = None,
    progress_every: int = 25,
) -> Summary:
    """Write a synthetic archive of `passages` passages, deterministic for `seed`, in one transaction.

    `progress` is called with a line of news after every `progress_every` sources.
    """
    corpus = corpus or load_corpus(seed_dir)
    using = using or router.db_for_write(Passage)
    started = time.perf_counter()
    writer = Writer(seed=seed, corpus=corpus, using=using)
    plan_rng = random.Random(f"{seed}:plan")
    sizes = plan_sizes(plan_rng, passages, source_sizes)
    kinds = plan_kinds(plan_rng, len(sizes))
    if Source.objects.using(using).filter(slug__startswith=f"{writer.prefix}-").exists():
        raise ValueError(f"The database already holds a synthetic archive of seed {seed} ({writer.prefix}-…).")
    with transaction.atomic(using=using):
        for index, (kind, size) in enumerate(zip(kinds, sizes, strict=True)):
            writer.write_source(index, kind, size)
            if progress and (index + 1) % progress_every == 0:
                done = writer.summary.passages
                elapsed = time.perf_counter() - started
                progress(
                    f"{done:,} / {passages:,} passages, {index + 1} sources, "
                    f"{done / elapsed:,.0f} passages/s, peak RSS {peak_rss_mib():.0f} MiB"
                )
        refresh_statistics(using=using)  # later queries are planned for the rows written, not for empty tables
        # Citations went in without signals: the fiction flags are set in one pass.
        fiction.refresh_all(using)
    summary = writer.summary
    summary.checksum = writer.digest.hexdigest()
    summary.seconds = time.perf_counter() - started
    summary.peak_rss_mib = peak_rss_mib()
    return summary


def describe(summary: Summary) -> Iterable[str]:
    """Lines for a human: what was written, how fast, in how much memory."""
    yield (
        f"Wrote {summary.passages:,} passages in {summary.sources:,} sources in {summary.seconds:.1f} s "
        f"({summary.rate():,.0f} passages/s)."
    )
    for name, count in sorted(summary.counts.items()):
        yield f"  {name}: {count:,}"
    yield f"Checksum: {summary.checksum}"
    yield f"Peak RSS: {summary.peak_rss_mib:.0f} MiB"
