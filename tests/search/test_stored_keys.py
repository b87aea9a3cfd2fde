"""Name keys stored in the database: a new process builds its snapshot from them instead of computing them.

`snapshot.clear()` empties this process's memory of snapshots and keys, as a
new worker starts; the rows stored by earlier writes remain.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from archive import search
from archive.models import Person, PersonName, StoredNameKeys
from archive.search import keys, snapshot, stored_keys
from archive.search.records import KINDS, Query
from tests.factories import approved

from .conftest import World, keys_of
from .test_snapshot import QUERIES, _from_snapshot, _full_scan


def _all_names() -> set[str]:
    names: set[str] = set()
    for kind in KINDS.values():
        names.update(kind.model._default_manager.values_list(kind.title_field, flat=True))
        if kind.alias_model is not None:
            names.update(kind.alias_model._default_manager.values_list("name", flat=True))
    return names


@pytest.fixture
def computing(monkeypatch: Any) -> list[str]:
    """The names whose keys are computed from now on (the expensive path)."""
    computed: list[str] = []
    compute = keys.compute_name_keys

    def counting(name: str) -> keys.NameKeys:
        computed.append(name)
        return compute(name)

    counting.cache_clear = compute.cache_clear  # type: ignore[attr-defined]  # what `snapshot.clear` empties
    monkeypatch.setattr(keys, "compute_name_keys", counting)
    return computed


@pytest.fixture
def stored(world: World) -> World:
    """The world with the keys of every name stored (a title or two was written with `update`, no signal)."""
    stored_keys.store_all()
    return world


def test_the_stored_keys_are_those_computed(stored: World) -> None:
    rows = stored_keys._load("default")
    assert {name for name in _all_names() if name} <= set(rows)  # and names no record bears any more
    for name, found in rows.items():
        assert found == keys.compute_name_keys(name)


def test_a_new_process_builds_its_snapshot_from_the_stored_keys(stored: World, computing: list[str]) -> None:
    snapshot.clear()
    snapshot.snapshots(search.TYPES)
    assert computing == []


@pytest.mark.parametrize("text", QUERIES[::4])
def test_a_snapshot_from_stored_keys_answers_as_a_fresh_build(stored: World, text: str) -> None:
    query = Query.of(search.clean_query(text))
    snapshot.clear()
    from_store = _from_snapshot(query)
    StoredNameKeys.objects.all().delete()
    snapshot.clear()
    assert from_store == _from_snapshot(query) == _full_scan(query)


def test_keys_of_another_folding_version_are_not_used(world: World, computing: list[str], monkeypatch: Any) -> None:
    monkeypatch.setattr(stored_keys, "version", lambda: "another version of the folding code")
    snapshot.clear()
    built = snapshot.snapshots(search.TYPES)
    assert set(computing) == {name for kept in built.values() for r in kept.records for name in (r.title, *r.aliases)}
    assert ("person", "tang-shengzhi") in keys_of(search.search("唐生智"))


def test_a_name_written_without_signals_is_computed_then_stored_by_store_all(stored: World,
                                                                              computing: list[str]) -> None:
    Person.objects.filter(pk=stored.zhou.pk).update(name="周瀾生")  # no signal: its keys are not stored
    snapshot.clear()
    assert ("person", "zhou-lan") in keys_of(search.search("周澜生", types=["person"]))
    assert "周瀾生" in computing
    assert stored_keys.store_all() == 1
    computing.clear()
    snapshot.clear()
    assert ("person", "zhou-lan") in keys_of(search.search("周澜生", types=["person"]))
    assert "周瀾生" not in computing


def test_store_all_removes_the_rows_of_other_versions(world: World) -> None:
    StoredNameKeys.objects.create(digest="0" * 64, version="old", name="旧", key="旧", syllables="jiu",
                                  han_positions="0")
    StoredNameKeys.objects.exclude(version="old").delete()
    assert stored_keys.store_all() == len({name for name in _all_names() if name})
    assert not StoredNameKeys.objects.filter(version="old").exists()
    assert stored_keys.store_all() == 0


def test_rebuild_search_index_stores_the_keys(world: World) -> None:
    StoredNameKeys.objects.all().delete()
    call_command("rebuild_search_index", verbosity=0)
    assert set(StoredNameKeys.objects.values_list("name", flat=True)) == {name for name in _all_names() if name}


def test_saving_records_and_aliases_stores_their_names(world: World) -> None:
    person = approved(Person(slug="li-zongren", name="李宗仁"))
    PersonName.objects.create(person=person, name="李德鄰")
    stored = set(StoredNameKeys.objects.values_list("name", flat=True))
    assert {"李宗仁", "李德鄰"} <= stored
