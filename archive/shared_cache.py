"""The default cache of one host: SQLite files in a directory that every worker process shares.

It holds the API throttle's counts, written on every API request. diskcache
writes an entry in tens of microseconds, where Django's file cache writes a
temporary file and renames it, a few hundred. The directory is made private
to the archive's user before diskcache opens it: the entries are pickles the
cache loads, and the throttle's keys are client addresses.
"""

from __future__ import annotations

import os
from typing import Any

from diskcache import DjangoCache


class PrivateDiskCache(DjangoCache):
    def __init__(self, directory: str, params: dict[str, Any]) -> None:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        super().__init__(directory, params)
