"""The shipped collection, loaded once per module and rolled back, and the schemas of the specification."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from tests.shipped import collection_loaded

SCHEMAS = Path(__file__).parent / "spec_schemas" / "0.2"


@pytest.fixture(scope="module")
def _collection(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    from archive.search import snapshot

    with django_db_blocker.unblock(), collection_loaded():
        snapshot.clear()
        yield
    snapshot.clear()


@pytest.fixture
def collection(_collection: None, db: Any) -> None:
    return None


def _registry() -> Registry:
    resources = []
    for path in SCHEMAS.glob("*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        resources.append((document["$id"], Resource.from_contents(document, default_specification=DRAFT7)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validate(name: str, document: Any) -> None:
    """Raise if `document` does not follow the specification's schema `name` (e.g. `manifest`)."""
    schema = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    Draft7Validator(schema, registry=REGISTRY).validate(document)
