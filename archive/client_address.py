"""Where a request comes from: one answer for the request log, login lockouts and the API's throttle.

Behind reverse proxies every request arrives from a proxy's address, and the
client's own address travels in ``X-Forwarded-For``, a header any client can
also write. Each trusted proxy appends the address it received the request
from, so only the last ``TRUSTED_PROXY_COUNT`` entries were written by
servers the operator runs; anything further left is the client's say and is
ignored. With no trusted proxy (the default) the header is ignored entirely
and the address is the peer's, ``REMOTE_ADDR``.

If the three consumers read the address each their own way, a client could
be locked out under one address, throttled under another and logged under a
third, or escape throttling by sending a new ``X-Forwarded-For`` with every
request (DRF's stock throttle trusts the whole header when ``NUM_PROXIES`` is
unset). So django-axes (``AXES_CLIENT_IP_CALLABLE``), the request log and
``ClientRateThrottle`` all call ``client_ip`` here.
"""

from __future__ import annotations

import ipaddress
import math
import threading
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest
from rest_framework.throttling import AnonRateThrottle

from archive.rate_table import RateTable


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def client_ip(request: HttpRequest) -> str | None:
    """The client's address as seen through ``TRUSTED_PROXY_COUNT`` reverse proxies.

    The client is the N-th entry of ``X-Forwarded-For`` from the right. With
    fewer entries than proxies (a request that came through fewer of them)
    the leftmost entry is the one the first proxy wrote. An entry that is not
    an IP address is not believed: the peer's address stands.
    """
    remote = request.META.get("REMOTE_ADDR")
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    if count <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if not forwarded:
        return remote
    chosen = forwarded[-count] if len(forwarded) >= count else forwarded[0]
    return chosen if _is_address(chosen) else remote


def throttle_table() -> RateTable | None:
    """The host's table of throttle moments (`THROTTLE_TABLE`), or None when the default cache keeps them."""
    path = getattr(settings, "THROTTLE_TABLE", None)
    if not path:
        return None
    with _tables_lock:  # one table object per path, whose lock the threads of a worker share
        table = _tables.get(path)
        if table is None:
            table = _tables[path] = RateTable(path, secret=settings.SECRET_KEY.encode())
    return table


_tables: dict[str, RateTable] = {}
_tables_lock = threading.Lock()


class ClientRateThrottle(AnonRateThrottle):
    """DRF's anonymous rate (scope ``anon``), counted per ``client_ip`` by the generic cell rate algorithm.

    The state is one store for every worker process: the host's rate table
    (`archive.rate_table`, a file in CACHE_DIR), or, where REDIS_URL is set,
    the default cache, which every host then shares. So the rate holds
    however many workers serve.

    DRF's own throttle keeps the time of every request in the window and
    writes them all back at each request: at the default 600 a minute, a
    list of 600 numbers, pickled and written by every request of a busy
    client, which cost more than the rest of a stored answer. The generic
    cell rate algorithm (GCRA, as in redis-cell) keeps one number per
    client: the moment its allowance will be whole again. A client may send
    N requests at once, and then one every period/N: its sustained rate is N
    per period, as before, but in the period after a rest it may reach
    nearly 2N, where DRF's log allowed N in any period.
    """

    def get_ident(self, request: HttpRequest) -> str:
        return client_ip(request) or ""

    def allow_request(self, request: Any, view: Any) -> bool:
        requests, period = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if requests is None or period is None or self.key is None:
            return True
        now = self.timer()

        def spend(full_at: float | None) -> float | None:
            """The moment the allowance is whole again after this request; None when nothing is left."""
            spent = max(full_at or now, now) + period / requests
            if spent - now > period:
                self.wait_seconds = spent - now - period
                return None
            return spent

        table = throttle_table()
        if table is not None:
            return table.update(self.key, spend) is not None
        stored = self.cache.get(self.key)
        # Anything but a number (another algorithm's state, or none) is a whole allowance.
        spent = spend(stored if isinstance(stored, float) else None)
        if spent is None:
            return False
        self.cache.set(self.key, spent, math.ceil(spent - now))
        return True

    def wait(self) -> float | None:
        return getattr(self, "wait_seconds", None)


def forget_all_clients() -> None:
    """Start every client's allowance again (the tests' clean slate)."""
    table = throttle_table()
    if table is not None:
        table.clear()
    caches["default"].clear()
