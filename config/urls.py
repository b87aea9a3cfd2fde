"""Top-level routes: the admin, the curators' pages, the API and the public reading room."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from archive.health import health
from archive.importing.release_view import make_release_view

urlpatterns = [
    path("admin/curate/", include("archive.admin.curator_urls")),
    # The reviewers' release button of the admin's release list.
    path("admin/releases/make/", admin.site.admin_view(make_release_view), name="release_make"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("archive.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The docs page loads its start-up script from its own URL (?script): no inline script, as the policy asks.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    # The reconciliation service (OpenRefine and other clients of the W3C reconciliation API).
    path("reconcile/", include("archive.reconcile.urls")),
    path("health/", health, name="health"),
    # The language switcher of the admin header posts here; the choice is kept in a cookie.
    path("i18n/", include("django.conf.urls.i18n")),
    # Last: the reading room owns the root and whatever no other route claims.
    path("", include("archive.room.urls")),
]
