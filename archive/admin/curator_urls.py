"""Routes of the curators' own pages inside the admin (source reader, review queue).

Every view is wrapped in `admin.site.admin_view`, so these pages answer only
to active staff, exactly like the admin around them (anyone else is sent to
the admin's login page).
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import path

from . import accounts, audit, mention_views, my_work, reader, reader_page, review

app_name = "archive_curate"

urlpatterns = [
    path("", admin.site.admin_view(reader_page.index), name="index"),
    path("sources/<slug:slug>/read/", admin.site.admin_view(reader_page.reader), name="reader"),
    path("sources/<slug:slug>/mentions/", admin.site.admin_view(mention_views.cite_all), name="cite_all_mentions"),
    path("passages/<int:pk>/cite/", admin.site.admin_view(reader.cite), name="cite"),
    path("passages/<int:pk>/mention/", admin.site.admin_view(mention_views.cite_one), name="cite_mention"),
    path("targets/", admin.site.admin_view(reader.target_search), name="targets"),
    path("new-record/", admin.site.admin_view(reader.new_record_defaults), name="new_record_defaults"),
    path("review/", admin.site.admin_view(review.queue), name="review"),
    path("my-work/", admin.site.admin_view(my_work.my_work), name="my_work"),
    path("events/<slug:slug>/accounts/", admin.site.admin_view(accounts.accounts), name="accounts"),
    path("audit/", admin.site.admin_view(audit.audit), name="audit"),
]
