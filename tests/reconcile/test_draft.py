"""Version 1.0-draft of the specification under /reconcile/1.0/, each answer checked against the draft's schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

pytestmark = pytest.mark.usefixtures("collection")

SCHEMAS = Path(__file__).parent / "spec_schemas" / "1.0-draft"
REGISTRY = Registry().with_resources(
    (document["$id"], Resource.from_contents(document, default_specification=DRAFT7))
    for document in (json.loads(path.read_text(encoding="utf-8")) for path in SCHEMAS.glob("*.json"))
)


def validate(name: str, document: Any) -> None:
    schema = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    Draft7Validator(schema, registry=REGISTRY).validate(document)


def post(client: Client, path: str, body: Any, status: int = 200) -> Any:
    response = client.post(path, json.dumps(body, ensure_ascii=False), content_type="application/json")
    assert response.status_code == status, response.content[:300]
    assert response["Access-Control-Allow-Origin"] == "*"
    return json.loads(response.content)


def test_manifest(client: Client) -> None:
    manifest = json.loads(client.get("/reconcile/1.0/").content)
    validate("manifest", manifest)
    assert manifest["view"]["url"].endswith("/reconcile/view/{id}/")


def test_match(client: Client) -> None:
    batch = {"queries": [
        {"type": "person", "conditions": [{"matchType": "name", "propertyValue": "T'ang Sheng-chih"}]},
        {"type": "location", "limit": 2, "conditions": [{"matchType": "name", "propertyValue": "蕪湖"}]},
        {"type": "person", "conditions": [{"matchType": "name", "propertyValue": "王"}]},
        {"conditions": [{"matchType": "id", "propertyValue": "person:tang-shengzhi"}]},
        {"type": "person", "conditions": [{"matchType": "name", "propertyValue": "唐生智"},
                                          {"matchType": "property", "propertyId": "side", "propertyValue": "japanese",
                                           "required": True}]},
    ]}
    validate("reconciliation-query-batch", batch)
    answer = post(client, "/reconcile/1.0/match", batch)
    validate("reconciliation-result-batch", answer)
    tang, wuhu, wang, by_id, japanese_tang = (result["candidates"] for result in answer["results"])
    assert tang[0]["id"] == "person:tang-shengzhi" and tang[0]["match"] is True
    assert wuhu[0]["id"] == "location:wuhu" and len(wuhu) <= 2
    assert len(wang) >= 2 and not any(candidate["match"] for candidate in wang)
    assert by_id[0]["id"] == "person:tang-shengzhi"
    assert japanese_tang == []  # the required condition fails


def test_extend_and_the_rest(client: Client) -> None:
    query = {"ids": ["person:tang-shengzhi"], "properties": [{"id": "side"}, {"id": "unit"}]}
    validate("data-extension-query", query)
    answer = post(client, "/reconcile/1.0/extend", query)
    validate("data-extension-response", answer)
    row = answer["rows"][0]
    assert row["id"] == "person:tang-shengzhi"
    assert {"id": "side", "values": [{"str": "chinese"}]} in row["properties"]
    found = json.loads(client.get("/reconcile/1.0/suggest/entity", {"prefix": "唐生"}).content)
    validate("suggest-entities-response", found)
    proposal = json.loads(client.get("/reconcile/1.0/extend/propose", {"type": "unit"}).content)
    validate("data-extension-property-proposal", proposal)
    assert client.get("/reconcile/1.0/preview", {"id": "person:tang-shengzhi"}).status_code == 200


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "queries"),
        ({"queries": [{"conditions": []}]}, "queries[0].conditions"),
        ({"queries": [{"conditions": [{"matchType": "colour", "propertyValue": "red"}]}]}, "queries[0].conditions[0]"),
        ({"queries": [{"conditions": [{"matchType": "name", "propertyValue": "唐"}], "type": "ship"}]},
         "queries.0.type"),
    ],
)
def test_bad_batches(client: Client, body: Any, param: str) -> None:
    assert post(client, "/reconcile/1.0/match", body, status=400)["param"] == param


def test_match_wants_a_json_post(client: Client) -> None:
    assert client.get("/reconcile/1.0/match").status_code == 405
    response = client.post("/reconcile/1.0/match", "{oops", content_type="application/json")
    assert response.status_code == 400 and json.loads(response.content)["param"] == "body"
