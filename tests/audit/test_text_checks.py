"""The checks that read the sources' words: each finds a planted case and stays silent on a correct one."""

from __future__ import annotations

import itertools
import json

import pytest
from django.core.management import call_command
from django.db import connection

from archive.audit import run_audit
from archive.audit.checks import CHECKS
from archive.audit.text_checks import grams, unrecorded_names
from archive.db.cited_passages import rewriting
from archive.models import Citation, CuratorNote, Passage, Statement
from tests.audit.builders import event, location, participation, person, published, unit
from tests.factories import cite, source_with_text

pytestmark = pytest.mark.django_db

_numbers = itertools.count(1)
HISTORY = "唐生智于12日傍晚5点召开会议，下达撤退令。\n\n部队从挹江门拥向下关。\n\n第2军与第36师在江边。\n"
NOVEL = "金陵城中山路失火，唐司令坐车去码头。\n\n夜色如墨，江风呜咽不止。\n"


@pytest.fixture
def history():  # type: ignore[no-untyped-def]
    return source_with_text(HISTORY, slug="history")


@pytest.fixture
def novel():  # type: ignore[no-untyped-def]
    return source_with_text(NOVEL, slug="novel", kind="web-novel")


def found(code: str) -> set[str]:
    return {f.slug for f in run_audit(codes=[code]).findings}


def statement(target: object, field: str, value: str, rank: str = "normal", **extra: object) -> Statement:
    n = next(_numbers)
    return published(Statement(slug=f"st-{n}", field=field, value=value, rank=rank, event=target, **extra))


def test_phrases_are_runs_of_six_word_characters() -> None:
    assert [g for _, g in grams("夜色如墨啊，江风呜咽不止")] == ["夜色如墨啊", "江风呜咽不止"]
    assert [g for _, g in grams("那夜色如墨啊")] == ["那夜色如墨啊"]
    assert [at for at, _ in grams("ab夜色如墨江风")] == [0, 1, 2]
    assert [g for _, g in grams("13日；直到翌日。夜色")] == ["直到翌日"]  # a short clause counts whole


def test_fiction_phrase_from_an_uncited_passage(history, novel) -> None:  # type: ignore[no-untyped-def]
    # The novel's §2 is cited by nobody; its words still are fiction's.
    borrowed = event(slug="borrowed", description="那天夜色如墨，江风呜咽不止。")
    cite(history.passages.get(seq=1), "召开会议", event=borrowed)
    traditional = event(slug="traditional", date_text="那時江風嗚咽不止")  # folded before comparing
    cite(history.passages.get(seq=1), "召开会议", event=traditional)
    shared = event(slug="shared", description="唐生智于12日傍晚5点召开会议")  # the history's own words
    cite(history.passages.get(seq=1), "召开会议", event=shared)
    short = event(slug="short", description="那夜色如墨")  # four characters inside a clause are no phrase
    cite(history.passages.get(seq=1), "召开会议", event=short)
    clause = event(slug="clause", date_text="12日；夜色如墨")  # but a whole clause of four is
    cite(history.passages.get(seq=1), "召开会议", event=clause)
    fictional = event(slug="fictional", description="夜色如墨，江风呜咽不止")
    cite(novel.passages.get(seq=2), "夜色如墨", event=fictional)
    fictional.refresh_from_db()
    assert fictional.fictional
    assert found("fiction-phrase") == {"borrowed", "traditional", "clause"}
    (finding,) = run_audit(codes=["fiction-phrase"]).findings[:1]
    assert finding.field in {"description", "date_text"} and finding.passages[0].source.slug == "novel"


def test_fiction_phrase_in_a_claim_and_an_account(history, novel) -> None:  # type: ignore[no-untyped-def]
    tang = person(slug="tang", name="唐生智")
    citation = cite(history.passages.get(seq=1), "唐生智", person=tang, claim="后来唐司令坐车去码头")
    meeting = event(slug="meeting")
    account = statement(meeting, "date", "1937-12-12", as_written="唐司令坐车去码头时")
    account.citations.add(cite(history.passages.get(seq=1), "召开会议", event=meeting))
    findings = run_audit(codes=["fiction-phrase"]).findings
    assert {(f.slug, f.field) for f in findings} == {(citation.slug, "claim"), (account.slug, "as_written")}
    assert {f.quote for f in findings} == {"唐司令坐车去码头"}


def test_a_raw_change_of_a_cited_text_is_found(history) -> None:  # type: ignore[no-untyped-def]
    gate = location(slug="gate", name="挹江门")
    citation = cite(history.passages.get(seq=2), "挹江门", location=gate)
    assert found("passage-text-changed") == set()
    passage = citation.passage
    with rewriting([passage.pk]), connection.cursor() as cursor:  # what a dropped trigger would let through
        cursor.execute("UPDATE archive_passage SET text = %s WHERE id = %s", ["部队从挹口门拥向下关。", passage.pk])
    findings = run_audit(codes=["passage-text-changed"]).findings
    assert {(type(f.record).__name__, f.field) for f in findings} == {("Passage", "text"), ("Citation", "quote")}
    assert all(f.passages == [passage] for f in findings)


