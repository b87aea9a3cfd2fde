"""Validators of a successful JSON answer, and the conditional GET they allow (ETag, Last-Modified, 304).

One rule for every way the API answers: through its views
(`archive.api.views`) or from a stored document before them
(`archive.api.stored_answers`), so that a client's cached copy is
recognised whichever way its next request takes.
"""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag


def mark(response: HttpResponse, last_modified: int | None) -> None:
    """Set the ETag (the digest of the format and the bytes) and, when known, Last-Modified."""
    digest = hashlib.sha256(response.get("Content-Type", "").encode() + response.content).hexdigest()
    response["ETag"] = quote_etag(digest[:32])
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified)


def answer(request: HttpRequest, response: HttpResponse, last_modified: int | None) -> HttpResponseBase:
    """`response`, or the 304 (or 412) its validators give for the request's conditional headers."""
    return get_conditional_response(
        request, etag=response["ETag"], last_modified=last_modified, response=response
    ) or response
