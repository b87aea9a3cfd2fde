"""Dates as the archive keeps them: EDTF strings with sortable bounds.

The `edtf` package parses the string; its bounds ignore the time of day and
it knows no time zone, so this module turns them into timezone-aware bounds
in Nanjing local time. A date with an unspecified year (`XXXX-01-22`, the
invented calendar of a novel) has no place on the real timeline: no bounds.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
from zoneinfo import ZoneInfo

import edtf
from edtf.parser.edtf_exceptions import EDTFParseException

NANJING = ZoneInfo("Asia/Shanghai")


class BadDate(ValueError):
    """An EDTF string that cannot be parsed or has no valid bounds."""


def parse(value: str) -> object:
    try:
        return edtf.parse_edtf(value)
    except (EDTFParseException, ValueError, TypeError) as exc:
        raise BadDate(f"“{value}” is not a valid EDTF date (for example 1937-12-12, 1937-12-13~, XXXX-01-22).") from exc


def has_unspecified_year(value: str) -> bool:
    head = value.lstrip("-")[:4]
    return "X" in head.upper()


def _day(struct: time.struct_time) -> dt.date:
    return dt.date(struct.tm_year, struct.tm_mon, struct.tm_mday)


# EDTF's sets with an open end: `[..1937-12-12]` is a day on or before 12 December, `[1937-12-12..]` one on or
# after it. A source often says only that a post was held on a day: it began on or before it, ended on or after.
_ON_OR_BEFORE = re.compile(r"\[\.\.([^\[\],.]+)\]")
_ON_OR_AFTER = re.compile(r"\[([^\[\],.]+)\.\.\]")


def open_end(value: str) -> tuple[str, str] | None:
    """`("before", day)` or `("after", day)` for a set with an open end; None for any other value."""
    for side, pattern in (("before", _ON_OR_BEFORE), ("after", _ON_OR_AFTER)):
        found = pattern.fullmatch(value)
        if found:
            return side, found.group(1)
    return None


# Remembered by string: the edtf parser takes some 10 ms a date, and the same few hundred dates are
# validated again at every save and every check of a collection. The answer is a pair of immutable
# datetimes (an error is raised again each time, never remembered).
@functools.lru_cache(maxsize=8192)
def bounds(value: str) -> tuple[dt.datetime | None, dt.datetime | None]:
    """Earliest and latest instant an EDTF string allows, in Nanjing time (None on the side a set leaves open)."""
    opened = open_end(value)
    if opened is not None:
        side, day = opened
        earliest, latest = bounds(day)
        if earliest is None or latest is None:
            raise BadDate(f"“{value}” has no bounds on the real timeline.")
        return (None, latest) if side == "before" else (earliest, None)
    parsed = parse(value)
    if has_unspecified_year(value) or "/X" in value.upper():
        return None, None
    if isinstance(parsed, edtf.DateAndTime):
        moment = dt.datetime.fromisoformat(value.rstrip("~?%"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=NANJING)
        return moment, moment
    try:
        lower = parsed.lower_strict()  # type: ignore[attr-defined]  # edtf does not declare the strict bounds
        upper = parsed.upper_strict()  # type: ignore[attr-defined]  # edtf does not declare the strict bounds
        first, last = _day(lower), _day(upper)
    except (ValueError, OverflowError, AttributeError) as exc:
        raise BadDate(f"“{value}” has no bounds on the real timeline.") from exc
    if first.year < 1 or last.year >= 9999:
        return None, None
    earliest = dt.datetime.combine(first, dt.time.min, NANJING)
    latest = dt.datetime.combine(last, dt.time.max, NANJING)
    return earliest, latest


def describe_bounds(earliest: dt.datetime | None, latest: dt.datetime | None) -> str:
    """The bounds as a reader writes them: `1937-12-12 17:00–17:59`, `1937-12-12`, `1937-12-12 – 1937-12-13`."""
    if earliest is None or latest is None:
        return ""
    first, last = earliest.astimezone(NANJING), latest.astimezone(NANJING)
    whole_days = first.time() == dt.time.min and last.time() >= dt.time(23, 59, 59)
    if whole_days:
        if first.date() == last.date():
            return first.date().isoformat()
        return f"{first.date().isoformat()} – {last.date().isoformat()}"
    if first == last:
        return first.strftime("%Y-%m-%d %H:%M")
    if first.date() == last.date():
        return f"{first:%Y-%m-%d %H:%M}–{last:%H:%M}"
    return f"{first:%Y-%m-%d %H:%M} – {last:%Y-%m-%d %H:%M}"
