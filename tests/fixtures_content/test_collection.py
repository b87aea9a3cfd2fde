"""The shipped collection (fixtures/NN_*.json): counts, evidence, dating and key facts of the texts."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
from django.conf import settings

from archive import dating, fiction
from archive.models import (
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Source,
    Status,
    Unit,
    UnitAlias,
)
from archive.reading import mentions

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("collection")]

SOURCES_DIR = Path(settings.BASE_DIR) / "fixtures" / "sources"
HISTORY = "history-nanjing-retreat"
NOVEL = "webnovel-zhutian-changjinhu"
ALTHIST = "althist-nanjing-retreat-0122"
TZ = dt.timezone(dt.timedelta(hours=8))
CURATED_MODELS = (Person, Unit, Post, Location, Event, Participation, Citation, Source)
TARGETS = {Person: "person", Unit: "unit", Post: "post", Location: "location", Event: "event"}


def at(day: int, hour: int, minute: int = 0, second: int = 0, month: int = 12) -> dt.datetime:
    return dt.datetime(1937, month, day, hour, minute, second, tzinfo=TZ)


def test_the_files_load_in_the_order_of_their_dependencies() -> None:
    from tests.shipped import fixture_files

    names = [path.name for path in fixture_files()]
    assert names[:6] == ["01_sources.json", "02_people.json", "03_units.json", "04_places.json",
                         "05_events.json", "06_citations.json"]
    assert "08_notes.json" in names


# --------------------------------------------------------------------------- counts and status


def test_counts() -> None:
    assert Person.objects.count() >= 45
    assert Unit.objects.count() >= 35
    assert Post.objects.count() >= 35
    assert Location.objects.count() >= 45
    assert Event.objects.count() >= 30
    assert Participation.objects.count() >= 60
    assert Source.objects.filter(file_name__gt="").count() == 3


def test_everything_is_approved() -> None:
    for model in CURATED_MODELS:
        assert not model.objects.exclude(status=Status.APPROVED).exists(), model.__name__


# --------------------------------------------------------------------------- evidence


def test_every_quote_is_the_passage_text() -> None:
    for citation in Citation.objects.select_related("passage"):
        assert citation.passage.text[citation.start : citation.end] == citation.quote, citation.slug
        assert citation.claim.strip(), citation.slug


def test_every_record_has_a_citation() -> None:
    for model, field in TARGETS.items():
        uncited = model.objects.exclude(pk__in=Citation.objects.filter(**{f"{field}__isnull": False}).values(field))
        assert not uncited.exists(), f"{model.__name__}: {list(uncited.values_list('slug', flat=True))}"
    uncited = Participation.objects.filter(citations__isnull=True)
    assert not uncited.exists(), list(uncited.values_list("slug", flat=True))


def test_passages_tile_each_source_file() -> None:
    for source in Source.objects.exclude(file_name=""):
        raw = (SOURCES_DIR / source.file_name).read_bytes()
        assert source.sha256 == hashlib.sha256(raw).hexdigest()
        text = raw.decode("utf-8")
        assert source.text == text and source.length == len(text)
        rebuilt, position = [], 0
        for passage in Passage.objects.filter(source=source).order_by("seq"):
            gap = text[position : passage.start]
            assert gap.strip() == "", (source.slug, passage.seq)
            assert text[passage.start : passage.end] == passage.text
            rebuilt += [gap, passage.text]
            position = passage.end
        rebuilt.append(text[position:])
        assert "".join(rebuilt) == text


def test_fiction_follows_the_sources() -> None:
    assert Source.objects.get(slug=NOVEL).is_fiction
    assert Source.objects.get(slug=ALTHIST).is_fiction
    assert not Source.objects.get(slug=HISTORY).is_fiction


# --------------------------------------------------------------------------- names


def test_zhou_lan_is_one_person_with_both_spellings() -> None:
    zhou = Person.objects.get(slug="zhou-lan")
    names = set(zhou.names.values_list("name", flat=True))
    assert {"周斓", "周澜"} <= names
    assert PersonName.objects.filter(name__in=["周斓", "周澜"]).values("person").distinct().count() == 1
    quotes = set(Citation.objects.filter(person=zhou).values_list("quote", flat=True))
    assert any("周澜" in q for q in quotes) and any("周斓" in q for q in quotes)


def test_tang_siling_names_tang_shengzhi() -> None:
    name = PersonName.objects.get(name="唐司令")
    assert name.person.slug == "tang-shengzhi"


def test_jinling_is_nanjing() -> None:
    assert LocationAlias.objects.get(name="金陵").location.slug == "nanjing"


def test_traditional_aliases() -> None:
    traditional = [
        ("蕪湖", "wuhu"),
        ("挹江門", "yijiangmen"),
        ("太平門", "taipingmen"),
        ("南京城牆", "nanjing-city-wall"),
    ]
    for name, slug in traditional:
        alias = LocationAlias.objects.get(name=name)
        assert alias.location.slug == slug and alias.language == "zh-Hant"
    assert PersonName.objects.get(name="葉肇").person.slug == "ye-zhao"
    assert UnitAlias.objects.filter(name="第66軍", unit__slug="66th-army").exists()


def test_invented_people_are_fictional_and_matsui_is_not() -> None:
    people = {p.slug: p for p in Person.objects.all()}
    for slug in ("sun-baili", "li-congwen", "zhong-wu"):
        assert people[slug].fictional, slug
        sources = set(Citation.objects.filter(person__slug=slug).values_list("passage__source__slug", flat=True))
        assert sources == {ALTHIST}
    matsui = people["matsui-iwane"]
    assert matsui.marked_historical and not matsui.fictional
    assert Person.objects.filter(name="松井石根").count() == 1
    assert not people["tang-shengzhi"].fictional
    assert not people["ye-zhao"].fictional
    assert fiction.stale() == []  # every stored flag equals its definition after the load


# --------------------------------------------------------------------------- units and posts


def test_unit_hierarchy() -> None:
    assert Unit.objects.get(slug="51st-division").parent.slug == "74th-army"
    assert Unit.objects.get(slug="160th-division").parent.slug == "66th-army"
    assert Unit.objects.get(slug="156th-division").parent.slug == "83rd-army"
    assert Unit.objects.get(slug="training-corps-3rd-regiment").parent.slug == "training-corps-2nd-brigade"
    assert Unit.objects.filter(parent__isnull=False).count() >= 25


def test_acting_and_concurrent_posts() -> None:
    ye = Post.objects.filter(person__slug="ye-zhao")
    assert ye.get(unit__slug="66th-army").concurrent is False
    assert ye.get(unit__slug="160th-division").concurrent is True
    assert Post.objects.get(person__slug="luo-cequn", unit__slug="159th-division").acting
    assert Post.objects.get(person__slug="yan-kaiyun").acting


def test_places_have_hierarchy_and_coordinates() -> None:
    assert Location.objects.get(slug="yijiangmen").parent.slug == "nanjing-city-wall"
    assert Location.objects.get(slug="meitangang").parent.slug == "xiaguan"
    with_coords = Location.objects.filter(latitude__isnull=False)
    assert with_coords.count() >= 30
    assert not with_coords.filter(coordinate_precision="").exists()


# --------------------------------------------------------------------------- events and dating


def test_event_bounds_lie_within_their_edtf_date() -> None:
    for event in Event.objects.exclude(date=""):
        low, high = dating.bounds(event.date)
        if low is None:
            assert event.earliest is None and event.latest is None, event.slug
        else:
            assert event.earliest is not None and event.latest is not None, event.slug
            assert low <= event.earliest <= event.latest <= high, event.slug


def test_year_less_events_have_no_bounds() -> None:
    undated = Event.objects.filter(date__startswith="XXXX")
    assert undated.count() >= 5
    assert not undated.filter(earliest__isnull=False).exists()
    assert not undated.filter(latest__isnull=False).exists()
    assert Event.objects.get(slug="althist-retreat-begins").date == "XXXX-01-22"


def test_sub_events_lie_within_their_parents() -> None:
    for event in Event.objects.filter(parent__isnull=False, earliest__isnull=False).select_related("parent"):
        parent = event.parent
        if parent.earliest is not None:
            assert parent.earliest <= event.earliest <= parent.latest, event.slug


def test_events_are_chronological() -> None:
    order = [
        "gu-telephones-tang",
        "meeting-0200-12-december",
        "meeting-1700-12-december",
        "li-xikai-ordered-to-gangzicun",
        "3rd-regiment-at-gangzicun",
        "training-corps-regiments-meeting",
        "tang-departs-meitangang",
        "tang-arrives-pukou",
        "87th-brigades-learn-of-abandonment",
        "chen-yiding-drifts-across",
        "japanese-warships-reach-xiaguan",
        "deng-longguang-reaches-nanling",
    ]
    listed = [slug for slug in Event.objects.values_list("slug", flat=True) if slug in order]
    assert listed == order
    dated = list(Event.objects.filter(earliest__isnull=False).values_list("earliest", flat=True))
    assert dated == sorted(dated)


def test_the_meetings_of_12_december() -> None:
    night = Event.objects.get(slug="meeting-0200-12-december")
    assert (night.earliest, night.latest) == (at(12, 2), at(12, 2, 59, 59))
    evening = Event.objects.get(slug="meeting-1700-12-december")
    assert evening.date == "1937-12-12" and evening.date_text == "12月12日傍晚5点"
    assert evening.earliest == at(12, 17)
    assert evening.latest == at(12, 17, 59, 59)
    assert evening.kind == "meeting"
    assert set(night.participations.values_list("person__slug", flat=True)) >= {
        "tang-shengzhi",
        "luo-zhuoying",
        "liu-xing",
        "zhou-lan",
        "liao-ken",
    }


def test_signatories_in_signing_order() -> None:
    signing = Event.objects.get(slug="signing-of-retreat-order")
    assert signing.parent.slug == "meeting-1700-12-december"
    signed = signing.participations.filter(role="signatory").order_by("position")
    assert [p.person.slug for p in signed] == [
        "ye-zhao",
        "zhou-lan",
        "sun-yuanliang",
        "song-xilian",
        "yu-jishi",
        "deng-longguang",
        "wang-jingjiu",
    ]
    assert [p.position for p in signed] == [1, 2, 3, 4, 5, 6, 7]


def test_tang_departure_and_arrival() -> None:
    departure = Event.objects.get(slug="tang-departs-meitangang")
    assert (departure.earliest, departure.latest) == (at(12, 21), at(12, 21, 59, 59))
    assert set(departure.locations.values_list("slug", flat=True)) >= {"meitangang"}
    arrival = Event.objects.get(slug="tang-arrives-pukou")
    assert (arrival.earliest, arrival.latest) == (at(12, 22), at(12, 22, 59, 59))
    assert arrival.locations.filter(slug="pukou").exists()
    escaped = set(departure.participations.filter(role="escaped").values_list("person__slug", flat=True))
    assert {"tang-shengzhi", "luo-zhuoying", "liu-xing", "zhou-lan", "tan-daoping"} <= escaped
    assert not {"she-nianci", "liao-ken"} & escaped


def test_novel_departure_details_are_separate_citations_on_the_historys_events() -> None:
    drive = Event.objects.get(slug="tang-drive-to-meitangang")
    novel = drive.citations.filter(passage__source__slug=NOVEL)
    quotes = list(novel.values_list("quote", flat=True))
    assert any("下午六点" in q for q in quotes) and any("晚上8点" in q for q in quotes)
    assert not any("下午六点" in q and "晚上8点" in q for q in quotes)
    assert drive.citations.filter(passage__source__slug=HISTORY, rank="preferred").exists()
    departure = Event.objects.get(slug="tang-departs-meitangang")
    assert departure.citations.filter(passage__source__slug=NOVEL, quote__contains="九点多").exists()
    history = departure.citations.get(passage__source__slug=HISTORY, quote__contains="9点多")
    assert history.rank == "preferred"
    # Linked to the history, so the event is not fictional.
    assert not Event.objects.get(slug="tang-departs-meitangang").fictional


def test_crossings_crush_and_breakout() -> None:
    crush = Event.objects.get(slug="yijiangmen-crush")
    assert crush.locations.filter(slug="yijiangmen").exists()
    assert crush.participations.get(person__slug="xie-chengrui").role == "killed"
    assert crush.citations.filter(passage__source__slug=NOVEL).count() >= 2
    assert Event.objects.get(slug="xiaguan-crossings").kind == "crossing"
    wulongshan = Event.objects.get(slug="wulongshan-crossing")
    assert wulongshan.participations.get(person__slug="xu-yuanquan").role == "commander"
    assert set(wulongshan.locations.values_list("slug", flat=True)) >= {"zhoujiasha", "huangnidang"}
    breakout = Event.objects.get(slug="taipingmen-breakout")
    killed = set(breakout.participations.filter(role="killed").values_list("person__slug", flat=True))
    assert killed == {"luo-cequn", "yao-zhongying", "situ-fei"}
    assert breakout.participations.get(person__slug="ye-zhao", role="commander")
    exit_ = Event.objects.get(slug="cantonese-exit-taipingmen")
    assert exit_.parent == breakout and exit_.earliest == at(12, 21)
    launch = Event.objects.get(slug="74th-army-launch-crossing")
    assert "小火轮" in launch.participations.get(person__slug="wang-yaowu").note or "steam launch" in (
        launch.participations.get(person__slug="wang-yaowu").note
    )
    assert Event.objects.get(slug="chen-yiding-drifts-across").latest.date() == dt.date(1937, 12, 16)


def test_panay_bombing() -> None:
    panay = Event.objects.get(slug="panay-bombing")
    assert panay.kind == "bombing" and panay.date == "1937-12-12"
    assert panay.participations.get(unit__slug="uss-panay").role == "target"


def test_small_hours_are_the_next_day() -> None:
    silence = Event.objects.get(slug="silence-before-the-fall")
    assert silence.date_text == "到了后半夜" and silence.date == "1937-12-13"
    # 后半夜 runs to the end of the fifth hour (archive.text.chinese_time.PARTS_OF_DAY).
    assert (silence.earliest, silence.latest) == (at(13, 0), at(13, 5, 59, 59))


def test_who_attended_the_17_00_meeting() -> None:
    meeting = Event.objects.get(slug="meeting-1700-12-december")
    people = set(meeting.participations.values_list("person__slug", flat=True))
    assert {"tang-shengzhi", "gui-yongqing", "ye-zhao", "zhou-lan", "wang-jingjiu", "deng-longguang"} <= people
    assert meeting.children.filter(slug="signing-of-retreat-order").exists()


def test_alternate_history_events() -> None:
    begins = Event.objects.get(slug="althist-retreat-begins")
    assert begins.date_text == "1月22日夜11時" and begins.earliest is None
    assert Event.objects.get(slug="althist-retreat-begins").fictional
    matsui_events = Participation.objects.filter(person__slug="matsui-iwane").values_list("event__slug", flat=True)
    assert set(matsui_events) >= {"althist-matsui-orders-general-attack", "althist-matsui-turns-on-78th"}


# Suggested mentions: the alternate-history text, in Traditional, names places kept in Simplified.


def test_the_traditional_text_is_offered_places_named_in_simplified() -> None:
    source = Source.objects.get(slug="althist-nanjing-retreat-0122")
    found = mentions.of_source(source.pk)
    by_seq = {source.passages.get(pk=pk).seq: items for pk, items in found.items()}
    wuhu = Location.objects.get(name="芜湖")
    assert ("蕪湖", wuhu.pk) in {(s.quote, s.record_id) for s in by_seq[10] if s.kind == "location"}
    suggested_in_simplified = {s.label for items in found.values() for s in items if s.quote != s.label}
    assert {"芜湖", "江宁", "马鞍山"} <= suggested_in_simplified


def test_no_suggestion_repeats_a_citation_of_its_passage() -> None:
    source = Source.objects.get(slug="history-nanjing-retreat")
    for passage_id, items in mentions.of_source(source.pk).items():
        cited = Citation.objects.filter(passage_id=passage_id).exclude(status=Status.REJECTED)
        for suggestion in items:
            assert not cited.filter(**{suggestion.kind: suggestion.record_id}).exists(), suggestion
