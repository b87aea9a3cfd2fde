"""Routes of the API, version 1.

`search/` is served by `archive.api.search_view.SearchView`; it is routed
only when that module exists, so the rest of the API works without it.
"""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import DefaultRouter

from archive.api import releases, views

app_name = "api"


class ReadOnlyRouter(DefaultRouter):
    include_format_suffixes = False


router = ReadOnlyRouter(trailing_slash=True)
router.register("sources", views.SourceViewSet, basename="source")
router.register("passages", views.PassageViewSet, basename="passage")
router.register("persons", views.PersonViewSet, basename="person")
router.register("units", views.UnitViewSet, basename="unit")
router.register("locations", views.LocationViewSet, basename="location")
router.register("events", views.EventViewSet, basename="event")
router.register("citations", views.CitationViewSet, basename="citation")

urlpatterns = [
    # The JSON-LD context every `?format=jsonld` document names (`archive.api.linked_data`).
    path("context.jsonld", views.jsonld_context, name="jsonld-context"),
    path("releases/", releases.ReleaseList.as_view(), name="release-list"),
    path("releases/<int:number>/", releases.ReleaseDetail.as_view(), name="release-detail"),
    path("releases/<int:number>/files/<path:name>", releases.release_file, name="release-file"),
    *router.urls,
]

try:
    from archive.api.search_view import SearchView
except ModuleNotFoundError as missing:
    if missing.name != "archive.api.search_view":
        raise
else:
    urlpatterns.append(path("search/", SearchView.as_view(), name="search"))
