"""Two views that answer a constant: one plain Django view, one DRF view with the API's defaults.

Both run through every middleware of the API; the DRF view also through its
content negotiation, throttle (counted in the rate table, as the API's is)
and rendering. Neither reads the database.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

CONSTANT = {"floor": "a constant, read from nowhere"}
_WRITTEN = json.dumps(CONSTANT).encode()  # written once: the plain view does no work of its own


def plain(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_WRITTEN, content_type="application/json")


class Framed(APIView):
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(CONSTANT)


urlpatterns = [
    path("floor/django/", plain),
    path("floor/drf/", Framed.as_view()),
]
