"""The review queue (in progress)."""

from django.http import HttpRequest, HttpResponse


def queue(request: HttpRequest) -> HttpResponse:
    return HttpResponse("")
