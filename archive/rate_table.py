"""One number per client, shared by every worker process of a host: a table in a memory-mapped file.

The API throttle (`archive.client_address.ClientRateThrottle`) reads and
writes one moment per client at every request. In Django's file cache that
write is a new file, a rename and a listing of the whole directory; with
several workers on one host they queue on that directory: under load, a
fifth of a stored detail's time. Here the same write is sixteen bytes in a
page of memory the workers share, under a lock on its bucket.

Layout: `buckets` buckets of `WAYS` slots; a slot is a client's fingerprint
(a keyed hash of its key, 8 bytes, 0 for an empty slot) and its moment (a
float). A client lives in the bucket its fingerprint names. A moment that
has passed means a whole allowance, the same as no slot at all, so such a
slot is free for another client; only when every slot of a bucket holds a
moment still to come is the one soonest to come given up, and its client
starts again with a whole allowance, as when a cache culls its entries.
The default table holds 65,536 clients busy at once in 1 MiB.

The table lives on one host. Servers on several hosts count together only
in a store they all reach: settings then point the throttle at Redis.
"""

from __future__ import annotations

import fcntl
import hashlib
import mmap
import os
import struct
import threading
from collections.abc import Callable
from pathlib import Path

WAYS = 8
_SLOT = struct.Struct("<Qd")  # fingerprint, moment
_BUCKET_BYTES = WAYS * _SLOT.size


class RateTable:
    """Moments by key in a file every process of the host maps; each update is atomic across them."""

    def __init__(self, path: str | os.PathLike[str], *, secret: bytes, buckets: int = 8192) -> None:
        if buckets < 1:
            raise ValueError("A rate table needs at least one bucket.")
        self.path = Path(path)
        self.buckets = buckets
        self.size = buckets * _BUCKET_BYTES
        # Keyed, so that nobody can choose keys that fall into one bucket and push others out of it.
        self._secret = hashlib.blake2b(secret, digest_size=32).digest()
        # POSIX record locks exclude other processes only; the threads of one process take this first.
        self._thread_lock = threading.Lock()
        self._pid: int | None = None
        self._fd = -1
        self._map: mmap.mmap | None = None

    def update(self, key: str, spend: Callable[[float | None], float | None]) -> float | None:
        """Call `spend` with the key's moment (None when it has none) and store what it answers.

        `spend` answers the new moment, or None to leave the table as it was.
        No other process or thread reads or writes the key's bucket meanwhile.
        """
        fingerprint = self._fingerprint(key)
        offset = (fingerprint % self.buckets) * _BUCKET_BYTES
        with self._thread_lock:
            table = self._mapped()
            fcntl.lockf(self._fd, fcntl.LOCK_EX, _BUCKET_BYTES, offset)
            try:
                slot, moment = self._find(table, offset, fingerprint)
                spent = spend(moment)
                if spent is not None:
                    _SLOT.pack_into(table, slot, fingerprint, spent)
                return spent
            finally:
                fcntl.lockf(self._fd, fcntl.LOCK_UN, _BUCKET_BYTES, offset)

    def clear(self) -> None:
        """Forget every key."""
        with self._thread_lock:
            table = self._mapped()
            fcntl.lockf(self._fd, fcntl.LOCK_EX)
            try:
                table[:] = bytes(self.size)
            finally:
                fcntl.lockf(self._fd, fcntl.LOCK_UN)

    def _fingerprint(self, key: str) -> int:
        digest = hashlib.blake2b(key.encode(), digest_size=8, key=self._secret).digest()
        return int.from_bytes(digest, "little") or 1  # 0 marks an empty slot

    @staticmethod
    def _find(table: mmap.mmap, offset: int, fingerprint: int) -> tuple[int, float | None]:
        """The key's slot and moment; or, for a key not there, the slot to give it and None."""
        victim, victim_moment = offset, float("inf")
        for slot in range(offset, offset + _BUCKET_BYTES, _SLOT.size):
            owner, moment = _SLOT.unpack_from(table, slot)
            if owner == fingerprint:
                return slot, moment
            free_at = float("-inf") if owner == 0 else moment
            if free_at < victim_moment:
                victim, victim_moment = slot, free_at
        return victim, None

    def _mapped(self) -> mmap.mmap:
        """The table mapped in this process, opened (and created at its size) on first use."""
        if self._map is not None and self._pid == os.getpid():
            return self._map
        # A forked child opens its own descriptor: record locks belong to the process that takes them.
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX)
            try:
                # Grown, never shrunk: another process may map it whole. A table written with
                # fewer buckets leaves its keys in other buckets, and each starts again once.
                if os.fstat(fd).st_size < self.size:
                    os.ftruncate(fd, self.size)
            finally:
                fcntl.lockf(fd, fcntl.LOCK_UN)
            table = mmap.mmap(fd, self.size)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._map, self._pid = fd, table, os.getpid()
        return table
