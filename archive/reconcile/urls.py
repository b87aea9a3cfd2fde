"""Routes of the reconciliation service, under `/reconcile/`."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "reconcile"

urlpatterns = [
    path("", views.service, name="service"),
    path("suggest/entity/", views.suggest_entity, name="suggest-entity"),
    path("suggest/type/", views.suggest_type, name="suggest-type"),
    path("suggest/property/", views.suggest_property, name="suggest-property"),
    path("suggest/flyout/", views.flyout, name="flyout"),
    path("extend/propose/", views.propose_properties, name="propose"),
    path("types/", views.types, name="types"),
    path("view/<str:ident>/", views.view, name="view"),
    path("preview/<str:ident>/", views.preview, name="preview"),
]
