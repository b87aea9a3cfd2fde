"""Stored answers that data cannot break: the origin mark is never taken from a record's text.

Stored documents mark where the request's origin goes (`archive.api.stored`).
The mark used to be replaced byte for byte in the whole body, so a curator's
text holding its twelve characters, `\\u0000origin`, made the API answer
invalid JSON, and a NUL stored through a spreadsheet on SQLite was served as
the reader's host; documents built for a request under a `SCRIPT_NAME` kept
its prefix for everyone. Here the text is published, a NUL is tried on every
curated model, and every stored kind is read as built and as stored.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models
from django.test import Client
from django.urls import set_script_prefix

from archive.api.caching import HIT_HEADER
from archive.api.stored_answers import STORED
from archive.models import Citation, DocumentVersion, Event, Location, Person, Source, StoredDocument, Unit
from archive.models.text import NO_NUL
from tests.api.world import World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
MARK = "\\u0000origin"  # the twelve characters, as a curator could type them
assert len(MARK) == 12
MOUNTED = "/mounted"


@pytest.fixture(autouse=True)
def _stored_not_cached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


@pytest.fixture
def marked(world: World) -> dict[str, str]:
    """The mark's characters in published text of every kind (written as a bulk write would, then bumped)."""
    texts = {
        "person": f"{MARK}{MARK} 唐 {MARK}\"{MARK}\\{MARK}",
        "unit": f"\"{MARK}",
        "location": MARK,
        "event": f"\\\"{MARK}",
        "source": f"{MARK} Rabe",
        "citation": f"{MARK}, 12日",
    }
    Person.objects.filter(pk=world.tang.pk).update(description=texts["person"])
    Unit.objects.filter(pk=world.div51.pk).update(name=texts["unit"])
    Location.objects.filter(pk=world.gate.pk).update(coordinate_precision=texts["location"])
    Event.objects.filter(pk=world.order.pk).update(description=texts["event"])
    Source.objects.filter(pk=world.history.pk).update(author=texts["source"])
    Citation.objects.filter(pk=world.history_cite.pk).update(claim=texts["citation"])
    DocumentVersion.objects.bump_everything()
    StoredDocument.objects.all().delete()
    return texts


def _paths(world: World) -> list[str]:
    details = [
        f"{BASE}/persons/{world.tang.slug}/", f"{BASE}/units/{world.div51.slug}/",
        f"{BASE}/locations/{world.gate.slug}/", f"{BASE}/events/{world.order.slug}/",
        f"{BASE}/sources/{world.history.slug}/", f"{BASE}/passages/{world.passage(world.history, 1).pk}/",
        f"{BASE}/citations/{world.history_cite.pk}/",
    ]
    lists = [f"{BASE}/{plural}/" for plural in ("sources", "persons", "units", "locations", "events", "citations")]
    return [*details, *lists, f"{BASE}/sources/{world.history.slug}/passages/"]


def _strings(document: Any) -> list[str]:
    if isinstance(document, dict):
        return [text for value in document.values() for text in _strings(value)]
    if isinstance(document, list):
        return [text for value in document for text in _strings(value)]
    return [document] if isinstance(document, str) else []


def _urls(document: Any) -> list[str]:
    """The archive's own URLs in `document` (a source's `url` is the publisher's)."""
    return [text for text in _strings(document) if text.startswith("http://testserver")]


def _read(path: str, script_name: str = "") -> tuple[Any, Any]:
    # As Django's WSGI handler does for a site mounted below SCRIPT_NAME (the test client does not).
    set_script_prefix(script_name + "/")
    try:
        response = Client().get(path, SCRIPT_NAME=script_name)
    finally:
        set_script_prefix("/")
    assert response.status_code == 200, (path, response.content[:300])
    return response, json.loads(response.content.decode())  # strict: invalid JSON raises here


def test_the_marks_characters_in_data_are_served_as_written(world: World, marked: dict[str, str]) -> None:
    for path in _paths(world):
        _built, first = _read(path)
        answered, second = _read(path)
        assert first == second, path
        assert answered.get(HIT_HEADER) == STORED or "/passages/" in path, path
        urls = _urls(second)
        assert urls and all(url.startswith("http://testserver/api/v1/") for url in urls), path
        assert "\x00" not in answered.content.decode()
    person = _read(f"{BASE}/persons/{world.tang.slug}/")[1]
    assert person["description"] == marked["person"]
    assert _read(f"{BASE}/units/{world.div51.slug}/")[1]["name"] == marked["unit"]
    assert _read(f"{BASE}/locations/{world.gate.slug}/")[1]["coordinate_precision"] == marked["location"]
    assert _read(f"{BASE}/events/{world.order.slug}/")[1]["description"] == marked["event"]
    assert _read(f"{BASE}/sources/{world.history.slug}/")[1]["author"] == marked["source"]
    assert _read(f"{BASE}/citations/{world.history_cite.pk}/")[1]["claim"] == marked["citation"]


def test_a_script_prefix_is_the_readers_own_never_stored(world: World, marked: dict[str, str]) -> None:
    paths = _paths(world)
    for path in paths:  # built and stored by a reader below a SCRIPT_NAME
        _response, document = _read(path, MOUNTED)
        assert all(url.startswith(f"http://testserver{MOUNTED}/api/v1/") for url in _urls(document)), path
    for path in paths:
        response, document = _read(path)
        assert all(url.startswith("http://testserver/api/v1/") for url in _urls(document)), path
        assert MOUNTED.encode() not in response.content, path
    assert not StoredDocument.objects.filter(body__contains=MOUNTED).exists()
    for path in paths:  # and a mounted reader of the stored documents sees its own prefix
        _response, document = _read(path, MOUNTED)
        assert all(url.startswith(f"http://testserver{MOUNTED}/api/v1/") for url in _urls(document)), path


def _text_fields(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if isinstance(field, models.CharField | models.TextField)]


def test_every_text_field_of_the_archive_refuses_a_nul() -> None:
    checked = 0
    for model in apps.get_app_config("archive").get_models():
        for field in _text_fields(model):
            assert NO_NUL in field.validators, f"{model.__name__}.{field.name}"
            with pytest.raises(ValidationError):
                field.clean("唐\x00生智", None)
            checked += 1
    assert checked > 20


def test_a_nul_in_a_record_is_refused_by_its_validation(world: World) -> None:
    person = Person.objects.get(pk=world.tang.pk)
    person.description = "a\x00origin"
    with pytest.raises(ValidationError) as refused:
        person.full_clean()
    assert "description" in refused.value.message_dict


def test_only_a_mark_that_opens_a_string_is_filled_with_the_origin() -> None:
    from django.test import RequestFactory
    from rest_framework.renderers import JSONRenderer

    from archive.api import stored

    # A quote and a NUL never reach the archive's text (above); were they there, the mark after the
    # escaped quote is the text's, and is served as it was written.
    document = JSONRenderer().render({"url": f"{stored.ORIGIN}/api/v1/persons/tang/", "text": f'"{stored.ORIGIN}'})
    served = json.loads(stored.single(document.decode(), RequestFactory().get("/api/v1/persons/tang/")))
    assert served == {"url": "http://testserver/api/v1/persons/tang/", "text": f'"{stored.ORIGIN}'}
