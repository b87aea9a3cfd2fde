"""The service manifest: what the service is and where its other services live.

Version 0.2 of the specification is what OpenRefine speaks; the 1.0 draft
changed only the shape of `defaultTypes` entries and `versions`, which this
manifest already satisfies, and drops `suggest`'s `service_url` split, so one
manifest serves both.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from .batch import MAX_BATCH
from .types import TYPES

VERSIONS = ["0.2"]
_SLOT = "IDENTIFIERSLOT"


def manifest(request: Any) -> dict[str, Any]:
    def url(name: str) -> str:
        return request.build_absolute_uri(reverse(name))

    def template(name: str) -> str:
        return request.build_absolute_uri(reverse(name, kwargs={"ident": _SLOT})).replace(_SLOT, "{{id}}")

    service_root = url("reconcile:service").rstrip("/")

    def path(name: str) -> str:
        return reverse(name).removeprefix(reverse("reconcile:service").rstrip("/"))

    return {
        "versions": VERSIONS,
        "name": _("Archive of the retreat from Nanjing, December 1937"),
        "identifierSpace": request.build_absolute_uri("/api/v1/"),
        "schemaSpace": url("reconcile:service") + "types/",
        "documentation": request.build_absolute_uri("/api/docs/"),
        "batchSize": MAX_BATCH,
        "view": {"url": template("reconcile:view")},
        "preview": {"url": template("reconcile:preview"), "width": 400, "height": 200},
        "defaultTypes": [{"id": t.id, "name": str(t.name)} for t in TYPES.values()],
        "suggest": {
            "entity": {"service_url": service_root, "service_path": path("reconcile:suggest-entity"),
                       "flyout_service_path": path("reconcile:flyout") + "?id=${id}"},
            "type": {"service_url": service_root, "service_path": path("reconcile:suggest-type")},
            "property": {"service_url": service_root, "service_path": path("reconcile:suggest-property")},
        },
        "extend": {
            "propose_properties": {"service_url": service_root, "service_path": path("reconcile:propose")},
            "property_settings": [],
        },
    }
