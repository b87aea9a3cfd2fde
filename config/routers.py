"""Send the API's reads to PostgreSQL read replicas, everything else to the primary.

The public API is read-only and carries most of the traffic, so its reads are
what a streaming replica can take off the primary. Which queries are "the
API's reads" is a property of the request, not of the model, so a middleware
marks requests whose path starts with ``/api/`` and whose method is safe
(GET, HEAD, OPTIONS) in a context variable that the router reads. Anything
else goes to the primary: every write, the admin (curators must read their own
writes), management commands, and any read inside a transaction on the
primary (``in_atomic_block``), since a replica cannot see what the
transaction has not committed.

A request picks one replica at its first read and keeps it, so that a count
and the page it paginates come from the same server. A replica that cannot be
connected to is skipped and remembered as down for ``REPLICA_RETRY_SECONDS``
(a few seconds), so that a dead replica costs one failed connect per process
per interval, not one per query; when no replica is usable the primary serves
the read. Replicas are the ``replica1`` … aliases that settings build from
``DATABASE_REPLICA_URLS``; with none configured the router sends everything to
the primary and changes nothing.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger("archive.db")

REPLICA_PREFIX = "replica"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass
class ReadContext:
    """What the router knows of the current request: the replica it chose, if any."""

    replica: str | None = None


# None outside an API read request: the router then answers "primary".
_api_read: ContextVar[ReadContext | None] = ContextVar("archive_api_read", default=None)

_down_until: dict[str, float] = {}
_down_lock = threading.Lock()


def serving_from_replica() -> bool:
    """Whether the current request reads from a replica: its answer must then write nothing anywhere."""
    context = _api_read.get()
    return context is not None and context.replica not in (None, DEFAULT_DB_ALIAS)


def replica_aliases() -> list[str]:
    """The configured replica aliases, in order (``replica1``, ``replica2`` …)."""
    return [alias for alias in settings.DATABASES if alias.startswith(REPLICA_PREFIX)]


def retry_seconds() -> float:
    return float(getattr(settings, "REPLICA_RETRY_SECONDS", 5.0))


def mark_down(alias: str) -> None:
    """Skip ``alias`` for the next few seconds (also used by the health check)."""
    with _down_lock:
        was_up = alias not in _down_until
        _down_until[alias] = time.monotonic() + retry_seconds()
    if was_up:
        logger.warning("replica %s is unreachable; reads fall back to the primary or another replica", alias)


def mark_up(alias: str) -> None:
    with _down_lock:
        was_down = _down_until.pop(alias, None) is not None
    if was_down:
        logger.warning("replica %s is reachable again", alias)


def is_marked_down(alias: str) -> bool:
    with _down_lock:
        until = _down_until.get(alias)
    return until is not None and time.monotonic() < until


def reset_replica_state() -> None:
    """Forget what is known of replicas (for tests and after reconfiguration)."""
    with _down_lock:
        _down_until.clear()


def replica_usable(alias: str) -> bool:
    """Whether ``alias`` can serve a read now.

    The check is the connection the read would open anyway: connecting is the
    cheap probe, and an open, healthy connection costs nothing more. A failure
    is cached by :func:`mark_down`.
    """
    if is_marked_down(alias):
        return False
    connection = connections[alias]
    try:
        connection.close_if_health_check_failed()
        connection.ensure_connection()
    except DatabaseError:
        connection.close()
        mark_down(alias)
        return False
    mark_up(alias)
    return True


def _choose_replica(candidates: list[str]) -> str | None:
    random.shuffle(candidates)
    for alias in candidates:
        if replica_usable(alias):
            return alias
    return None


class ReplicaRouter:
    """Database router: API reads to a usable replica, everything else to the primary."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        context = _api_read.get()
        if context is None:
            return DEFAULT_DB_ALIAS
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        if context.replica is not None:
            return context.replica
        replicas = replica_aliases()
        if not replicas:
            return DEFAULT_DB_ALIAS
        context.replica = _choose_replica(replicas) or DEFAULT_DB_ALIAS
        return context.replica

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        # Explicit, so that an instance read from a replica is still saved on the primary.
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # Replicas hold the same rows as the primary: relations across them are fine.
        known = {DEFAULT_DB_ALIAS, *replica_aliases()}
        if obj1._state.db in known and obj2._state.db in known:
            return True
        return None

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool | None:
        # A replica follows the primary's WAL; it is never migrated on its own.
        if db.startswith(REPLICA_PREFIX):
            return False
        return None


class ReplicaReadMiddleware:
    """Mark safe requests to ``/api/`` as reads that a replica may serve."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not (request.path.startswith("/api/") and request.method in SAFE_METHODS):
            return self.get_response(request)
        token = _api_read.set(ReadContext())
        try:
            return self.get_response(request)
        finally:
            _api_read.reset(token)
