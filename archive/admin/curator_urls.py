"""Routes of the curators' own pages inside the admin (source reader, review queue).

Every view is wrapped in `admin.site.admin_view`, so these pages answer only
to active staff, exactly like the admin around them (anyone else is sent to
the admin's login page). Being staff is not enough: each page shows drafts
and pending changes, so it needs the permissions of what it shows, as the
admin's own pages do (`archive.roles.PAGE_PERMISSIONS`, `may_open`); a staff account
without them gets 403 (Forbidden), as it does from the admin.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import path

from archive import roles

from . import accounts, audit, discussion, mention_views, my_work, reader, reader_page, review

app_name = "archive_curate"


def page(view: Callable[..., HttpResponse], name: str) -> Callable[..., HttpResponse]:
    """`view` for staff who hold what the page `name` needs to show."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not roles.may_open(request.user, name):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return admin.site.admin_view(checked)


urlpatterns = [
    path("", page(reader_page.index, "index"), name="index"),
    path("sources/<slug:slug>/read/", page(reader_page.reader, "reader"), name="reader"),
    path("sources/<slug:slug>/mentions/", page(mention_views.cite_all, "cite_all_mentions"), name="cite_all_mentions"),
    path("sources/<slug:slug>/submit-drafts/", page(mention_views.submit_drafts, "submit_drafts"),
         name="submit_drafts"),
    path("batches/<int:pk>/withdraw/", page(mention_views.withdraw_batch, "withdraw_batch"), name="withdraw_batch"),
    path("passages/<int:pk>/cite/", page(reader.cite, "cite"), name="cite"),
    path("passages/<int:pk>/mention/", page(mention_views.cite_one, "cite_mention"), name="cite_mention"),
    path("targets/", page(reader.target_search, "targets"), name="targets"),
    path("selection-kind/", page(reader.kind_of_selection, "kind_of_selection"), name="kind_of_selection"),
    path("new-record/", page(reader.new_record_defaults, "new_record_defaults"), name="new_record_defaults"),
    path("review/", page(review.queue, "review"), name="review"),
    path("discuss/", page(discussion.discuss, "discuss"), name="discuss"),
    path("my-work/", page(my_work.my_work, "my_work"), name="my_work"),
    path("events/<slug:slug>/accounts/", page(accounts.accounts, "accounts"), name="accounts"),
    path("audit/", page(audit.audit, "audit"), name="audit"),
]
