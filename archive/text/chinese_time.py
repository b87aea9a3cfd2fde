"""What the texts' own time expressions mean: 傍晚5点, 五时左右, 当晚, 翌日, 后半夜, 12日天黑后 …

`readings(words, day)` turns the words of a source into the span of time they
give, relative to `day` (the day the account is about: 当晚 is that day's
evening, 翌日 the next day). The words are read after Traditional/Simplified
folding, so 傍晚5點 and 傍晚5点 mean the same.

What each word means is the table `PARTS_OF_DAY` (with its bounds, in minutes
after the midnight that begins the day; a bound past 24:00 lies in the next
day) and `DAY_WORDS`; a clock hour is read in the part of the day named before
it (傍晚5点 is 17:00, 凌晨2点 is 02:00, 夜11点 is 23:00). An hour with no part
of the day (五时左右) has two readings, morning and afternoon; a check accepts
an account that fits either and finds a contradiction only when it fits none.

Precision follows the words: an hour is that hour (5点: 17:00-17:59:59), an
hour and minutes that minute (6点半: 18:30:00-18:30:59), 左右/大约 widen by
half an hour either side, 多/许 keep the hour, 以后/之后/后 leave the end open
and 以前/之前/前 the start. Several expressions in the words (clauses, pieces
joined by an ellipsis, 12日傍晚至13日零点以后) give the span from the first to
the last; a part of the day narrows only a clock of its own clause.

Pure Python (no Django): the audit, the statements' service and the build of
the shipped collection share it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

from .normalize import fold

__all__ = ["DAY_WORDS", "PARTS_OF_DAY", "Span", "contains", "contradicts", "readings"]

# Part of the day: (first minute, last minute) after the day's midnight, and how an hour
# written after it is read ("pm": 5 -> 17; "night": 6-11 -> 18-23, 0-5 -> next day; "am": as written).
PARTS_OF_DAY: dict[str, tuple[int, int, str]] = {
    "后半夜": (24 * 60, 30 * 60 - 1, "night"),
    "下半夜": (24 * 60, 30 * 60 - 1, "night"),
    "前半夜": (18 * 60, 24 * 60 - 1, "night"),
    "上半夜": (18 * 60, 24 * 60 - 1, "night"),
    "天黑后": (17 * 60, 24 * 60 - 1, "pm"),
    "天亮前": (0, 7 * 60 - 1, "am"),
    "凌晨": (0, 6 * 60 - 1, "am"),
    "拂晓": (5 * 60, 7 * 60 - 1, "am"),
    "黎明": (5 * 60, 7 * 60 - 1, "am"),
    "天亮": (6 * 60, 8 * 60 - 1, "am"),
    "清晨": (5 * 60, 9 * 60 - 1, "am"),
    "早晨": (5 * 60, 9 * 60 - 1, "am"),
    "早上": (5 * 60, 9 * 60 - 1, "am"),
    "上午": (6 * 60, 12 * 60 - 1, "am"),
    "中午": (11 * 60, 14 * 60 - 1, "pm"),
    "下午": (12 * 60, 18 * 60 - 1, "pm"),
    "傍晚": (16 * 60 + 30, 20 * 60 - 1, "pm"),
    "黄昏": (16 * 60 + 30, 20 * 60 - 1, "pm"),
    "天黑": (17 * 60, 19 * 60 - 1, "pm"),
    "晚上": (18 * 60, 24 * 60 - 1, "pm"),
    "晚间": (18 * 60, 24 * 60 - 1, "pm"),
    "当晚": (18 * 60, 24 * 60 - 1, "pm"),
    "深夜": (22 * 60, 27 * 60 - 1, "night"),
    "半夜": (23 * 60, 26 * 60 - 1, "night"),
    "午夜": (23 * 60, 25 * 60 - 1, "night"),
    "当夜": (18 * 60, 30 * 60 - 1, "night"),
    "夜里": (18 * 60, 30 * 60 - 1, "night"),
    "夜间": (18 * 60, 30 * 60 - 1, "night"),
    "夜晚": (18 * 60, 30 * 60 - 1, "night"),
    "晚": (18 * 60, 24 * 60 - 1, "pm"),
    "夜": (18 * 60, 30 * 60 - 1, "night"),
    "晨": (5 * 60, 9 * 60 - 1, "am"),
}
# Words that name a day relative to the account's day; alone they give the whole day.
DAY_WORDS: dict[str, int] = {
    "前一天": -1,
    "前日": -1,
    "当天": 0,
    "这天": 0,
    "那天": 0,
    "这一天": 0,
    "转天": 1,
    "翌日": 1,
    "次日": 1,
    "第二天": 1,
    "第三天": 2,
}
# 当晚 and 当夜 are the evening of the account's day; they are parts of the day above.

_NUMERALS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
             "九": 9, "十": 10}
_NUMBER = r"[0-9零〇一二两三四五六七八九十]+"
_HALF_HOUR = 30


def _number(text: str) -> int:
    if text.isascii():
        return int(text)
    if "十" in text:
        tens, _, units = text.partition("十")
        return (_NUMERALS[tens] if tens else 1) * 10 + (_NUMERALS[units] if units else 0)
    value = 0
    for char in text:
        value = value * 10 + _NUMERALS[char]
    return value


_PARTS = "|".join(sorted(PARTS_OF_DAY, key=len, reverse=True))
_DAYS = "|".join(sorted(DAY_WORDS, key=len, reverse=True))
_TOKEN = re.compile(
    rf"(?P<date>(?:(?P<year>\d{{4}})年)?(?:(?P<month>{_NUMBER})月)?(?P<mday>{_NUMBER})[日号])"
    rf"|(?P<rel>{_DAYS})"
    rf"|(?P<about>大约|大概|约)"
    rf"|(?P<clock>(?P<hour>{_NUMBER})[点时](?:(?P<half>半)|(?P<minute>{_NUMBER})分)?(?P<approx>左右|许|多)?)"
    rf"|(?P<part>{_PARTS})"
    rf"|(?P<after>以后|之后|后)"
    rf"|(?P<before>以前|之前|前)"
    r"|(?P<stop>[，,；;。….!！?？])"
)


@dataclass(frozen=True)
class Span:
    """A span of time the words give, both ends included; an open end is one the words leave open."""

    earliest: dt.datetime
    latest: dt.datetime
    open_start: bool = False
    open_end: bool = False


def _at(day: dt.date, minutes: int, tz: dt.tzinfo | None) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=tz) + dt.timedelta(minutes=minutes)


def _clock_minutes(hour: int, minute: int, reading: str) -> int:
    """Minutes after the day's midnight of an hour written in a part of the day read as `reading`."""
    if reading == "pm" and hour < 12:
        hour += 12
    elif reading == "night":
        hour = hour + 12 if 6 <= hour < 12 else (24 if hour == 12 else (hour + 24 if hour < 6 else hour))
    return hour * 60 + minute


