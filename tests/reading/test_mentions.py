"""Suggested mentions and coverage, below the admin: the matcher, the name index, the counts."""

from __future__ import annotations

import pytest

from archive.models import Location, Person, PersonName, Status
from archive.reading import coverage, mentions
from archive.text.mentions import NameMatcher
from archive.text.normalize import search_key
from archive.text.slugs import pinyin_slug
from tests.factories import approved, cite, in_status, source_with_text


def test_matcher_finds_the_longest_name_and_folds_traditional_to_simplified() -> None:
    matcher = NameMatcher([("芜湖", "wuhu"), ("唐生", "short"), ("唐生智", "tang"), ("南", "too-short")])
    text = "唐生智自蕪湖南下"
    found = [(text[f.start:f.end], f.owners) for f in matcher.find(search_key(text))]
    assert found == [("唐生智", ("tang",)), ("蕪湖", ("wuhu",))]


def test_matcher_keeps_every_owner_of_a_shared_name() -> None:
    matcher = NameMatcher([("老王", 1), ("老王", 2), ("老王", 2)])
    assert [f.owners for f in matcher.find(search_key("老王来了"))] == [(1, 2)]


def test_pinyin_slugs_follow_the_shipped_naming() -> None:
    assert pinyin_slug("唐生智", personal=True) == "tang-shengzhi"
    assert pinyin_slug("挹江门") == "yijiangmen"
    assert pinyin_slug("第74军") == "di-74-jun"
    assert pinyin_slug("唐生智下令", join_runs=False) == "tang-sheng-zhi-xia-ling"
    assert pinyin_slug("T'ang Sheng-chih") == "tang-shengchih"


@pytest.mark.django_db
def test_a_traditional_text_is_offered_the_records_named_in_simplified() -> None:
    wuhu = approved(Location(slug="wuhu", name="芜湖", kind="city"))
    tang = approved(Person(slug="tang-shengzhi", name="唐生智"))
    source = source_with_text("唐司令自蕪湖乘船東下。\n", kind="alternate-history", language="zh-Hant")
    PersonName.objects.create(person=tang, name="唐司令", kind="title")
    passage = source.passages.get(seq=1)
    found = mentions.suggestions([passage])[passage.pk]
    assert [(s.quote, s.kind, s.record_id, s.label) for s in found] == [
        ("唐司令", "person", tang.pk, "唐生智"),
        ("蕪湖", "location", wuhu.pk, "芜湖"),
    ]
    assert passage.text[found[1].start:found[1].end] == "蕪湖"


@pytest.mark.django_db
def test_a_name_cited_in_the_passage_or_rejected_is_not_suggested() -> None:
    wuhu = approved(Location(slug="wuhu", name="芜湖", kind="city"))
    in_status(Location(slug="nanjing", name="南京", kind="city"), Status.REJECTED)
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    source = source_with_text("由南京经下关到芜湖，再到芜湖。\n")
    passage = source.passages.get(seq=1)
    cite(passage, "芜湖", status=Status.DRAFT, location=wuhu)
    found = mentions.suggestions([passage])[passage.pk]
    # 芜湖 is cited (a draft counts), 南京 is rejected; 下关 once, at its first mention.
    assert [(s.quote, s.record_id) for s in found] == [("下关", xiaguan.pk)]


@pytest.mark.django_db
def test_coverage_counts_passages_characters_once_and_the_mentions_left() -> None:
    wuhu = approved(Location(slug="wuhu", name="芜湖", kind="city"))
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    source = source_with_text("到芜湖去。\n\n下关。\n\n没有名字。\n")
    first = source.passages.get(seq=1)
    cite(first, "到芜湖", location=wuhu)
    cite(first, "芜湖去", status=Status.IN_REVIEW, claim="again", location=wuhu)
    cite(first, "到芜湖去", status=Status.REJECTED, claim="rejected", location=xiaguan)
    shares = coverage.of_sources([source.pk], with_mentions=True)[source.pk]
    assert shares.passages == 3 and shares.cited_passages == 1
    assert shares.characters == sum(len(p.text) for p in source.passages.all())
    assert shares.cited_characters == len("到芜湖去")  # overlapping spans once, the rejected one not at all
    assert shares.mentions_left == 1  # 下关 in the second passage