def test_uncited_passage_and_its_note(history, novel) -> None:  # type: ignore[no-untyped-def]
    tang = person(slug="tang", name="唐生智")
    cite(history.passages.get(seq=1), "唐生智", person=tang)
    cite(history.passages.get(seq=2), "下关", person=tang, status="draft")  # a draft is no evidence yet
    assert found("uncited-passage") == {"history-2", "history-3"}  # fiction is not the history
    CuratorNote.objects.create(slug="n", model="passage", record="history-3", code="uncited-passage", note="a list")
    report = run_audit(codes=["uncited-passage"])
    assert [f.slug for f in report.open] == ["history-2"] and [f.slug for f in report.explained] == ["history-3"]
    assert run_audit(codes=["stale-note"]).findings == []
    CuratorNote.objects.create(slug="n2", model="passage", record="history-9", code="uncited-passage", note="gone")
    assert found("stale-note") == {"n2"}


def test_names_without_a_record() -> None:
    known = {"挹江门", "下关", "第36师", "汤山"}
    assert unrecorded_names("部队从挹江门拥向下关，第2军与第36师、36师在近汤山", known) == ["第2军"]
    assert unrecorded_names("从仙鹤门出城，经过城门和公路，走中山北路", known) == ["仙鹤门", "中山北路"]
    assert unrecorded_names("军长率83军", known) == ["83军"]
    # A 师团 or a 军团 is named whole: known as 第16师团, it is no unrecorded 第16师.
    assert unrecorded_names("日军第16师团与第2军团", known | {"第16师团"}) == ["第2军团"]


def test_unrecorded_name(history) -> None:  # type: ignore[no-untyped-def]
    location(slug="gate", name="挹江门")
    location(slug="xiaguan", name="下关", kind="district")
    unit(slug="36th", name="第36师")
    findings = run_audit(codes=["unrecorded-name"]).findings
    assert [(f.slug, f.quote) for f in findings] == [("history-3", "第2军")]
    unit(slug="2nd-army", name="第2军", echelon="army")
    assert found("unrecorded-name") == set()


def test_inferred_is_never_preferred_over_stated(history) -> None:  # type: ignore[no-untyped-def]
    fine = event(slug="fine")
    statement(fine, "date", "1937-12-12", rank="preferred")
    statement(fine, "date", "1937-12-13", basis="inferred", reasoning="the order came the day after")
    wrong = event(slug="wrong")
    statement(wrong, "date", "1937-12-12")
    statement(wrong, "date", "1937-12-13", rank="preferred", basis="inferred", reasoning="the next day")
    alone = event(slug="alone")
    statement(alone, "date", "1937-12-13", rank="preferred", basis="inferred", reasoning="nothing says otherwise")
    assert found("inferred-over-stated") == {"wrong"}


def test_audit_json_lists_every_check_even_silent_ones(history, capsys) -> None:  # type: ignore[no-untyped-def]
    call_command("audit", "--format", "json")
    payload = json.loads(capsys.readouterr().out)
    assert [c["code"] for c in payload["checks"]] == [c.code for c in CHECKS]
    counts = {c["code"]: c["findings"] for c in payload["checks"]}
    assert counts["uncited-passage"] == 3 and counts["no-evidence"] == 0
    assert sum(counts.values()) == len([f for f in payload["findings"] if not f["explained_by"]])


def test_text_output_names_the_field_and_the_words(history, capsys) -> None:  # type: ignore[no-untyped-def]
    call_command("audit", "--check", "unrecorded-name")
    out = capsys.readouterr().out
    assert "passage history-3" in out and "text: «第2军" in out and "[history §3]" in out


def test_participation_builder_still_works_with_the_new_checks(history) -> None:  # type: ignore[no-untyped-def]
    part = participation(slug="p")
    cite(history.passages.get(seq=1), "唐生智", participation=part)
    assert Citation.objects.filter(participation=part).exists() and Passage.objects.count() == 3


def test_an_unranked_conflict_names_the_field_the_words_and_the_passages(history) -> None:  # type: ignore[no-untyped-def]
    meeting = event(slug="meeting")
    first = statement(meeting, "date", "1937-12-12", as_written="12日傍晚5点")
    first.citations.add(cite(history.passages.get(seq=1), "12日傍晚5点", event=meeting))
    second = statement(meeting, "date", "1937-12-13", as_written="翌日")
    second.citations.add(cite(history.passages.get(seq=2), "下关", event=meeting))
    (finding,) = run_audit(codes=["unranked-conflict"]).findings
    assert (finding.slug, finding.field, finding.quote) == ("meeting", "date", "12日傍晚5点 / 翌日")
    assert [p.seq for p in finding.passages] == [1, 2]
