"""`import_source`: byte-exact import, refusals that write nothing, re-import and replacement."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import Citation, Passage, PassageRole, PassageSearchEntry, Source, Status
from archive.text.segment import Segment, join_passages, separators_of, sha256_text

from .helpers import SEED_FILES, WEB_NOVEL, cite_somewhere, import_file, snapshot

pytestmark = pytest.mark.django_db


def _segments(source: Source) -> list[Segment]:
    return [Segment(p.seq, p.start, p.end, p.text) for p in source.passages.order_by("seq")]


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.name)
def test_seed_file_is_rebuilt_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    out = import_file(path, "seed")
    source = Source.objects.get(slug="seed")
    assert "seed" in out and path.name in out
    assert source.text.encode("utf-8") == data
    segments = _segments(source)
    rebuilt = join_passages(source.length, segments, separators_of(source.text, segments))
    assert rebuilt.encode("utf-8") == data
    assert source.sha256 == hashlib.sha256(data).hexdigest()
    assert source.length == len(data.decode("utf-8"))
    assert source.file_name == path.name
    assert source.status == Status.DRAFT and source.created_by is None
    assert all(p.sha256 == sha256_text(p.text) for p in source.passages.all())
    # The passages are in the search index.
    assert PassageSearchEntry.objects.filter(source=source).count() == len(segments)
    # History is written in bulk for the passages, one record each.
    assert Passage.history.filter(source_id=source.pk, history_type="+").count() == len(segments)


def test_web_novel_advertisement_is_boilerplate() -> None:
    import_file(WEB_NOVEL, "web")
    passages = list(Passage.objects.filter(source__slug="web").order_by("seq"))
    assert passages[-1].role == PassageRole.BOILERPLATE
    assert "请大家收藏" in passages[-1].text
    assert all(p.role == PassageRole.BODY for p in passages[:-1])


def test_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    data = "\ufeff第一行\r\n\r\n第二行\r第三行\n".encode()
    path = tmp_path / "bom.txt"
    path.write_bytes(data)
    import_file(path, "bom")
    source = Source.objects.get(slug="bom")
    assert source.text.startswith("\ufeff")
    assert source.text.encode("utf-8") == data
    assert [p.text for p in source.passages.order_by("seq")] == ["第一行", "第二行", "第三行"]
    assert source.passages.get(seq=1).start == 1


def test_reimport_of_the_same_file_writes_nothing() -> None:
    import_file(WEB_NOVEL, "web")
    before = snapshot()
    with CaptureQueriesContext(connection) as queries:
        out = import_file(WEB_NOVEL, "web")
    assert "nothing changed" in out
    assert snapshot() == before
    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []


def test_same_file_under_another_slug_is_refused() -> None:
    import_file(WEB_NOVEL, "web")
    before = snapshot()
    with pytest.raises(CommandError, match="already imported as source web"):
        import_file(WEB_NOVEL, "web-again")
    assert snapshot() == before


def _write(path: Path, lines: list[str]) -> Path:
    path.write_bytes(("\n".join(lines) + "\n").encode())
    return path


def test_changed_file_is_refused_without_replace(tmp_path: Path) -> None:
    import_file(_write(tmp_path / "a.txt", ["第一行", "第二行"]), "src")
    before = snapshot()
    with pytest.raises(CommandError, match="--replace") as info:
        import_file(_write(tmp_path / "a.txt", ["第一行", "第二行改"]), "src")
    assert "a.txt" in str(info.value)
    assert snapshot() == before


def test_replace_reanchors_citations(tmp_path: Path) -> None:
    old = ["甲：唐生智下达撤退命令。", "乙：部队涌向挹江门。", "丙：船只在下关等候。"]
    import_file(_write(tmp_path / "v1.txt", old), "src")
    # Unpublished: a published source's text is never replaced in place (test_load_collection).
    source = Source.objects.get(slug="src")
    p1, p2, p3 = source.passages.order_by("seq")
    c1 = cite_somewhere(p1, "唐生智下达撤退命令")
    c2 = cite_somewhere(p2, "挹江门")
    c3 = cite_somewhere(p3, "下关")
    # A line is added in front, the second passage is edited around its quote, the third is unchanged.
    new = ["序：一九三七年十二月。", "甲：唐生智下达撤退命令。", "乙：大批部队涌向挹江门，秩序大乱。",
           "丙：船只在下关等候。"]
    out = import_file(_write(tmp_path / "v2.txt", new), "src", "--replace")
    assert "re-anchored" in out
    source.refresh_from_db()
    assert source.file_name == "v2.txt"
    assert source.text == "\n".join(new) + "\n"
    assert source.status == Status.DRAFT
    for citation, seq in ((c1, 2), (c2, 3), (c3, 4)):
        citation.refresh_from_db()
        assert citation.passage.source_id == source.pk
        assert citation.passage.seq == seq
        assert citation.passage.text[citation.start : citation.end] == citation.quote
        assert citation.status == Status.APPROVED
    assert Citation.history.filter(history_type="~", history_change_reason__startswith="re-anchored").count() == 3
    assert list(source.passages.order_by("seq").values_list("text", flat=True)) == new
    indexed = PassageSearchEntry.objects.filter(source=source).order_by("seq").values_list("text_sha256", flat=True)
    assert list(indexed) == [sha256_text(text) for text in new]


def test_replace_moves_a_citation_to_a_neighbour_when_its_passage_is_gone(tmp_path: Path) -> None:
    import_file(_write(tmp_path / "v1.txt", ["一：甲。", "二：乙。", "三：丙事件发生在挹江门。"]), "src")
    passage = Passage.objects.get(source__slug="src", seq=3)
    citation = cite_somewhere(passage, "丙事件发生在挹江门")
    # The third line is merged into the second; shorter text, one passage fewer.
    import_file(_write(tmp_path / "v2.txt", ["一：甲。", "二：乙。丙事件发生在挹江门。"]), "src", "--replace")
    citation.refresh_from_db()
    assert citation.passage.seq == 2
    assert citation.passage.text[citation.start : citation.end] == "丙事件发生在挹江门"
    assert not Passage.objects.filter(source__slug="src", seq=3).exists()


def test_replace_refuses_and_lists_citations_it_cannot_place(tmp_path: Path) -> None:
    import_file(_write(tmp_path / "v1.txt", ["甲：唐生智下达撤退命令。", "乙：部队涌向挹江门。"]), "src")
    p1, p2 = Passage.objects.filter(source__slug="src").order_by("seq")
    kept = cite_somewhere(p1, "唐生智")
    lost = cite_somewhere(p2, "涌向挹江门")
    before = snapshot()
    with pytest.raises(CommandError) as info:
        import_file(_write(tmp_path / "v2.txt", ["甲：唐生智下达撤退命令。", "乙：部队撤往下关。"]), "src", "--replace")
    message = str(info.value)
    assert lost.slug in message and "涌向挹江门" in message
    assert kept.slug not in message
    assert snapshot() == before


@pytest.mark.parametrize(
    "new",
    [
        # The cited passage is gone and both neighbours now hold the quote.
        ["一：开始了漫长的一夜，人们都去了挹江门。", "插入：完全不同的一段内容，和前后无关。",
         "三：结束的时候，所有人到了挹江门。"],
        # The cited passage was merged away and two passages resemble it equally.
        ["一：开始。挹江门。", "三：结束。挹江门。"],
    ],
    ids=["two-neighbours", "two-look-alikes"],
)
def test_replace_refuses_an_ambiguous_place(tmp_path: Path, new: list[str]) -> None:
    import_file(_write(tmp_path / "v1.txt", ["一：开始。", "二：挹江门。", "三：结束。"]), "src")
    citation = cite_somewhere(Passage.objects.get(source__slug="src", seq=2), "挹江门")
    before = snapshot()
    with pytest.raises(CommandError, match="more than one") as info:
        import_file(_write(tmp_path / "v2.txt", new), "src", "--replace")
    assert citation.slug in str(info.value)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\xe5\x8d\x97\xe4\xba\xac\xff\xfe", "byte offset 6"),
        ("南京".encode("gb18030"), "not valid UTF-8"),
        (b"", "empty"),
        (b"  \n\t\r\n\n", "empty"),
        ("\ufeff\n".encode(), "empty"),
        (b"PK\x03\x04\x00\x00binary", "NUL byte at byte offset 4"),
        (bytes(range(1, 9)) * 4 + b"abc", "control characters"),
    ],
    ids=["bad-utf8", "gb18030", "empty", "whitespace", "bom-only", "nul", "controls"],
)
def test_files_that_are_not_text_are_refused(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "bad-file.txt"
    path.write_bytes(data)
    before = snapshot()
    with pytest.raises(CommandError, match=expected) as info:
        import_file(path, "bad")
    assert "bad-file.txt" in str(info.value)
    assert snapshot() == before


def test_bad_metadata_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.txt", ["一行"])
    from .helpers import run

    with pytest.raises(CommandError, match="not a valid EDTF date"):
        run("import_source", str(path), "--slug", "a", "--title", "A", "--kind", "history", "--language", "en",
            "--date", "1937-13-45")
    assert not Source.objects.exists()
