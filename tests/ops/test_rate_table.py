"""The throttle's table shared by the worker processes of a host (`archive.rate_table`)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import pytest

from archive.rate_table import WAYS, RateTable

SECRET = b"rate-table-test"


def _count(table: RateTable, key: str, times: int) -> None:
    for _ in range(times):
        table.update(key, lambda moment: (moment or 0.0) + 1)


def _count_in_threads(table: RateTable, key: str, times: int) -> None:
    threads = [threading.Thread(target=_count, args=(table, key, times)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_a_moment_is_stored_and_read_back_and_none_leaves_it(tmp_path: Path) -> None:
    table = RateTable(tmp_path / "t", secret=SECRET, buckets=16)
    assert table.update("client", lambda moment: None) is None
    seen: list[float | None] = []
    assert table.update("client", lambda moment: seen.append(moment) or 5.0) == 5.0
    assert table.update("client", lambda moment: seen.append(moment) or None) is None
    assert table.update("other", lambda moment: seen.append(moment) or None) is None
    assert seen == [None, 5.0, None]
    table.clear()
    assert table.update("client", lambda moment: moment) is None


def test_processes_and_threads_updating_one_key_lose_no_update(tmp_path: Path) -> None:
    parent = RateTable(tmp_path / "t", secret=SECRET, buckets=4)
    parent.update("busy", lambda moment: 0.0)  # mapped before the fork, as a worker inherits it
    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_count_in_threads, args=(parent, "busy", 300)) for _ in range(3)]
    for child in children:
        child.start()
    _count(parent, "busy", 300)
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    assert parent.update("busy", lambda moment: None) is None
    assert parent.update("busy", lambda moment: moment) == 3 * 2 * 300 + 300


def test_a_full_bucket_gives_up_a_passed_moment_first_then_the_soonest(tmp_path: Path) -> None:
    table = RateTable(tmp_path / "t", secret=SECRET, buckets=1)
    for n in range(WAYS):
        table.update(f"client-{n}", lambda moment, n=n: 100.0 + n)
    table.update("client-3", lambda moment: 1.0)  # its allowance is whole again at 1.0
    table.update("newcomer", lambda moment: 500.0)
    assert table.update("client-3", lambda moment: moment) is None  # it was the one given up
    assert table.update("client-5", lambda moment: moment) == 105.0
    # Full of moments to come: the soonest (client-0's 100.0) goes.
    table.update("latecomer", lambda moment: 600.0)
    assert table.update("client-0", lambda moment: moment) is None
    assert [table.update(f"client-{n}", lambda moment: moment) for n in (1, 2, 4, 6, 7)] == [101, 102, 104, 106, 107]


def test_the_file_is_private_and_grows_but_never_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "private" / "t"
    small = RateTable(path, secret=SECRET, buckets=2)
    small.update("client", lambda moment: 7.0)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_size == small.size
    large = RateTable(path, secret=SECRET, buckets=64)
    large.update("client", lambda moment: moment)
    assert path.stat().st_size == large.size
    RateTable(path, secret=SECRET, buckets=2).update("client", lambda moment: moment)
    assert path.stat().st_size == large.size  # a process still mapping it whole never reads past its end


def test_keys_are_placed_by_a_keyed_hash(tmp_path: Path) -> None:
    one = RateTable(tmp_path / "a", secret=b"one", buckets=1024)
    two = RateTable(tmp_path / "b", secret=b"two", buckets=1024)
    keys = [f"throttle_anon_192.0.2.{n}" for n in range(64)]
    assert [one._fingerprint(key) for key in keys] != [two._fingerprint(key) for key in keys]


def test_a_table_needs_a_bucket(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        RateTable(tmp_path / "t", secret=SECRET, buckets=0)
