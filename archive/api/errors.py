"""Error bodies of the API in the reader's language, never with internals.

Django's `Http404` carries an English sentence built from a model name
("No Person matches the given query."); DRF would pass it through as is.
The API answers with DRF's own translated "Not found." instead, so that an
error body follows `Accept-Language` like every other message.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    return drf_exception_handler(exc, context)
