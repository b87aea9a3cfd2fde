"""Natural-key lookups remembered for the length of one load.

A fixture links records by natural key (a slug, a source's slug and a passage's number), and
loading the shipped collection resolves about ten thousand of them, most of them the same few
hundred keys: one query each was a sixth of `load_collection`'s time. Inside `remembered()`,
a key found once is answered from memory. Only rows found are remembered (a key that resolves to
nothing is asked again, since a later record of the load may make it), and a load only adds rows
or changes them in place, so a key found stays found. Each pass of a load that is rolled back
(the check before the load) remembers on its own: its rows are gone after it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from django.db import models

Found = TypeVar("Found", bound=models.Model)

_found: ContextVar[dict[tuple[str, str, tuple[Any, ...]], Any] | None] = ContextVar("natural_keys", default=None)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    token = _found.set({})
    try:
        yield
    finally:
        _found.reset(token)


def find(manager: models.Manager[Found], key: tuple[Any, ...], lookup: Callable[[], Found]) -> Found:
    """`lookup()`, or inside `remembered()` what it found for the same model, database and key."""
    found = _found.get()
    if found is None:
        return lookup()
    remembered_key = (manager.model._meta.label_lower, manager.db, key)
    if remembered_key not in found:
        found[remembered_key] = lookup()
    return found[remembered_key]
