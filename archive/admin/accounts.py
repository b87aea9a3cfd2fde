"""Accounts side by side (in progress)."""

from django.http import HttpRequest, HttpResponse


def accounts(request: HttpRequest, slug: str) -> HttpResponse:
    return HttpResponse("")
