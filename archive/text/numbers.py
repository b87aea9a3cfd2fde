"""Whole numbers typed into URLs and forms.

`str.isdigit()` is true of superscripts and other digits that `int()` refuses
(“²”), and a number too long for a database integer is refused by PostgreSQL:
both would end a request in an error instead of a clear answer.
"""

from __future__ import annotations


def whole_number(text: object, *, max_digits: int = 18) -> int | None:
    """The number `text` writes in ASCII digits (at most `max_digits`), or None."""
    value = str(text).strip()
    if not value or len(value) > max_digits or not (value.isascii() and value.isdigit()):
        return None
    return int(value)
