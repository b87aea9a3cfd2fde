"""The texts' time expressions read into spans, relative to the account's day."""

from __future__ import annotations

import datetime as dt

import pytest

from archive.text.chinese_time import PARTS_OF_DAY, contains, contradicts, readings

DAY = dt.date(1937, 12, 12)


def _hm(words: str) -> list[tuple[str, str]]:
    return [(f"{s.earliest:%d %H:%M}", f"{s.latest:%d %H:%M:%S}") for s in readings(words, DAY)]


@pytest.mark.parametrize(("words", "spans"), [
    ("12月12日傍晚5点", [("12 17:00", "12 17:59:59")]),
    ("傍晚5點", [("12 17:00", "12 17:59:59")]),
    ("五时左右", [("12 04:30", "12 05:29:59"), ("12 16:30", "12 17:29:59")]),
    ("当晚", [("12 18:00", "12 23:59:59")]),
    ("翌日", [("13 00:00", "13 23:59:59")]),
    ("次日", [("13 00:00", "13 23:59:59")]),
    ("后半夜", [("13 00:00", "13 05:59:59")]),
    ("12日天黑后", [("12 17:00", "12 23:59:59")]),
    ("凌晨", [("12 00:00", "12 05:59:59")]),
    ("12日凌晨2点", [("12 02:00", "12 02:59:59")]),
    ("拂晓", [("12 05:00", "12 06:59:59")]),
    ("黄昏", [("12 16:30", "12 19:59:59")]),
    ("下午", [("12 12:00", "12 17:59:59")]),
    ("上午", [("12 06:00", "12 11:59:59")]),
    ("夜", [("12 18:00", "13 05:59:59")]),
    ("当晚7点半", [("12 19:30", "12 19:30:59")]),
    ("12月11日晚上11点", [("11 23:00", "11 23:59:59")]),
    ("（12日）大约下午二时", [("12 13:30", "12 14:29:59")]),
    ("12日天黑后，转天天亮前", [("12 17:00", "13 06:59:59")]),
    ("12日深夜……已是零点", [("12 22:00", "13 02:59:59")]),
    ("直到13日零点", [("13 00:00", "13 00:59:59")]),
    ("散会后", []),
])
def test_each_expression_gives_its_span(words: str, spans: list[tuple[str, str]]) -> None:
    assert _hm(words) == spans


def test_an_open_end_is_kept_and_read_by_the_checks() -> None:
    (span,) = readings("13日早晨8点以后", DAY)
    assert span.open_end and not span.open_start
    tz = None
    assert contains(dt.datetime(1937, 12, 13, 8, tzinfo=tz), dt.datetime(1937, 12, 13, 11, 59, tzinfo=tz), span)
    assert not contradicts(dt.datetime(1937, 12, 13, 10, tzinfo=tz), dt.datetime(1937, 12, 13, 11, tzinfo=tz), span)
    assert contradicts(dt.datetime(1937, 12, 13, 6, tzinfo=tz), dt.datetime(1937, 12, 13, 7, tzinfo=tz), span)


def test_bounds_narrower_than_the_words_do_not_hold_them() -> None:
    (span,) = readings("傍晚5点", DAY)
    assert contains(dt.datetime(1937, 12, 12), dt.datetime(1937, 12, 12, 23, 59), span)
    assert not contains(dt.datetime(1937, 12, 12, 17), dt.datetime(1937, 12, 12, 17, 30), span)
    assert contradicts(dt.datetime(1937, 12, 12, 18), dt.datetime(1937, 12, 12, 19), span)


def test_every_part_of_the_day_in_the_table_is_read_in_both_scripts() -> None:
    import opencc

    from archive.text.normalize import fold
    to_hant = opencc.OpenCC("s2t")
    for word, (first, last, _) in PARTS_OF_DAY.items():
        for written in (word, to_hant.convert(word)):
            spans = readings(written, DAY)
            assert spans, written
            start = dt.datetime.combine(DAY, dt.time()) + dt.timedelta(minutes=first)
            assert spans[0].earliest == start, (written, fold(written))
            assert spans[0].latest == start + dt.timedelta(minutes=last - first, seconds=59), written
