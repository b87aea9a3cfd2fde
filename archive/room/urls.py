"""Routes of the reading room, mounted at the root of the site."""

from __future__ import annotations

from django.urls import path

from archive.room import views

app_name = "room"

urlpatterns = [
    path("", views.home, name="home"),
    path("timeline/", views.timeline, name="timeline"),
    path("map/", views.map_view, name="map"),
    path("order-of-battle/", views.order_of_battle, name="order_of_battle"),
    path("releases/", views.releases, name="releases"),
    path("people/<str:slug>/", views.person, name="person"),
    path("units/<str:slug>/", views.unit, name="unit"),
    path("places/<str:slug>/", views.place, name="place"),
    path("events/<str:slug>/", views.event, name="event"),
    path("sources/<str:slug>/", views.source, name="source"),
]
