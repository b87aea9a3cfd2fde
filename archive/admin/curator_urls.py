"""Routes of the curators' own pages inside the admin (source reader, review queue).

Every view is wrapped in `admin.site.admin_view`, so these pages answer only
to active staff, exactly like the admin around them (anyone else is sent to
the admin's login page).
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import path

from . import accounts, audit, my_work, reader, review

app_name = "archive_curate"

urlpatterns = [
    path("", admin.site.admin_view(reader.index), name="index"),
    path("sources/<slug:slug>/read/", admin.site.admin_view(reader.reader), name="reader"),
    path("passages/<int:pk>/cite/", admin.site.admin_view(reader.cite), name="cite"),
    path("targets/", admin.site.admin_view(reader.target_search), name="targets"),
    path("review/", admin.site.admin_view(review.queue), name="review"),
    path("my-work/", admin.site.admin_view(my_work.my_work), name="my_work"),
    path("events/<slug:slug>/accounts/", admin.site.admin_view(accounts.accounts), name="accounts"),
    path("audit/", admin.site.admin_view(audit.audit), name="audit"),
]
