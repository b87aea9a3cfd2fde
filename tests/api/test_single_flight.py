"""Workers that miss the same stored document at once build it once and all read what was stored.

On PostgreSQL by an advisory lock per document (`archive.api.stored`); SQLite admits one writer at a
time, and its transactions are begun IMMEDIATE, so the second builder finds the first one's document.
The records are committed (a transactional test), so that every worker's connection sees them.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection, connections

from archive.api import stored
from archive.models import Person, StoredDocument
from archive.roles import ensure_groups
from archive.selectors import FictionMode
from tests.factories import approved


@pytest.mark.skipif(connection.vendor != "postgresql", reason="advisory locks: PostgreSQL (SQLite admits one writer)")
@pytest.mark.django_db(transaction=True)
def test_workers_that_miss_the_same_document_at_once_build_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = stored.KINDS["person"]
    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    approved(Person(slug="matsui-iwane", name="松井石根", side="japanese"))
    builds: list[list[Any]] = []
    real_build = stored.build
    started = threading.Barrier(4)

    def slow_build(kind: Any, keys: Any, mode: Any, **options: Any) -> dict[str, str]:
        builds.append(list(keys))
        threading.Event().wait(0.3)  # long enough for every other worker to arrive and wait
        return real_build(kind, keys, mode, **options)

    monkeypatch.setattr(stored, "build", slow_build)
    answers: list[list[str]] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            started.wait()
            answers.append(stored.documents(kind, ["tang-shengzhi", "matsui-iwane"], FictionMode.EXCLUDE))
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert builds == [["tang-shengzhi", "matsui-iwane"]]
    assert len(answers) == 4 and all(answer == answers[0] for answer in answers)
    assert StoredDocument.objects.filter(tag__in=["person:tang-shengzhi", "person:matsui-iwane"]).count() == 2
