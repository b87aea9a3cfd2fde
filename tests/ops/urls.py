"""Routes used only by the operations tests: probes of the router and a failing view.

They are mounted in front of the project's own routes (`config.urls`), under the
same prefixes (`/api/v1/`, `/admin/`), so that a request to them passes through
the real middleware stack and the real router.
"""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import connections, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt


def _server(alias: str) -> dict[str, object]:
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return {"port": None, "in_recovery": None}
    with connection.cursor() as cursor:
        cursor.execute("SELECT inet_server_port(), pg_is_in_recovery()")
        port, in_recovery = cursor.fetchone()
    return {"port": port, "in_recovery": in_recovery}


def _read() -> dict[str, object]:
    alias = Group.objects.all().db  # what the router chose for this read
    return {"read_alias": alias, **_server(alias), "groups": Group.objects.count()}


@csrf_exempt
def probe(request: HttpRequest) -> JsonResponse:
    """Report which database served this request's reads (and write, when asked)."""
    body: dict[str, object] = {}
    if name := request.GET.get("write"):
        body["written"] = Group.objects.create(name=name).pk
    if request.GET.get("atomic"):
        with transaction.atomic():
            body.update(_read())
    else:
        body.update(_read())
    if name := request.GET.get("exists"):
        body["exists"] = Group.objects.filter(name=name).exists()
    return JsonResponse(body)


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("the probe failed on purpose")


urlpatterns = [
    path("api/v1/_probe/", probe),
    path("admin/_probe/", probe),
    path("_boom/", boom),
    path("", include("config.urls")),
]
