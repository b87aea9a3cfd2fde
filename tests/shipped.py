"""The shipped collection loaded for a module of tests, inside a transaction rolled back at its end.

The first load of a test process is `loaddata` of the fixture files, in order: the same records
`load_collection` loads, with the fiction flags and the document versions brought up to date once
at the end, as `load_collection` does. Every loaded row gets a history row, as `load_collection`
writes them (its COPY path aside), so that a read as of a moment after the load sees the
collection. Each file is followed by fresh planner statistics, as `load_collection` does, so that
PostgreSQL plans the next file's lookups for the rows just loaded.

That load takes 10–20 s. The rows it added are then kept in memory (`tests/built_once.py`), and
every later load of the process inserts those rows again: the same rows, ids included, in about
a second.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from archive import fiction
from archive.db.statistics import refresh_statistics
from archive.freshness.signals import bulk
from archive.importing.bulk import record_history
from tests.built_once import BuiltOnce

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("[0-9][0-9]_*.json"))


def _load_with_loaddata() -> None:
    with fiction.deferred(), bulk():
        for path in fixture_files():
            call_command("loaddata", str(path), verbosity=0)
            refresh_statistics()
        _history_of_loaded_rows()


# Fills the database with the shipped collection, in the caller's transaction if any: loaded once per
# test process, inserted again by every later call (tests/built_once.py).
load_shipped_collection = BuiltOnce(_load_with_loaddata)


def _history_of_loaded_rows() -> None:
    """A history row for each row without one (`loaddata` writes only those its links' signals wrote)."""
    for model in apps.get_app_config("archive").get_models():
        if getattr(model._meta, "simple_history_manager_attribute", None) != "history":
            continue  # not a kept model, or a history table itself
        kept = set(model.history.values_list("id", flat=True))
        record_history(model, [row for row in model._default_manager.all() if row.pk not in kept],
                       history_type="+", reason="loaded")


@contextlib.contextmanager
def collection_loaded() -> Iterator[None]:
    with transaction.atomic():
        load_shipped_collection()
        yield
        transaction.set_rollback(True)


@contextlib.contextmanager
def shared_collection(django_db_blocker: Any) -> Iterator[None]:
    """The collection for the tests of a module (the fixture `shipped_collection` of tests/conftest.py)."""
    from archive.search import snapshot

    with django_db_blocker.unblock(), collection_loaded():
        snapshot.clear()
        yield
    snapshot.clear()
