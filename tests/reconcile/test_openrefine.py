"""The service driven as OpenRefine's reconciliation client drives it, each answer checked against the
specification's schemas.

OpenRefine (StandardReconConfig, ReconciledDataExtensionJob) reads the manifest,
posts batches as the form field `queries` with keys q0, q1 … (a query carries
`type_strict: "should"` when a type is chosen, `limit` only when set, and a
property's `v` is the cell's text, number, or `{id, name}` once that column
is reconciled), fetches property proposals with `?type=&limit=`, posts data
extension as the form field `extend`, and calls the suggest services with
`prefix` at the URLs the manifest gives (`service_url` + `service_path`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

from archive.models import Location, Person, Status
from tests.reconcile.conftest import validate

pytestmark = pytest.mark.usefixtures("collection")


def get(client: Client, url: str, **params: Any) -> Any:
    parts = urlsplit(url)
    response = client.get(parts.path + (f"?{parts.query}" if parts.query else ""), params)
    assert response.status_code == 200, (url, params, response.content[:300])
    assert response["Access-Control-Allow-Origin"] == "*"
    return json.loads(response.content)


def post(client: Client, url: str, field: str, value: Any) -> Any:
    response = client.post(urlsplit(url).path, {field: json.dumps(value, ensure_ascii=False)})
    assert response.status_code == 200, (field, value, response.content[:300])
    assert response["Access-Control-Allow-Origin"] == "*"
    return json.loads(response.content)


@pytest.fixture
def manifest(client: Client) -> dict[str, Any]:
    document = get(client, "http://testserver/reconcile/")
    validate("manifest", document)
    return document


def test_reconcile_a_column_then_extend_it(client: Client, manifest: dict[str, Any]) -> None:
    service = "http://testserver/reconcile/"
    column = ["唐生智", "Tang Shengzhi", "唐司令", "T'ang Sheng-chih", "宋希濂", "王"]
    queries = {f"q{i}": {"query": text, "type": "person", "type_strict": "should"} for i, text in enumerate(column)}
    queries["q1"]["limit"] = 3
    answer = post(client, service, "queries", queries)
    validate("reconciliation-result-batch", answer)
    matched = [answer[f"q{i}"]["result"][0] if answer[f"q{i}"]["result"] else None for i in range(len(column))]
    assert [m["id"] for m in matched[:4] if m] == ["person:tang-shengzhi"] * 4
    assert all(m is not None and m["match"] for m in matched[:5])
    assert not any(result["match"] for result in answer["q5"]["result"])
    assert len(answer["q1"]["result"]) <= 3

    # A second column, reconciled against the first: the value is {id, name}.
    place = Location.objects.filter(status=Status.APPROVED, fictional=False, parent__isnull=False).first()
    assert place is not None and place.parent is not None
    parent = {"id": f"location:{place.parent.slug}", "name": place.parent.name}
    query = {"query": place.name, "type": "location", "type_strict": "should",
             "properties": [{"pid": "parent", "v": parent}]}
    answer = post(client, service, "queries", {"q0": query})
    validate("reconciliation-result-batch", answer)
    assert answer["q0"]["result"][0]["id"] == f"location:{place.slug}"

    # Data extension of the matched ids, with the properties the service proposes.
    propose = manifest["extend"]["propose_properties"]
    proposal = get(client, propose["service_url"] + propose["service_path"], type="person", limit="10")
    validate("data-extension-property-proposal", proposal)
    pids = [prop["id"] for prop in proposal["properties"]]
    assert {"birth", "death", "side", "unit"} <= set(pids)
    extension = post(client, service, "extend", {"ids": ["person:tang-shengzhi", "person:nobody"],
                                                 "properties": [{"id": pid} for pid in pids]})
    validate("data-extension-response", extension)
    tang = extension["rows"]["person:tang-shengzhi"]
    assert tang["birth"] == [{"str": Person.objects.get(slug="tang-shengzhi").birth}]
    assert tang["side"] == [{"str": "chinese"}]
    assert tang["unit"] and all(cell["id"].startswith("unit:") for cell in tang["unit"])
    assert extension["rows"]["person:nobody"] == {pid: [] for pid in pids}


def test_extend_places_and_events(client: Client) -> None:
    place = Location.objects.filter(status=Status.APPROVED, fictional=False, latitude__isnull=False,
                                    parent__isnull=False).first()
    assert place is not None
    extension = post(client, "http://testserver/reconcile/", "extend", {
        "ids": [f"location:{place.slug}"],
        "properties": [{"id": "latitude"}, {"id": "longitude"}, {"id": "parent"}, {"id": "coordinates"}],
    })
    validate("data-extension-response", extension)
    row = extension["rows"][f"location:{place.slug}"]
    api = json.loads(client.get(f"/api/v1/locations/{place.slug}/").content)
    assert row["latitude"] == [{"float": api["latitude"]}] and row["longitude"] == [{"float": api["longitude"]}]
    assert row["parent"] == [{"id": f"location:{api['parent']['slug']}", "name": api["parent"]["name"]}]

    event = json.loads(client.get("/api/v1/events/", {"page_size": 1}).content)["results"][0]
    extension = post(client, "http://testserver/reconcile/", "extend", {
        "ids": [f"event:{event['slug']}"],
        "properties": [{"id": "date"}, {"id": "earliest"}, {"id": "latest"}, {"id": "place"}],
    })
    validate("data-extension-response", extension)
    row = extension["rows"][f"event:{event['slug']}"]
    assert row["date"] == ([{"str": event["date"]}] if event["date"] else [])
    assert [cell["id"] for cell in row["place"]] == [f"location:{ref['slug']}" for ref in event["locations"]]


def test_suggest_services(client: Client, manifest: dict[str, Any]) -> None:
    suggest = manifest["suggest"]
    entity = suggest["entity"]
    found = get(client, entity["service_url"] + entity["service_path"], prefix="唐生")
    validate("suggest-entities-response", found)
    assert found["result"][0]["id"] == "person:tang-shengzhi"
    found = get(client, entity["service_url"] + entity["service_path"], prefix="wuhu", type="location")
    assert [item["id"] for item in found["result"]] == ["location:wuhu"]
    types = get(client, suggest["type"]["service_url"] + suggest["type"]["service_path"], prefix="per")
    validate("suggest-types-response", types)
    assert [item["id"] for item in types["result"]] == ["person"]
    properties = get(client, suggest["property"]["service_url"] + suggest["property"]["service_path"],
                     prefix="par", type="location")
    validate("suggest-properties-response", properties)
    assert [item["id"] for item in properties["result"]] == ["parent"]
    flyout = get(client, entity["service_url"] + entity["flyout_service_path"].replace("${id}", "person:tang-shengzhi"))
    assert flyout["id"] == "person:tang-shengzhi" and "唐生智" in flyout["html"]


def test_view_and_preview(client: Client, manifest: dict[str, Any]) -> None:
    view = client.get(urlsplit(manifest["view"]["url"].replace("{{id}}", "person:tang-shengzhi")).path)
    assert view.status_code == 302 and view["Location"].endswith("/api/v1/persons/tang-shengzhi/")
    preview = client.get(urlsplit(manifest["preview"]["url"].replace("{{id}}", "unit:" + _a_unit())).path)
    assert preview.status_code == 200 and b"<h1>" in preview.content
    for path in ("/reconcile/preview/person:nobody/", "/reconcile/view/ship:x/", "/reconcile/suggest/flyout/?id=x"):
        response = client.get(path)
        assert response.status_code == 404 and json.loads(response.content)["param"] == "id"


def _a_unit() -> str:
    from archive.models import Unit

    unit = Unit.objects.filter(status=Status.APPROVED).first()
    assert unit is not None
    return unit.slug


@pytest.mark.parametrize(
    ("path", "params", "param"),
    [
        ("/reconcile/suggest/entity/", {}, "prefix"),
        ("/reconcile/suggest/entity/", {"prefix": "唐", "type": "ship"}, "type"),
        ("/reconcile/suggest/entity/", {"prefix": "唐", "cursor": "-1"}, "cursor"),
        ("/reconcile/suggest/entity/", {"prefix": "唐", "fiction": "maybe"}, "fiction"),
        ("/reconcile/suggest/type/", {"prefix": " "}, "prefix"),
        ("/reconcile/suggest/property/", {"prefix": "p", "type": "ship"}, "type"),
        ("/reconcile/extend/propose/", {"type": "ship"}, "type"),
        ("/reconcile/extend/propose/", {"type": "person", "limit": "x"}, "limit"),
        ("/reconcile/", {"query": "{bad"}, "query"),
    ],
)
def test_bad_parameters_of_the_other_services(client: Client, path: str, params: dict[str, str], param: str) -> None:
    response = client.get(path, params)
    assert response.status_code == 400, response.content
    assert json.loads(response.content)["param"] == param


def test_a_single_query_of_the_first_version(client: Client) -> None:
    for value in ("唐生智", json.dumps({"query": "唐生智", "type": "person"})):
        answer = get(client, "http://testserver/reconcile/", query=value)
        validate("reconciliation-result-batch", {"q": answer})
        assert answer["result"][0]["id"] == "person:tang-shengzhi"


def test_the_service_is_in_the_openapi_schema(client: Client) -> None:
    schema = json.loads(client.get("/api/schema/", {"format": "json"}).content)
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/reconcile/"])
    for path in ("/reconcile/suggest/entity/", "/reconcile/suggest/type/", "/reconcile/suggest/property/",
                 "/reconcile/extend/propose/", "/reconcile/preview/{ident}/", "/reconcile/view/{ident}/"):
        assert "get" in paths[path], path
    assert "jsonld" in json.dumps(paths["/api/v1/persons/{slug}/"])
    assert "tei" in json.dumps(paths["/api/v1/sources/{slug}/"])
