"""Workers that miss the same stored document at once build it once and all read what was stored.

On PostgreSQL by an advisory lock per document (`archive.api.stored`); SQLite admits one writer at a
time, and its transactions are begun IMMEDIATE, so the second builder finds the first one's document.
The records are committed (a transactional test), so that every worker's connection sees them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection, connections

from archive.api import stored
from archive.models import Person, StoredDocument
from archive.roles import ensure_groups
from archive.selectors import FictionMode
from tests.factories import approved

T = TypeVar("T")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="advisory locks: PostgreSQL (SQLite admits one writer)")
@pytest.mark.django_db(transaction=True)
def test_workers_that_miss_the_same_document_at_once_build_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = stored.KINDS["person"]
    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    approved(Person(slug="matsui-iwane", name="松井石根", side="japanese"))
    builds: list[list[Any]] = []
    real_build = stored.build

    def slow_build(kind: Any, keys: Any, mode: Any, **options: Any) -> dict[str, str]:
        builds.append(list(keys))
        threading.Event().wait(0.3)  # long enough for every other worker to arrive and wait
        return real_build(kind, keys, mode, **options)

    monkeypatch.setattr(stored, "build", slow_build)
    answers = _at_once(4, lambda: stored.documents(kind, ["tang-shengzhi", "matsui-iwane"], FictionMode.EXCLUDE))
    assert builds == [["tang-shengzhi", "matsui-iwane"]]
    assert len(answers) == 4 and all(answer == answers[0] for answer in answers)
    assert StoredDocument.objects.filter(tag__in=["person:tang-shengzhi", "person:matsui-iwane"]).count() == 2


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the stored answers build in SQL on PostgreSQL only")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("what", ["detail", "page"])
def test_readers_of_the_same_stale_answer_at_once_build_it_once(monkeypatch: pytest.MonkeyPatch, what: str) -> None:
    """The stored answers' own builds (`stored.built_detail`, `stored.built_page`) are single flight too."""
    from django.test import Client

    from archive.api import sql_built
    from archive.api.caching import HIT_HEADER
    from archive.api.stored_answers import BUILT, STORED

    ensure_groups(Group, Permission)
    approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    approved(Person(slug="matsui-iwane", name="松井石根", side="japanese"))
    path = "/api/v1/persons/tang-shengzhi/" if what == "detail" else "/api/v1/persons/"
    builds: list[str] = []
    statement = sql_built.documents if what == "detail" else sql_built.page

    def slow(*args: Any, **kwargs: Any) -> Any:
        builds.append(what)
        threading.Event().wait(0.3)  # long enough for every other reader to arrive and wait
        return statement(*args, **kwargs)

    monkeypatch.setattr(sql_built, "documents" if what == "detail" else "page", slow)

    def read() -> tuple[bytes, str]:
        response = Client().get(path)
        return response.content, response[HIT_HEADER]

    answers = _at_once(4, read)
    assert builds == [what]
    assert len(answers) == 4 and len({body for body, _ in answers}) == 1
    assert sorted(way for _, way in answers) == [BUILT, STORED, STORED, STORED]
    tag = "person:tang-shengzhi" if what == "detail" else "person:list"
    assert StoredDocument.objects.filter(tag=tag).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the stored answers build in SQL on PostgreSQL only")
@pytest.mark.django_db
def test_a_reader_on_a_replica_builds_its_answer_and_stores_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.test import Client

    from archive.api.caching import HIT_HEADER
    from archive.api.stored_answers import BUILT
    from config import routers

    approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    monkeypatch.setattr(routers, "serving_from_replica", lambda: True)
    for path in ("/api/v1/persons/tang-shengzhi/", "/api/v1/persons/"):
        response = Client().get(path)
        assert response.status_code == 200 and response[HIT_HEADER] == BUILT, path
        assert "唐生智" in response.content.decode()
    assert not StoredDocument.objects.exists()


def _at_once(workers: int, call: Callable[[], T]) -> list[T]:
    """What `call` answers in each of `workers` threads started together, each on its own connections."""
    started = threading.Barrier(workers)
    answers: list[T] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            started.wait()
            answers.append(call())
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    return answers
