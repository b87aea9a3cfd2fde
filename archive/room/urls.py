"""Routes of the reading room, mounted at the root of the site."""

from __future__ import annotations

from django.urls import path

from archive.room import site_files, views
from archive.throttle import ROOM, throttled

app_name = "room"

# Every page of the room is counted per client, at its own rate (archive/throttle.py).
counted = throttled(ROOM)

urlpatterns = [
    path("", counted(views.home), name="home"),
    path("timeline/", counted(views.timeline), name="timeline"),
    path("map/", counted(views.map_view), name="map"),
    path("night/", counted(views.night_view), name="night"),
    path("order-of-battle/", counted(views.order_of_battle), name="order_of_battle"),
    path("people/<str:slug>/", counted(views.person), name="person"),
    path("units/<str:slug>/", counted(views.unit), name="unit"),
    path("places/<str:slug>/", counted(views.place), name="place"),
    path("events/<str:slug>/", counted(views.event), name="event"),
    path("favicon.ico", site_files.favicon, name="favicon"),
    path("robots.txt", site_files.robots, name="robots"),
    path("cite/archive/", counted(views.cite_archive), name="cite_archive"),
    path("cite/<str:kind>/<str:slug>/", counted(views.cite), name="cite"),
    path("search/", counted(views.search_page), name="search"),
    path("releases/", counted(views.releases), name="releases"),
    path("sources/<str:slug>/", counted(views.source), name="source"),
]
