"""Set-up that a test process builds once, then inserts again for each module that needs it.

The first call builds (through the real review services, as the tests need), reads the rows the
build added (`tests/table_rows.py`) and keeps them with what the build returned. Every later call
inserts the same rows again, ids included, in the caller's transaction, which costs a fraction of
building them. Each call hands out a deep copy of what the build returned, so that no module sees
the objects another module changed. The shipped collection is kept this way too (`tests/shipped.py`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Generic, TypeVar

from django.db import connection, transaction

from archive.db.statistics import refresh_statistics
from tests.table_rows import TableRows

T = TypeVar("T")


class BuiltOnce(Generic[T]):
    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._kept: tuple[T, TableRows] | None = None

    def __call__(self) -> T:
        """What `build` returns, its rows in the database (inside the caller's transaction, if any)."""
        with transaction.atomic():
            if self._kept is None:
                before = TableRows.read()
                built = self._build()
                self._kept = (built, TableRows.read().added_since(before))
            else:
                self._kept[1].insert()
                refresh_statistics()  # PostgreSQL plans for the rows just inserted
            # The rows' foreign keys checked now, once. PostgreSQL defers the checks to the end of the
            # transaction, and each test's end asks for them (Django's TestCase) inside the test's
            # savepoint, whose rollback undoes them: thousands of checks again after every test.
            connection.check_constraints()
        return copy.deepcopy(self._kept[0])
