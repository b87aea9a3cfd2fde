"""The reconciliation service over the shipped collection: the named cases of the issue, every answer
checked against the specification's schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from archive.models import Person, Status
from tests.factories import approved, in_status
from tests.reconcile.conftest import validate

pytestmark = pytest.mark.usefixtures("collection")


def reconcile(client: Client, queries: dict[str, Any], *, method: str = "post", status: int = 200) -> Any:
    payload = {"queries": json.dumps(queries, ensure_ascii=False)}
    response = client.post("/reconcile/", payload) if method == "post" else client.get("/reconcile/", payload)
    assert response.status_code == status, response.content[:500]
    document = json.loads(response.content)
    if status == 200:
        validate("reconciliation-result-batch", document)
    return document


def test_manifest_follows_the_specification(client: Client) -> None:
    response = client.get("/reconcile/")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    manifest = json.loads(response.content)
    validate("manifest", manifest)
    assert "0.2" in manifest["versions"]
    assert {t["id"] for t in manifest["defaultTypes"]} == {"person", "unit", "location", "event"}
    assert "{{id}}" in manifest["view"]["url"] and "{{id}}" in manifest["preview"]["url"]
    assert set(manifest["suggest"]) == {"entity", "type", "property"}
    assert manifest["extend"]["propose_properties"]["service_path"]


@pytest.mark.parametrize("name", ["唐生智", "Tang Shengzhi", "唐司令", "T'ang Sheng-chih", "tang shengzhi", "唐生智 "])
@pytest.mark.parametrize("method", ["get", "post"])
def test_every_form_of_tang_matches_him(client: Client, name: str, method: str) -> None:
    results = reconcile(client, {"q0": {"query": name, "type": "person"}}, method=method)["q0"]["result"]
    assert results[0]["id"] == "person:tang-shengzhi"
    assert results[0]["match"] is True
    assert all(not result["match"] for result in results[1:])


def test_traditional_finds_simplified_place(client: Client) -> None:
    results = reconcile(client, {"q0": {"query": "蕪湖", "type": "location"}})["q0"]["result"]
    assert results[0]["id"] == "location:wuhu" and results[0]["name"] == "芜湖" and results[0]["match"]


def test_a_batch_of_fifty_in_one_request(client: Client, django_assert_max_num_queries: Any) -> None:
    names = [p.name for p in Person.objects.filter(status=Status.APPROVED, fictional=False).order_by("slug")][:50]
    assert len(names) == 50
    batch = {f"q{index}": {"query": name, "type": "person", "limit": 3} for index, name in enumerate(names)}
    # The snapshots are read once, whatever the size of the batch.
    with django_assert_max_num_queries(20):
        answer = reconcile(client, batch)
    assert set(answer) == set(batch)
    for index, name in enumerate(names):
        best = answer[f"q{index}"]["result"][0]
        assert best["name"] == name and best["match"] is True, name


def test_a_surname_two_people_share_is_not_a_match(client: Client) -> None:
    results = reconcile(client, {"q0": {"query": "王", "type": "person"}})["q0"]["result"]
    ids = {result["id"] for result in results}
    assert {"person:wang-jingjiu", "person:wang-yaowu"} <= ids
    assert not any(result["match"] for result in results)


def test_two_namesakes_are_not_a_match(client: Client) -> None:
    tang = Person.objects.get(slug="tang-shengzhi")
    approved(Person(slug="tang-shengzhi-2", name="唐生智"))
    results = reconcile(client, {"q0": {"query": "唐生智", "type": "person"}})["q0"]["result"]
    assert {result["id"] for result in results[:2]} == {"person:tang-shengzhi", "person:tang-shengzhi-2"}
    assert not any(result["match"] for result in results)
    # A property that only one of them has decides it.
    unit = tang.posts.filter(status=Status.APPROVED, unit__status=Status.APPROVED).first()
    assert unit is not None
    query = {"query": "唐生智", "type": "person", "properties": [{"pid": "unit", "v": unit.unit.name}]}
    results = reconcile(client, {"q0": query})["q0"]["result"]
    assert results[0]["id"] == "person:tang-shengzhi" and results[0]["match"] is True
    assert {"id": "unit", "value": True} in results[0]["features"]


def test_unapproved_records_never_appear(client: Client) -> None:
    for status in (Status.DRAFT, Status.IN_REVIEW, Status.REJECTED):
        in_status(Person(slug=f"planted-{status}", name="黎明光"), status)
    for fiction in ("exclude", "include", "only"):
        query = {"query": "黎明光", "properties": [{"pid": "fiction", "v": fiction}]}
        assert reconcile(client, {"q0": query})["q0"]["result"] == []


def test_fiction_only_when_asked(client: Client) -> None:
    fictional = Person.objects.filter(status=Status.APPROVED, fictional=True).first()
    assert fictional is not None, "the shipped collection has a fictional person"
    wanted = f"person:{fictional.slug}"

    def ids(properties: list[dict[str, Any]]) -> set[str]:
        query = {"query": fictional.name, "type": "person", "properties": properties}
        return {result["id"] for result in reconcile(client, {"q0": query})["q0"]["result"]}

    assert wanted not in ids([])
    assert wanted not in ids([{"pid": "fiction", "v": "exclude"}])
    assert wanted in ids([{"pid": "fiction", "v": "include"}])
    assert wanted in ids([{"pid": "fiction", "v": True}])
    only = ids([{"pid": "fiction", "v": "only"}])
    assert wanted in only
    assert not any(Person.objects.get(slug=ident.split(":", 1)[1]).fictional is False for ident in only)


def test_properties_that_agree_keep_the_score_and_others_lower_it(client: Client) -> None:
    def best(properties: list[dict[str, Any]]) -> dict[str, Any]:
        query = {"query": "唐生智", "type": "person", "properties": properties}
        return reconcile(client, {"q0": query})["q0"]["result"][0]

    plain = best([])["score"]
    agreeing = [{"pid": "date", "v": "1937-12-12"}, {"pid": "place", "v": "南京"}, {"pid": "side", "v": "chinese"}]
    assert best(agreeing)["score"] == plain
    assert best(agreeing)["match"] is True
    for wrong in ({"pid": "date", "v": "1850"}, {"pid": "side", "v": "japanese"}, {"pid": "place", "v": "东京"}):
        result = best([wrong])
        assert result["score"] < plain and result["match"] is False, wrong
        assert {"id": wrong["pid"], "value": False} in result["features"] or wrong["pid"] == "place"


def test_a_place_by_its_parent(client: Client) -> None:
    from archive.models import Location

    child = Location.objects.filter(status=Status.APPROVED, parent__status=Status.APPROVED, fictional=False).first()
    assert child is not None and child.parent is not None
    query = {"query": child.name, "type": "location", "properties": [{"pid": "parent", "v": child.parent.name}]}
    result = reconcile(client, {"q0": query})["q0"]["result"][0]
    assert result["id"] == f"location:{child.slug}"
    assert {"id": "parent", "value": True} in result["features"]
    reconciled = {"pid": "parent", "v": {"id": f"location:{child.parent.slug}", "name": "?"}}
    result = reconcile(client, {"q0": {**query, "properties": [reconciled]}})["q0"]["result"][0]
    assert {"id": "parent", "value": True} in result["features"]


def test_limit_and_types(client: Client) -> None:
    results = reconcile(client, {"q0": {"query": "江", "limit": 2}})["q0"]["result"]
    assert len(results) == 2
    results = reconcile(client, {"q0": {"query": "南京", "type": ["location"]}})["q0"]["result"]
    assert results and all(result["type"][0]["id"] == "location" for result in results)


@pytest.mark.parametrize(
    ("payload", "param"),
    [
        ({"queries": "{not json"}, "queries"),
        ({"queries": "[1, 2]"}, "queries"),
        ({"queries": json.dumps({"q0": {"query": ""}})}, "queries.q0.query"),
        ({"queries": json.dumps({"q0": {"query": "唐", "type": "ship"}})}, "queries.q0.type"),
        ({"queries": json.dumps({"q0": {"query": "唐", "limit": 0}})}, "queries.q0.limit"),
        ({"queries": json.dumps({"q0": {"query": "唐", "limit": "many"}})}, "queries.q0.limit"),
        ({"queries": '{"q0": {"query": "唐", "limit": Infinity}}'}, "queries.q0.limit"),
        ({"queries": "[" * 100000 + "]" * 100000}, "queries"),
        ({"queries": json.dumps({"q0": {"query": "唐", "properties": [{"pid": "colour", "v": "red"}]}})},
         "queries.q0.properties[0]"),
        ({"queries": json.dumps({"q0": {"query": "唐", "properties": [{"pid": "fiction", "v": "maybe"}]}})},
         "queries.q0.properties[0]"),
        ({"queries": json.dumps({"q0": {"query": "唐" * 101}})}, "queries.q0.query"),
        ({"extend": "{}"}, "extend.ids"),
        ({"extend": json.dumps({"ids": ["person:tang-shengzhi"], "properties": [{"id": "colour"}]})},
         "extend.properties"),
        ({"queries": "唐\x00"}, "queries"),
    ],
)
def test_bad_requests_name_what_is_wrong(client: Client, payload: dict[str, str], param: str) -> None:
    for response in (client.post("/reconcile/", payload), client.get("/reconcile/", payload)):
        assert response.status_code == 400, response.content
        document = json.loads(response.content)
        assert document["param"] == param and document["status"] == 400 and document["error"]
        assert response["Access-Control-Allow-Origin"] == "*"


def test_a_batch_too_large_is_refused(client: Client) -> None:
    batch = {f"q{index}": {"query": "唐"} for index in range(501)}
    response = client.post("/reconcile/", {"queries": json.dumps(batch)})
    assert response.status_code == 413 and json.loads(response.content)["param"] == "queries"


def test_cors_preflight(client: Client) -> None:
    response = client.options("/reconcile/", HTTP_ORIGIN="https://example.org",
                              HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert client.put("/reconcile/").status_code == 405
