"""Dates kept as EDTF with bounds, and shown as a reader writes them."""

from __future__ import annotations

import datetime as dt

import pytest

from archive import dating

T = dating.NANJING


@pytest.mark.parametrize(
    ("earliest", "latest", "shown"),
    [
        (
            dt.datetime(1937, 12, 12, 17, tzinfo=T),
            dt.datetime(1937, 12, 12, 17, 59, 59, tzinfo=T),
            "1937-12-12 17:00–17:59",
        ),
        (dt.datetime(1937, 12, 12, tzinfo=T), dt.datetime.combine(dt.date(1937, 12, 12), dt.time.max, T), "1937-12-12"),
        (
            dt.datetime(1937, 12, 12, tzinfo=T),
            dt.datetime.combine(dt.date(1937, 12, 13), dt.time.max, T),
            "1937-12-12 – 1937-12-13",
        ),
        (
            dt.datetime(1937, 12, 12, 23, tzinfo=T),
            dt.datetime(1937, 12, 13, 5, tzinfo=T),
            "1937-12-12 23:00 – 1937-12-13 05:00",
        ),
        (None, None, ""),
    ],
)
def test_bounds_are_described_in_nanjing_time(earliest, latest, shown) -> None:
    assert dating.describe_bounds(earliest, latest) == shown


def test_bounds_given_in_utc_are_shown_in_nanjing_time() -> None:
    utc = dt.UTC
    assert dating.describe_bounds(
        dt.datetime(1937, 12, 12, 9, tzinfo=utc), dt.datetime(1937, 12, 12, 9, 59, tzinfo=utc)
    ) == ("1937-12-12 17:00–17:59")


def test_invented_calendar_has_no_bounds_and_bad_dates_are_refused() -> None:
    assert dating.bounds("XXXX-01-22") == (None, None)
    with pytest.raises(dating.BadDate):
        dating.bounds("12日傍晚5点")


def test_a_set_with_an_open_end_is_bounded_on_its_closed_side_only() -> None:
    day_start, day_end = dating.bounds("1937-12-12")
    assert dating.bounds("[..1937-12-12]") == (None, day_end)
    assert dating.bounds("[1937-12-12..]") == (day_start, None)
    assert dating.open_end("[..1937-12-12]") == ("before", "1937-12-12")
    assert dating.open_end("1937-12-12") is None
    for bad in ("[..XXXX-01-22]", "[..]", "[..1937-13-40]"):
        with pytest.raises(dating.BadDate):
            dating.bounds(bad)
