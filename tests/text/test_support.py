"""Whether a cited quote says a statement's value, after Traditional/Simplified folding."""

from __future__ import annotations

import datetime as dt

from archive.text.support import bounds_contradiction, date_gaps, place_gaps, role_gaps, title_gaps, words_gaps

TZ = dt.timezone(dt.timedelta(hours=8))
DAY = dt.date(1937, 12, 12)


def _at(day: int, hour: int, minute: int = 0, second: int = 0) -> dt.datetime:
    return dt.datetime(1937, 12, day, hour, minute, second, tzinfo=TZ)


def test_a_place_is_said_by_one_of_its_names_or_aliases_in_either_script() -> None:
    assert place_gaps(["大批部队涌向挹江門"], ["挹江门", "Yijiang Gate"]) == []
    assert place_gaps(["唐生智召开会议", "部队涌向挹江门"], ["挹江门"]) == []
    gaps = place_gaps(["唐生智召开会议"], ["铁道部大楼", "铁道部"])
    assert [(g.quote, g.missing) for g in gaps] == [("唐生智召开会议", ("铁道部大楼", "铁道部"))]
    assert place_gaps([], ["挹江门"])[0].message == "no quote is cited for this place"


def test_a_role_needs_the_name_and_the_role_in_one_quote_unless_inferred() -> None:
    names = ["唐生智", "唐司令"]
    assert role_gaps(["唐生智召集高级将领开会"], names, "organiser") == []
    gaps = role_gaps(["唐生智在会上"], names, "organiser")
    assert gaps and gaps[0].quote == "唐生智在会上" and "召集" in gaps[0].missing
    assert role_gaps(["唐生智在会上"], names, "organiser", inferred=True) == []
    assert role_gaps(["宋希濂在会上"], names, "organiser", inferred=True)[0].missing == ("唐生智", "唐司令")
    assert role_gaps(["唐生智在会上"], names, "participant") == []
    assert role_gaps(["第51師突圍"], ["第51师"], "escaped") == []
    assert role_gaps(["51师突围"], ["第51师"], "escaped") == []


def test_a_post_needs_its_holder_and_its_title() -> None:
    assert title_gaps(["第74军军长俞济时"], ["俞济时"], "军长") == []
    assert title_gaps(["俞济时率部"], ["俞济时"], "军长")[0].missing == ("军长",)
    assert title_gaps(["俞济时率部"], ["俞济时"], "军长", inferred=True) == []


def test_the_words_as_written_are_the_quotes_own_pieces_joined_by_an_ellipsis() -> None:
    quotes = ["12日傍晚決定棄城後，部隊湧向挹江門", "後來挹江門終於打開"]
    assert words_gaps(quotes, "12日傍晚决定弃城后……后来挹江门终于打开") == []
    assert words_gaps(quotes, "12日傍晚决定弃城后…后来挹江门终于打开") == []
    (gap,) = words_gaps(quotes, "12日傍晚决定弃城后（12月12日）")
    assert gap.missing == ("12日傍晚决定弃城后（12月12日）",)
    assert words_gaps(quotes, "")[0].message.startswith("the account does not give the words")


def test_a_date_is_said_when_its_bounds_hold_the_time_its_words_give() -> None:
    quotes = ["12月12日傍晚5点，唐生智召开会议"]
    ok = date_gaps(quotes, "12月12日傍晚5点", value_day=DAY, earliest=_at(12, 17), latest=_at(12, 17, 59, 59))
    assert ok == []
    whole_day = date_gaps(quotes, "12月12日傍晚5点", value_day=DAY, earliest=_at(12, 0), latest=_at(12, 23, 59))
    assert whole_day == []
    (narrow,) = date_gaps(quotes, "12月12日傍晚5点", value_day=DAY, earliest=_at(12, 18), latest=_at(12, 19))
    assert "do not hold" in narrow.message
    memoir = ["五时左右，上校参谋处长来了"]
    assert date_gaps(memoir, "五时左右", value_day=DAY, earliest=_at(12, 16, 30), latest=_at(12, 17, 30)) == []
    assert date_gaps(memoir, "五时左右", value_day=DAY, earliest=_at(12, 18), latest=_at(12, 19, 59))


def test_bounds_contradict_the_words_only_when_they_share_no_moment() -> None:
    assert bounds_contradiction("五时左右", DAY, _at(12, 18), _at(12, 19, 59)) is not None
    assert bounds_contradiction("五时左右", DAY, _at(12, 17), _at(12, 19, 59)) is None
    assert bounds_contradiction("当晚", DAY, _at(12, 21), _at(12, 21, 59)) is None
    assert bounds_contradiction("翌日", DAY, _at(12, 21), _at(12, 21, 59)) is not None
    assert bounds_contradiction("散会后", DAY, _at(12, 21), _at(12, 21, 59)) is None
    assert bounds_contradiction("当晚", DAY, None, None) is None
