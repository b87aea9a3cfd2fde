"""The registry is the one list of curated and cited models: none is left out of it."""

from __future__ import annotations

from django.apps import apps

from archive.models import Citation
from archive.models.curation import Cited, Curated
from archive.models.registry import CITED_MODELS, CURATED_MODELS, TARGET_FIELDS, FictionMode, cited_model
from archive.roles import CURATED_MODELS as CURATED_NAMES


def _concrete(base: type) -> set[type]:
    return {model for model in apps.get_app_config("archive").get_models() if issubclass(model, base)}


def test_every_curated_model_is_listed_once() -> None:
    assert set(CURATED_MODELS) == _concrete(Curated)
    assert len(CURATED_MODELS) == len(set(CURATED_MODELS))


def test_every_cited_model_is_a_citation_target_and_the_reverse() -> None:
    assert set(CITED_MODELS) == _concrete(Cited)
    assert [Citation._meta.get_field(field).related_model for field in TARGET_FIELDS] == list(CITED_MODELS)
    assert all(cited_model(field) is model for field, model in zip(TARGET_FIELDS, CITED_MODELS, strict=True))


def test_what_is_cited_comes_before_the_citations_that_rest_on_it() -> None:
    order = list(CURATED_MODELS)
    assert all(order.index(model) < order.index(Citation) for model in CITED_MODELS)


def test_the_roles_cover_every_curated_model() -> None:
    assert set(CURATED_NAMES) == {model._meta.model_name for model in CURATED_MODELS}


def test_fiction_modes() -> None:
    assert [mode.value for mode in FictionMode] == ["exclude", "include", "only"]
    assert FictionMode.ONLY.nested is FictionMode.INCLUDE
    assert FictionMode.EXCLUDE.nested is FictionMode.EXCLUDE
