"""Load the shipped collection once per module, inside a transaction rolled back afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.db import transaction


@pytest.fixture(scope="module")
def collection(django_db_setup: None, django_db_blocker: object) -> Iterator[None]:
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        call_command("load_collection", verbosity=0)
        yield
        transaction.set_rollback(True)
