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
    # Version 1.0-draft: its routes are fixed by the specification, without a trailing slash.
    path("1.0/", views.draft_manifest, name="draft"),
    path("1.0/match", views.draft_match, name="draft-match"),
    path("1.0/suggest/entity", views.suggest_entity, name="draft-suggest-entity"),
    path("1.0/suggest/type", views.suggest_type, name="draft-suggest-type"),
    path("1.0/suggest/property", views.suggest_property, name="draft-suggest-property"),
    path("1.0/preview", views.draft_preview, name="draft-preview"),
    path("1.0/extend", views.draft_extend, name="draft-extend"),
    path("1.0/extend/propose", views.propose_properties, name="draft-propose"),
]
