"""Routes of the API, version 1."""

from django.http import JsonResponse
from django.urls import path


def api_root(request):  # placeholder until the API lands
    return JsonResponse({})


urlpatterns = [path("", api_root, name="api-root")]
