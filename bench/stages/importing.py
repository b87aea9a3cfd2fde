"""Import: passages per second through the bulk path against django-import-export row by row.

Ours is `archive.importing.bulk.insert_passages` (COPY and bulk history);
the baseline is django-import-export's default `ModelResource`. Both write
in a transaction that is rolled back, so the archive measured afterwards is
the one generated.
"""

from __future__ import annotations

import random
from typing import Any

from bench.figures import Figure, Run
from bench.measuring import timed
from bench.stages.generate import vacuum


def import_figures(run: Run) -> None:
    """Ours: insert_passages (COPY + bulk history); baseline: import-export's default Resource, row by row."""
    import tablib
    from django.db import transaction
    from import_export import resources

    from archive.importing.bulk import insert_passages
    from archive.models import Passage, Source, SourceKind, Status
    from archive.text.segment import Segment, sha256_text
    from bench import synthetic

    # The rows come as sources of a realistic size (SOURCE_ROWS passages each):
    # django-import-export's default foreign-key widget loads the whole Source
    # row, full text included, for every passage, so one giant source would
    # make the baseline look far worse than it is. The baseline imports the
    # first source's rows, which are also the first rows ours writes.
    corpus = synthetic.load_corpus(run.args.seed_dir)
    ours_rows = min(50_000, max(run.args.baseline_rows * 5, run.args.scale // 20))
    size = run.args.baseline_rows
    rng = random.Random(f"bench-import:{run.args.seed}")
    chunks: list[tuple[str, list[Segment]]] = []
    for first in range(0, ours_rows, size):
        texts = synthetic.passage_texts(rng, corpus, "zh-Hans", min(size, ours_rows - first))
        segments, offset = [], 0
        for seq, text in enumerate(texts, start=1):
            segments.append(Segment(seq, offset, offset + len(text), text))
            offset += len(text) + 1
        chunks.append(("\n".join(texts), segments))

    def new_source(slug: str, full_text: str) -> Source:
        source = Source(
            slug=slug,
            title="import benchmark",
            kind=SourceKind.HISTORY,
            language="zh-Hans",
            text=full_text,
            status=Status.DRAFT,
        )
        source.length = len(full_text)
        Source.objects.bulk_create([source])
        return source

    with transaction.atomic():
        sources = [new_source(f"bench-import-ours-{n}", text) for n, (text, _segs) in enumerate(chunks)]

        def ours_import() -> None:
            for source, (_text, segments) in zip(sources, chunks, strict=True):
                insert_passages(source, segments, reason="benchmark")

        ours_seconds = timed(ours_import)
        assert Passage.objects.filter(source__in=sources).count() == ours_rows
        transaction.set_rollback(True)

    class PassageResource(resources.ModelResource):
        class Meta:
            model = Passage

    full_text, sample = chunks[0]
    with transaction.atomic():
        source = new_source("bench-import-baseline", full_text)
        headers = ["id", "source", "seq", "text", "start", "end", "sha256", "role", "quotes"]
        dataset = tablib.Dataset(headers=headers)
        for seg in sample:
            dataset.append(["", source.pk, seg.seq, seg.text, seg.start, seg.end, sha256_text(seg.text), "body", ""])
        resource = PassageResource()
        result: list[Any] = []
        baseline_seconds = timed(lambda: result.append(resource.import_data(dataset, dry_run=False)))
        if result[0].has_errors() or result[0].has_validation_errors():
            raise RuntimeError(
                f"django-import-export refused the rows: {result[0].base_errors or result[0].invalid_rows}"
            )
        assert Passage.objects.filter(source=source).count() == len(sample)
        transaction.set_rollback(True)

    ours = ours_rows / ours_seconds
    baseline = len(sample) / baseline_seconds
    ratio = ours / baseline
    run.add(
        Figure(
            "import: passages/s, bulk path (COPY + bulk history)",
            ours,
            "passages/s",
            "django-import-export, default ModelResource, row by row",
            baseline,
            "higher",
            target="ratio ≥ 30×",
            met=ratio >= 30,
            notes=f"ours {ours_rows:,} rows ({len(chunks)} sources of {size:,} passages) in {ours_seconds:.2f} s; "
            f"baseline the first source's {len(sample):,} rows, the same, in {baseline_seconds:.2f} s; "
            "both in a transaction that is rolled back, both with history",
        )
    )
    vacuum()  # the rows rolled back, before the API figures
