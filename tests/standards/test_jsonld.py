"""JSON-LD of every record type: each document expands with pyld, offline, through the context the app serves."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from pyld import jsonld

from archive.models import Citation, Person, Status

pytestmark = pytest.mark.usefixtures("collection")

SCHEMA = "https://schema.org/"
OA = "http://www.w3.org/ns/oa#"


class Offline:
    """A pyld document loader that reads the app's own URLs through the test client and refuses every other."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.loaded: list[str] = []

    def __call__(self, url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
        parts = urlsplit(url)
        if parts.netloc != "testserver":
            raise AssertionError(f"pyld tried to fetch {url}")
        response = self.client.get(parts.path)
        assert response.status_code == 200, url
        self.loaded.append(url)
        return {"contextUrl": None, "documentUrl": url, "document": json.loads(response.content)}


def fetch(client: Client, path: str, **params: Any) -> Any:
    response = client.get(path, {"format": "jsonld", **params})
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("application/ld+json")
    return json.loads(response.content)


def expand(client: Client, document: Any) -> list[dict[str, Any]]:
    loader = Offline(client)
    expanded = jsonld.expand(document, {"documentLoader": loader})
    assert loader.loaded == [document["@context"]]
    return expanded


def defined_terms(client: Client) -> set[str]:
    return set(json.loads(client.get("/api/v1/context.jsonld").content)["@context"])


def nodes_of(expanded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(expanded) == 1 and "@graph" in expanded[0]:
        return expanded[0]["@graph"]
    return expanded


@pytest.mark.parametrize(
    ("collection_path", "schema_type"),
    [("persons", "Person"), ("units", "Organization"), ("locations", "Place"), ("events", "Event")],
)
def test_every_record_expands_in_schema_org(client: Client, collection_path: str, schema_type: str) -> None:
    terms = defined_terms(client)
    page = fetch(client, f"/api/v1/{collection_path}/", page_size=200)
    assert page["@graph"]
    for document in page["@graph"]:
        # A key the context does not define would vanish on expansion.
        assert set(document) <= terms, set(document) - terms
    nodes = nodes_of(expand(client, page))
    assert len(nodes) == len(page["@graph"])
    for node in nodes:
        assert node["@type"] == [SCHEMA + schema_type]
        assert node[SCHEMA + "name"][0]["@value"]
        assert node["@id"].startswith("http://testserver/api/v1/")

    one = page["@graph"][0]
    detail = fetch(client, urlsplit(one["id"]).path)
    assert expand(client, detail)[0]["@id"] == one["id"]


def test_a_person_in_detail(client: Client) -> None:
    api = json.loads(client.get("/api/v1/persons/tang-shengzhi/").content)
    document = fetch(client, "/api/v1/persons/tang-shengzhi/")
    node = expand(client, document)[0]
    assert node[SCHEMA + "birthDate"][0]["@value"] == api["birth"]
    names = {value["@value"] for value in node[SCHEMA + "alternateName"]}
    assert {"Tang Shengzhi", "唐司令"} <= names
    units = {value["@id"] for value in node[SCHEMA + "memberOf"]}
    assert units == {post["unit"]["url"] for post in api["posts"]}
    assert {value["@id"] for value in node[SCHEMA + "citation"]} == {c["url"] for c in api["citations"]}


def test_fiction_follows_the_api(client: Client) -> None:
    fictional = Person.objects.filter(status=Status.APPROVED, fictional=True).first()
    assert fictional is not None
    listed = {doc["id"] for doc in fetch(client, "/api/v1/persons/", page_size=200)["@graph"]}
    assert not any(ident.endswith(f"/{fictional.slug}/") for ident in listed)
    listed = {doc["id"] for doc in fetch(client, "/api/v1/persons/", page_size=200, fiction="include")["@graph"]}
    assert any(ident.endswith(f"/{fictional.slug}/") for ident in listed)
    # A historical person's citations from fiction are left out by default, as in the JSON.
    tang = fetch(client, "/api/v1/persons/tang-shengzhi/")
    fiction_citations = Citation.objects.filter(person__slug="tang-shengzhi", passage__source__is_fiction=True)
    assert fiction_citations.exists()
    shown = set(tang.get("citation", []))
    assert not any(ident.rstrip("/").endswith(f"/{c.pk}") for c in fiction_citations for ident in shown)


def test_citations_are_web_annotations(client: Client) -> None:
    page = fetch(client, "/api/v1/citations/", page_size=50)
    nodes = nodes_of(expand(client, page))
    assert len(nodes) == len(page["@graph"]) > 0
    for node, document in zip(nodes, page["@graph"], strict=True):
        assert node["@type"] == [OA + "Annotation"]
        assert node[OA + "motivatedBy"] == [{"@id": OA + "describing"}]
        target = node[OA + "hasTarget"][0]
        selectors = {selector["@type"][0]: selector for selector in target[OA + "hasSelector"]}
        quote = selectors[OA + "TextQuoteSelector"][OA + "exact"][0]["@value"]
        citation = Citation.objects.get(pk=int(document["id"].rstrip("/").rsplit("/", 1)[1]))
        assert quote == citation.quote
        position = selectors[OA + "TextPositionSelector"]
        assert int(position[OA + "start"][0]["@value"]) == citation.start
    detail = fetch(client, urlsplit(page["@graph"][0]["id"]).path)
    assert expand(client, detail)[0]["@type"] == [OA + "Annotation"]


def test_jsonld_lists_keep_their_query_count(client: Client, django_assert_max_num_queries: Any) -> None:
    with django_assert_max_num_queries(25):
        fetch(client, "/api/v1/events/", page_size=200)
