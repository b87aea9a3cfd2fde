"""Releases, read only: `/api/v1/releases/`, one release with its changelog, and its files.

A release never changes once made, so its answers carry a long `Cache-Control`
and the file downloads their SHA-256 (`Digest` per RFC 3230 and `ETag`).
"""

from __future__ import annotations

import base64
from typing import Any

from django.http import Http404, HttpResponse, JsonResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from archive.api import memento
from archive.models import Release, ReleaseFile

_IMMUTABLE = "public, max-age=31536000, immutable"


def _summary(release: Release, request: Request) -> dict[str, Any]:
    base = request.build_absolute_uri(f"/api/v1/releases/{release.number}/")
    return {
        "number": release.number,
        "made_at": release.made_at.isoformat(),
        "made_by": release.made_by,
        "note": release.note,
        "url": base,
        "changes": len(release.changelog),
        "files": [
            {"name": f.name, "media_type": f.media_type, "size": f.size, "sha256": f.sha256,
             "url": f"{base}files/{f.name}"}
            for f in release.files.all()
        ],
    }


class ReleaseList(APIView):
    @extend_schema(operation_id="releases_list", summary="Releases, newest first (as of a moment: those made by then)",
                   responses=dict, parameters=memento.LIST_SCHEMA)
    def get(self, request: Request) -> Response:
        if memento.asked(request):  # the releases made by then, as the room's releases page lists them
            return memento.releases_response(request, lambda release: _summary(release, request))
        releases = Release.objects.prefetch_related("files").defer("published").order_by("-number")
        return Response({"count": len(releases), "results": [_summary(r, request) for r in releases]})


class ReleaseDetail(APIView):
    @extend_schema(operation_id="release_retrieve", summary="A release with its changelog and contributors",
                   responses=dict)
    def get(self, request: Request, number: int) -> Response:
        release = Release.objects.prefetch_related("files").defer("published").filter(number=number).first()
        if release is None:
            raise Http404
        document = {**_summary(release, request), "changelog": release.changelog,
                    "contributors": release.contributors}
        response = Response(document)
        response["Cache-Control"] = _IMMUTABLE
        return response


def release_file(request: Any, number: int, name: str) -> HttpResponse:
    found = ReleaseFile.objects.filter(release__number=number, name=name).first()
    if found is None:
        return JsonResponse({"detail": "No such file in this release."}, status=404)
    response = HttpResponse(bytes(found.content), content_type=found.media_type)
    response["Content-Disposition"] = f'attachment; filename="release-{number}-{name.replace("/", "-")}"'
    response["ETag"] = f'"{found.sha256}"'
    response["Digest"] = "sha-256=" + base64.b64encode(bytes.fromhex(found.sha256)).decode()
    response["Cache-Control"] = _IMMUTABLE
    return response
