"""A deterministic synthetic archive, for measuring the real one at scale.

The shipped archive holds three short texts; the questions that matter for
performance (a COPY of a million passages, a page of events over a large
citation table, a one-character search over every passage) need millions of
rows of the same shape. This package makes them:

* text is spliced from short runs of the seed texts themselves, so the
  character frequencies, the common two- and three-character words (撤退,
  下关, 挹江门) and the passage lengths are those of the seeds; the seeds are
  read at run time, never copied into code;
* sources come in every `SourceKind`, fiction included, each a few hundred to
  a few thousand passages, with `text` the passages joined by "\\n" so that
  the usual invariants (`length`, `sha256`, passages tiling the text) hold;
* people, units, places and events come at about one record per twenty
  passages, with posts, participations, names and aliases, and 1–5 citations
  per record whose quotes are slices of their passages (the database's
  triggers check it);
* review states are dealt from a fixed deck (mostly approved, some draft,
  in review and rejected) so that every mix of a few dozen rows has each.

Rows are written with `bulk_create` and `archive.importing.bulk` (COPY on
PostgreSQL) plus bulk history, source by source: only one source's rows are
held in memory at a time, with small bounded pools of earlier ids for links
across sources, so memory stays flat as the archive grows. `bulk_create`
bypasses `Curated.save()` and its guard on status transitions, which is what
a generator of already-reviewed data wants. The whole run is one transaction:
all or nothing, as every import.

The same seed gives the same archive (same `checksum`, computed over every
row's content in the order it is written, ids and timestamps excluded).

Only the benchmarks and their tests use it, so it lives beside them, out of
the archive's runtime package. Its modules: `corpus` (the seed texts and the
text spliced from them), `plan` (sources and their sizes), `vocabulary` (the
proportions and names), `rows` and `writer` (the rows, source by source),
`run` (`generate`, `describe`), `command` (`python -m bench.synthetic --passages N --seed S`).

The names below are looked up on first use, so that `python -m bench.synthetic`
can set Django up before the models are imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .corpus import SeedCorpus, default_seed_dir, load_corpus, passage_texts
    from .plan import DEFAULT_SOURCE_SIZES
    from .rows import Summary, peak_rss_mib
    from .run import describe, generate

_WHERE = {
    "DEFAULT_SOURCE_SIZES": "plan",
    "SeedCorpus": "corpus",
    "Summary": "rows",
    "default_seed_dir": "corpus",
    "describe": "run",
    "generate": "run",
    "load_corpus": "corpus",
    "passage_texts": "corpus",
    "peak_rss_mib": "rows",
}
__all__ = [
    "DEFAULT_SOURCE_SIZES",
    "SeedCorpus",
    "Summary",
    "default_seed_dir",
    "describe",
    "generate",
    "load_corpus",
    "passage_texts",
    "peak_rss_mib",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
