"""The synthetic archive the benchmarks run on: deterministic, valid, realistic in shape, flat in memory.

Small runs (a few hundred passages) on the test database; the benchmark
itself runs the same code at a million.
"""

from __future__ import annotations

import gc
import hashlib
import io
from pathlib import Path

import pytest
from django.db import transaction

from archive import fiction
from archive.models import (
    Citation,
    Event,
    Location,
    Passage,
    PassageRole,
    Person,
    Source,
    SourceKind,
    Status,
    Unit,
)
from bench import synthetic
from bench.synthetic import command

pytestmark = pytest.mark.django_db

# Seed texts of the same kind as the shipped ones (Simplified history, a
# Traditional novel), written for the test so that it needs no data files.
SIMPLIFIED = (
    "1937年12月12日傍晚5点，唐生智在百子亭召开会议，宣布撤退命令。\n"
    "各部队向挹江门拥去，下关码头上人潮汹涌，船只不足，许多士兵只能扎木筏渡江。\n"
    "宋希濂的第36师把守挹江门，奉命不许任何部队通过，城门附近发生了严重的拥挤。\n"
    "第74军向南突围，教导总队的一部分从太平门出城，沿着紫金山向东撤退。\n"
)
TRADITIONAL = (
    "1月22日夜11時，保衛南京的中國軍隊開始了撤退行動，沿著公路經馬鞍山向蕪湖撤退。\n"
    "第78師留下來斷後，日軍在凌晨3點發起了進攻，炮彈落在陣地上，守軍頑強抵抗。\n"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> synthetic.SeedCorpus:
    directory: Path = tmp_path_factory.mktemp("seeds")
    (directory / "history.txt").write_text(SIMPLIFIED, encoding="utf-8")
    (directory / "novel.txt").write_text(TRADITIONAL, encoding="utf-8")
    return synthetic.load_corpus(directory)


def _generate_and_roll_back(corpus: synthetic.SeedCorpus, **options: object) -> tuple[str, str]:
    """The generator's checksum and a digest read back from the database, leaving no rows."""
    with transaction.atomic():
        summary = synthetic.generate(corpus=corpus, **options)  # type: ignore[arg-type]
        stored = hashlib.sha256()
        for row in Source.objects.order_by("slug").values_list("slug", "kind", "status", "sha256"):
            stored.update(repr(row).encode())
        for row in Citation.objects.order_by("slug").values_list(
            "slug", "passage__source__slug", "passage__seq", "start", "quote", "status"
        ):
            stored.update(repr(row).encode())
        transaction.set_rollback(True)
    return summary.checksum, stored.hexdigest()


def test_the_corpus_is_read_from_the_seed_texts(corpus: synthetic.SeedCorpus) -> None:
    assert corpus.files == ("history.txt", "novel.txt")
    assert len(corpus.lengths) == 6
    assert "挹江门" in corpus.runs["zh-Hans"]
    assert "蕪湖" in corpus.runs["zh-Hant"]


def test_a_seed_gives_the_same_archive_and_another_seed_another(corpus: synthetic.SeedCorpus) -> None:
    first = _generate_and_roll_back(corpus, passages=300, seed=7)
    again = _generate_and_roll_back(corpus, passages=300, seed=7)
    other = _generate_and_roll_back(corpus, passages=300, seed=8)
    assert first == again
    assert other[0] != first[0]


def test_every_quote_is_its_passage_slice_and_every_passage_its_source_slice(corpus: synthetic.SeedCorpus) -> None:
    summary = synthetic.generate(corpus=corpus, passages=300, seed=1)
    assert summary.passages == Passage.objects.count() == 300
    for source in Source.objects.all():
        assert source.length == len(source.text)
        assert source.sha256 == hashlib.sha256(source.text.encode()).hexdigest()
        passages = list(source.passages.order_by("seq"))
        assert "\n".join(p.text for p in passages) == source.text
        for passage in passages:
            assert source.text[passage.start : passage.end] == passage.text
    citations = list(Citation.objects.select_related("passage"))
    assert citations
    for citation in citations:
        assert citation.passage.text[citation.start : citation.end] == citation.quote
        assert citation.target is not None


def test_the_archive_has_every_kind_of_source_fiction_included_and_a_review_mix(
    corpus: synthetic.SeedCorpus,
) -> None:
    synthetic.generate(corpus=corpus, passages=300, seed=1)
    assert set(Source.objects.values_list("kind", flat=True)) == set(SourceKind.values)
    assert Source.objects.filter(is_fiction=True).exists()
    assert Passage.objects.filter(role=PassageRole.BOILERPLATE, source__kind=SourceKind.WEB_NOVEL).exists()
    statuses = set()
    for model in (Person, Unit, Location, Event, Citation):
        statuses |= set(model.objects.values_list("status", flat=True))
    assert statuses == set(Status.values)
    approved = Citation.objects.filter(status=Status.APPROVED).count()
    assert approved / Citation.objects.count() > 0.6
    # Citations are written in bulk; the stored fiction flags still follow them.
    assert fiction.stale() == []
    assert any(model.objects.filter(fictional=True).exists() for model in fiction.CITED_MODELS)


def test_records_come_at_about_one_per_twenty_passages_with_one_to_five_citations(
    corpus: synthetic.SeedCorpus,
) -> None:
    synthetic.generate(corpus=corpus, passages=2000, seed=3, source_sizes=(100, 300))
    records = sum(model.objects.count() for model in (Person, Unit, Location, Event))
    assert 2000 / 30 <= records <= 2000 / 12
    for model in (Person, Unit, Location, Event):
        assert model.objects.exists()
        for record in model.objects.all():
            assert record.citations.count() >= 1
    assert Person.objects.filter(citations__passage__source__is_fiction=True).exists()
    # The alternate-history calendar has no year, hence no place on the real timeline.
    assert Event.objects.filter(date__startswith="XXXX", earliest__isnull=True).exists()
    assert not Event.objects.filter(date__startswith="XXXX", earliest__isnull=False).exists()


def test_history_is_written_for_the_bulk_rows(corpus: synthetic.SeedCorpus) -> None:
    synthetic.generate(corpus=corpus, passages=300, seed=1)
    assert Passage.history.count() == Passage.objects.count()
    assert Person.history.count() == Person.objects.count()
    assert Citation.history.count() == Citation.objects.count()
    assert Source.history.count() == Source.objects.count()


def test_memory_is_flat_as_the_archive_grows(corpus: synthetic.SeedCorpus) -> None:
    # Sources are streamed: after each source, the rows alive in memory are at
    # most one source's worth, however many sources came before.
    live: list[int] = []

    def count_live_rows(_line: str) -> None:
        gc.collect()
        # type(), not isinstance(): isinstance() on a dead weak proxy raises ReferenceError.
        live.append(sum(1 for obj in gc.get_objects() if type(obj) in (Passage, Citation)))

    summary = synthetic.generate(
        corpus=corpus,
        passages=1200,
        seed=5,
        source_sizes=(20, 40),
        progress=count_live_rows,
        progress_every=5,
    )
    assert summary.sources // 5 == len(live) >= 5
    biggest_source = 40 + 40 // 20 * 5 * 2  # its passages, and citations (1-5 per record, twice for links)
    assert max(live) <= biggest_source, live
    assert summary.peak_rss_mib > 0


def test_the_command_reports_checksum_and_peak_memory(corpus: synthetic.SeedCorpus, tmp_path: Path) -> None:
    (tmp_path / "history.txt").write_text(SIMPLIFIED, encoding="utf-8")
    out = io.StringIO()
    argv = ["--passages", "300", "--seed", "2", "--seed-dir", str(tmp_path)]
    assert command.main(argv, stdout=out) == 0
    text = out.getvalue()
    assert "Wrote 300 passages" in text
    assert "Checksum: " in text
    assert "Peak RSS: " in text
    with pytest.raises(SystemExit, match="already holds"):
        command.main(argv, stdout=io.StringIO())


def test_the_command_refuses_bad_source_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        command.main(["--passages", "300", "--source-sizes", "30,10"])
    assert "MIN <= MAX" in capsys.readouterr().err
