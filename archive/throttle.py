"""The API's per-client throttle, over the views that are not DRF's: the reconciliation service and the reading room.

DRF throttles only its own views, so `/reconcile/` and the reading room were
open to any number of requests. Each now counts with the same
`ClientRateThrottle` (the same client address, the same shared store), under
its own scope, whose rate is set beside the API's in
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (`RECONCILE_RATE`, `ROOM_RATE`).
A client over its rate gets a 429 with ``Retry-After``, shaped by the caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

from archive.client_address import ClientRateThrottle

RECONCILE = "reconcile"
ROOM = "room"


class _Scoped(ClientRateThrottle):
    def __init__(self, scope: str) -> None:
        self.scope = scope
        super().__init__()


def retry_after(request: HttpRequest, scope: str) -> int | None:
    """None when the client may go on; else the whole seconds it must wait (at least 1)."""
    throttle = _Scoped(scope)
    if throttle.allow_request(request, None):
        return None
    return max(1, math.ceil(throttle.wait() or 1))


def too_many(seconds: int, response: HttpResponse) -> HttpResponse:
    """`response` as the 429 of a client that must wait `seconds`."""
    response.status_code = 429
    response["Retry-After"] = str(seconds)
    return response


def throttled(scope: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A plain Django view counted under `scope`; over the rate, a plain-text 429 with Retry-After."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            seconds = retry_after(request, scope)
            if seconds is not None:
                text = f"Too many requests: try again in {seconds} s.\n"
                return too_many(seconds, HttpResponse(text, content_type="text/plain; charset=utf-8"))
            return view(request, *args, **kwargs)

        return wrapped

    return decorate
