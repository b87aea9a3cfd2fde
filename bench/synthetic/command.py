"""Write a deterministic synthetic archive from the shell: `python -m bench.synthetic --passages N --seed S`.

The shell of `bench.synthetic.run.generate`: it reads the options, reports
progress, and prints what was written, the checksum that proves a seed gives
the same archive, and the peak memory, which stays flat as N grows because
sources are streamed. It writes to the database of the project's settings,
as `manage.py` does; `__main__` sets Django up first.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from .corpus import load_corpus
from .plan import DEFAULT_SOURCE_SIZES
from .run import describe, generate


def _sizes(text: str) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in text.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError("takes two numbers, MIN,MAX") from exc
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError("needs 1 <= MIN <= MAX")
    return low, high


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.synthetic",
        description="Write a synthetic archive of N passages, deterministic for a seed, in one transaction: "
        "sources of every kind, people, units, places, events and citations whose quotes are passage slices.",
    )
    parser.add_argument("--passages", type=int, default=20_000, help="number of passages (default 20,000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed; the same seed gives the same archive")
    parser.add_argument(
        "--seed-dir",
        default=None,
        help="directory of the seed texts (*.txt) whose characters and lengths are imitated "
        "(default: fixtures/sources)",
    )
    parser.add_argument(
        "--source-sizes",
        type=_sizes,
        default=DEFAULT_SOURCE_SIZES,
        metavar="MIN,MAX",
        help="passages per source (default {},{})".format(*DEFAULT_SOURCE_SIZES),
    )
    parser.add_argument("--quiet", action="store_true", help="print only the summary, no progress")
    return parser


def main(argv: list[str] | None = None, *, stdout: TextIO | None = None) -> int:
    """Run the generator; a refusal (no seed texts, a seed already written) exits with its reason."""
    options = parser().parse_args(argv)
    out = stdout or sys.stdout

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    try:
        corpus = load_corpus(options.seed_dir)
    except FileNotFoundError as exc:
        raise SystemExit(f"{exc} Pass --seed-dir.") from exc
    if not options.quiet:
        say(f"Seed texts: {', '.join(corpus.files)} ({len(corpus.lengths)} passages).")
    try:
        summary = generate(
            passages=options.passages,
            seed=options.seed,
            corpus=corpus,
            source_sizes=options.source_sizes,
            progress=None if options.quiet else say,
        )
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    for line in describe(summary):
        say(line)
    return 0
