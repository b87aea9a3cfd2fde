"""Keeping the passage index current: reindex, index_record and the rebuild command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from archive import search
from archive.models import Passage, PassageSearchEntry
from archive.text.segment import sha256_text
from tests.factories import source_with_text

from .conftest import World


def found(term: str) -> set[int]:
    return {hit.id for hit in search.search(term, types=["passage"])}


def test_passages_written_in_bulk_are_found_after_reindex(world: World) -> None:
    source = source_with_text("新写入的段落提到煤炭港。", slug="fresh")
    assert found("煤炭港") == set()
    assert search.reindex([source]) == 1
    assert found("煤炭港") == {source.passages.get().pk}


def test_reindex_accepts_passages_querysets_and_ignores_small_records(world: World) -> None:
    source = source_with_text("甲段煤炭港。\n乙段煤炭港。", slug="two")
    first, second = source.passages.order_by("seq")
    assert search.index_record(first) == 1
    assert found("煤炭港") == {first.pk}
    assert search.reindex(Passage.objects.filter(pk=second.pk)) == 1
    assert found("煤炭港") == {first.pk, second.pk}
    assert search.reindex([world.tang, world.nanjing]) == 0  # matched on the fly
    assert search.reindex([source, first]) == 2  # rewriting is harmless
    assert PassageSearchEntry.objects.filter(source=source).count() == 2


def test_a_renamed_record_is_found_at_once(world: World) -> None:
    from archive.models import Location

    Location.objects.filter(pk=world.xiaguan.pk).update(name="下關碼頭")
    assert [hit.slug for hit in search.search("下关码头", types=["location"])] == ["xiaguan"]


def test_rebuild_command_writes_every_passage(world: World) -> None:
    PassageSearchEntry.objects.all().delete()
    out = StringIO()
    call_command("rebuild_search_index", stdout=out)
    assert PassageSearchEntry.objects.count() == Passage.objects.count()
    assert f"{Passage.objects.count()} entries written" in out.getvalue()
    assert found("芜湖") == {world.passage(world.memoir, 1).pk}
    call_command("rebuild_search_index", stdout=StringIO())  # twice is the same
    assert PassageSearchEntry.objects.count() == Passage.objects.count()


def test_check_reports_missing_and_stale_entries_and_update_repairs_them(world: World) -> None:
    out = StringIO()
    call_command("rebuild_search_index", "--check", stdout=out)
    assert "0 passages without an entry, 0 stale entries" in out.getvalue()

    fresh = source_with_text("新到的段落写着煤炭港。", slug="unindexed")
    edited = world.passage(world.history, 2)
    new_text = edited.text.replace("下关", "江边")
    Passage.objects.filter(pk=edited.pk).update(text=new_text, sha256=sha256_text(new_text))
    with pytest.raises(CommandError, match="not up to date"):
        call_command("rebuild_search_index", "--check", stdout=(out := StringIO()))
    assert "1 passages without an entry, 1 stale entries" in out.getvalue()

    call_command("rebuild_search_index", "--update", stdout=StringIO())
    call_command("rebuild_search_index", "--check", stdout=StringIO())
    assert found("煤炭港") == {fresh.passages.get().pk}
    assert edited.pk not in found("下关")
    assert edited.pk in found("江边")


def test_a_stale_entry_still_gives_a_hit_without_offsets(world: World) -> None:
    passage = world.passage(world.history, 2)
    new_text = passage.text.replace("下关", "江边")
    Passage.objects.filter(pk=passage.pk).update(text=new_text, sha256=sha256_text(new_text))
    [hit] = [hit for hit in search.search("下关") if hit.type == "passage"]
    assert hit.id == passage.pk and hit.start is None and hit.end is None
