"""Whole numbers from URLs and forms: ASCII digits only, and not too many of them."""

from __future__ import annotations

import pytest

from archive.text.numbers import whole_number


@pytest.mark.parametrize(
    ("text", "expected"),
    [("7", 7), (" 42 ", 42), ("007", 7), ("²", None), ("٣", None), ("-1", None), ("1.5", None), ("", None),
     ("9" * 18, int("9" * 18)), ("9" * 19, None), (None, None), (12, 12)],
)
def test_whole_number(text: object, expected: int | None) -> None:
    assert whole_number(text) == expected


def test_whole_number_takes_a_smaller_limit() -> None:
    assert whole_number("1234567890", max_digits=9) is None
    assert whole_number("123456789", max_digits=9) == 123456789