class _Reader:
    def __init__(self, day: dt.date, tz: dt.tzinfo | None, hours_in: str | None) -> None:
        self.day = day
        self.tz = tz
        self.hours_in = hours_in  # how an hour with no part of the day before it is read: "am", "pm" or None
        self.spans: list[Span] = []
        self.part: tuple[int, int, str] | None = None  # the part of the day last named, not yet narrowed
        self.day_named = False  # a day was named and no time of it yet
        self.about = False
        self.date_just_named = False
        self.ambiguous = False

    def _emit(self, first: int, last_second: int, *, open_start: bool = False, open_end: bool = False) -> None:
        earliest = _at(self.day, 0, self.tz) + dt.timedelta(minutes=first)
        latest = _at(self.day, 0, self.tz) + dt.timedelta(minutes=first, seconds=last_second)
        self.spans.append(Span(earliest, latest, open_start, open_end))

    def _flush_part(self) -> None:
        if self.part is not None:
            first, last, _ = self.part
            self._emit(first, (last - first) * 60 + 59)
            self.part = None
        elif self.day_named:
            self._emit(0, 24 * 3600 - 1)
        self.day_named = False

    def date(self, match: re.Match[str]) -> None:
        self._flush_part()
        year = int(match["year"]) if match["year"] else self.day.year
        month = _number(match["month"]) if match["month"] else self.day.month
        try:
            self.day = dt.date(year, month, _number(match["mday"]))
        except ValueError:
            return
        self.day_named = True
        self.date_just_named = True

    def relative(self, word: str) -> None:
        self._flush_part()
        self.day = self.day + dt.timedelta(days=DAY_WORDS[word])
        self.day_named = True

    def part_of_day(self, word: str) -> None:
        if self.part is not None:
            self._flush_part()
        self.part = PARTS_OF_DAY[word]
        self.day_named = False

    def clock(self, match: re.Match[str]) -> None:
        hour = _number(match["hour"])
        minute = 30 if match["half"] else (_number(match["minute"]) if match["minute"] else 0)
        if hour > 24 or minute > 59:
            return
        if self.part is not None:
            reading = self.part[2]
        elif hour == 0 or hour > 12:
            reading = "am"
        elif self.hours_in is not None:
            reading = self.hours_in
        else:
            reading = "am"
            self.ambiguous = True
        start = _clock_minutes(hour, minute, reading)
        told_before = bool(self.spans) or self.part is not None
        if hour == 0 and reading != "night" and not self.date_just_named and told_before:
            start += 24 * 60  # 零点 after an evening is the midnight that ends the day
        length = 60 if minute == 0 and not match["half"] else 1
        first, last = start, start + length
        if match["approx"] == "左右" or self.about:
            first, last = start - _HALF_HOUR, start + _HALF_HOUR
        self.part = None
        self.day_named = False
        self.about = False
        self._emit(first, (last - first) * 60 - 1)

    def after(self) -> None:
        self._flush_part()
        if self.spans:
            self.spans[-1] = replace(self.spans[-1], open_end=True)

    def before(self) -> None:
        self._flush_part()
        if self.spans:
            self.spans[-1] = replace(self.spans[-1], open_start=True)

    def read(self, text: str) -> Span | None:
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup if match.lastgroup in ("rel", "about", "part", "after", "before", "stop") else None
            if match["date"]:
                self.date(match)
                continue
            if match["clock"]:
                self.clock(match)
            elif kind == "rel":
                self.relative(match["rel"])
            elif kind == "about":
                self.about = True
            elif kind == "part":
                self.part_of_day(match["part"])
            elif kind == "after":
                self.after()
            elif kind == "before":
                self.before()
            elif kind == "stop":
                self._flush_part()  # a part of the day named in one clause does not narrow the next
            self.date_just_named = False
        self._flush_part()
        if not self.spans:
            return None
        first = min(self.spans, key=lambda s: s.earliest)
        last = max(self.spans, key=lambda s: s.latest)
        return Span(first.earliest, last.latest, first.open_start, last.open_end)


