"""Top-level routes: the admin, the curators' pages and the API."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/curate/", include("archive.admin.curator_urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("archive.api.urls")),
]
