"""The schemas of the reconciliation specification (the shipped collection is `collection`, tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

SCHEMAS = Path(__file__).parent / "spec_schemas" / "0.2"


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
