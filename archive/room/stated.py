"""A record's stated fields as the room shows them: the chosen value and every account beside it.

The choice is `archive.statements`' own (`accounts_by_field`, `chosen`), made
on the statements the selectors prefetched for the reader's fiction mode, so
that a novel's time or place never reaches a reader who left fiction out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from archive.models.registry import FictionMode
from archive.models.statements import FIELDS_OF, StatementField
from archive.statements import Account, accounts_by_field, chosen, conflicts


@dataclass
class StatedField:
    name: str
    label: str
    shown: list[Account]
    accounts: list[Account]
    disputed: bool


def _label(name: str) -> str:
    return str(StatementField(name).label)


def stated_fields(record: Any, mode: FictionMode) -> list[StatedField]:
    """Each field of `record` that has a visible account, in the order the model declares them."""
    grouped = accounts_by_field(getattr(record, "visible_statements", ()),
                                exclude_fiction=mode.nested is FictionMode.EXCLUDE)
    fields = []
    for name in FIELDS_OF[record._meta.model_name]:
        entries = grouped.get(name, [])
        if entries:
            fields.append(StatedField(name, _label(name), chosen(entries, name), entries, conflicts(entries)))
    return fields


def stated_value(record: Any, mode: FictionMode, name: str) -> Sequence[Account] | None:
    """The accounts shown for one field, or None when no visible statement speaks to it (the column stands)."""
    for field in stated_fields(record, mode):
        if field.name == name:
            return field.shown
    return None
