"""The admin's "make a release" button posts here (routed beside the admin in `config.urls`).

Kept out of `archive.admin`, which may not reach the API's format builders a
release is made with; the page it answers to is the admin's release list.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _

from archive.services.releases import can_make_release

from .releases import ReleaseError, make_release


def make_release_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    listing = reverse("admin:archive_release_changelist")
    if not can_make_release(request.user):
        messages.error(request, _("Only a reviewer makes a release."))
        return HttpResponseRedirect(listing)
    try:
        release = make_release(by=request.user.get_username(), base_url=request.build_absolute_uri("/"),
                               note=request.POST.get("note", "")[:500])
    except ReleaseError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Release %(number)s was made.") % {"number": release.number})
    return HttpResponseRedirect(listing)
