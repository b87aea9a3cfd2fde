"""Routes for the search tests, independent of the API's own routing."""

from django.urls import path

from archive.api.search_view import SearchView

urlpatterns = [path("api/v1/search/", SearchView.as_view(), name="search")]