def readings(words: str, day: dt.date, tz: dt.tzinfo | None = None) -> list[Span]:
    """The spans `words` can give, read on `day`; empty when they give no time.

    One span, or two when an hour is written with no part of the day (五时: 05:00 or 17:00).
    """
    text = fold(words).replace("點", "点").replace("時", "时")
    reader = _Reader(day, tz, None)
    span = reader.read(text)
    if span is None:
        return []
    if not reader.ambiguous:
        return [span]
    spans = [_Reader(day, tz, half).read(text) for half in ("am", "pm")]
    return [s for s in spans if s is not None]


def contains(earliest: dt.datetime, latest: dt.datetime, span: Span) -> bool:
    """The bounds hold the time the words give.

    Words with a fixed time (傍晚5点) are held whole. Words that leave one end open (傍晚决定弃城后:
    after something in the evening) fix only where the account begins (or, with 前, ends): that
    edge must fall within the time they name.
    """
    if span.open_end and not span.open_start:
        return span.earliest <= earliest <= span.latest
    if span.open_start and not span.open_end:
        return span.earliest <= latest <= span.latest
    if span.open_start and span.open_end:
        return earliest <= span.latest and span.earliest <= latest
    return earliest <= span.earliest and span.latest <= latest


def contradicts(earliest: dt.datetime, latest: dt.datetime, span: Span) -> bool:
    """The bounds and the time the words give share no moment."""
    too_late = earliest > span.latest and not span.open_end
    too_early = latest < span.earliest and not span.open_start
    return too_late or too_early
