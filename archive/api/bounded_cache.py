"""An in-process cache bounded in bytes, for the API's rendered responses.

Django's local-memory cache bounds the number of entries, not their size: 500
pages of up to two megabytes each may hold a gigabyte per worker, and a client
that varies its requests decides how many are stored. This backend counts the
bytes of every stored entry (the pickled value, its key and a fixed allowance
for the bookkeeping around them) and evicts the least recently used entries
until a new one fits under `MAX_BYTES`; an entry larger than the whole ceiling
is never stored. Whatever clients send, the process holds at most `MAX_BYTES`
of cached responses (setting `API_CACHE_MAX_BYTES`, see docs/security.md).

Like Django's LocMemCache, whose storage it reuses, every instance created
with the same LOCATION shares one store, so the bound holds per process.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache

# Python's overhead of one entry besides its key and value: the OrderedDict
# slot, the bytes and str headers, the expiry float and its dict slot.
ENTRY_OVERHEAD = 256
DEFAULT_MAX_BYTES = 32 * 1024 * 1024

# Bytes held per LOCATION, shared by the instances of every thread.
_bytes_held: dict[str, list[int]] = {}


def entry_size(key: str, pickled: bytes) -> int:
    return len(pickled) + len(key) + ENTRY_OVERHEAD


class BoundedMemoryCache(LocMemCache):
    """LocMemCache whose entries together never exceed `OPTIONS["MAX_BYTES"]`."""

    # LocMemCache's private storage, which its type stubs leave out.
    _cache: OrderedDict[str, bytes]
    _expire_info: dict[str, float | None]
    _lock: threading.Lock
    _has_expired: Callable[[str], bool]

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        super().__init__(name, params)
        options = params.get("OPTIONS") or {}
        self.max_bytes = int(options.get("MAX_BYTES", DEFAULT_MAX_BYTES))
        self._held = _bytes_held.setdefault(name, [0])

    @property
    def bytes_held(self) -> int:
        return self._held[0]

    def _set(self, key: str, value: bytes, timeout: Any = DEFAULT_TIMEOUT) -> None:
        self._delete(key)
        size = entry_size(key, value)
        if size > self.max_bytes:
            return
        # The least recently used entries sit at the end (LocMemCache moves a hit to the front).
        while self._cache and (self._held[0] + size > self.max_bytes or len(self._cache) >= self._max_entries):
            old_key, old_value = self._cache.popitem()
            self._expire_info.pop(old_key, None)
            self._held[0] -= entry_size(old_key, old_value)
        self._cache[key] = value
        self._cache.move_to_end(key, last=False)
        self._expire_info[key] = self.get_backend_timeout(timeout)
        self._held[0] += size

    def _delete(self, key: str) -> bool:
        value = self._cache.get(key)
        if value is None:
            return False
        super()._delete(key)  # type: ignore[misc]  # private to LocMemCache, absent from its stubs
        self._held[0] -= entry_size(key, value)
        return True

    def _cull(self) -> None:
        super()._cull()  # type: ignore[misc]  # private to LocMemCache, absent from its stubs
        self._held[0] = sum(entry_size(key, value) for key, value in self._cache.items())

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._expire_info.clear()
            self._held[0] = 0

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> Any:
        made = self.make_and_validate_key(key, version=version)
        with self._lock:
            if self._has_expired(made):
                self._delete(made)
                raise ValueError(f"Key '{made}' not found")
            value = pickle.loads(self._cache[made]) + delta
            timeout = self._expire_info[made]
            self._set(made, pickle.dumps(value, self.pickle_protocol))
            if made in self._cache:
                self._expire_info[made] = timeout
        return value
