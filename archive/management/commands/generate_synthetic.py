"""Write a deterministic synthetic archive: `manage.py generate_synthetic --passages N --seed S`.

The benchmarks need an archive of a million passages in the shape of the real
one; `archive.importing.synthetic` makes it from the seed texts. This command
is its shell: it reads the options, reports progress, and prints what was
written, the checksum that proves a seed gives the same archive, and the
peak memory, which stays flat as N grows because sources are streamed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from archive.importing import synthetic


class Command(BaseCommand):
    help = (
        "Write a synthetic archive of N passages, deterministic for a seed, in one transaction: "
        "sources of every kind, people, units, places, events and citations whose quotes are passage slices."
    )

    def add_arguments(self, parser: CommandParser) -> None:
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
            default=None,
            metavar="MIN,MAX",
            help="passages per source (default {},{})".format(*synthetic.DEFAULT_SOURCE_SIZES),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        sizes = synthetic.DEFAULT_SOURCE_SIZES
        if options["source_sizes"]:
            try:
                low, high = (int(part) for part in options["source_sizes"].split(","))
            except ValueError as exc:
                raise CommandError("--source-sizes takes two numbers, MIN,MAX") from exc
            if not 1 <= low <= high:
                raise CommandError("--source-sizes needs 1 <= MIN <= MAX")
            sizes = (low, high)
        verbose = options["verbosity"] >= 1
        try:
            corpus = synthetic.load_corpus(options["seed_dir"])
        except FileNotFoundError as exc:
            raise CommandError(f"{exc} Pass --seed-dir.") from exc
        if verbose:
            self.stdout.write(f"Seed texts: {', '.join(corpus.files)} ({len(corpus.lengths)} passages).")
        try:
            summary = synthetic.generate(
                passages=options["passages"],
                seed=options["seed"],
                corpus=corpus,
                source_sizes=sizes,
                progress=self.stdout.write if verbose else None,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        for line in synthetic.describe(summary):
            self.stdout.write(line)
