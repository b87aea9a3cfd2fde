"""`/api/v1/search/`: pagination, absolute URLs, 400s for bad parameters, the schema."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from archive import search
from archive.models import Person
from tests.factories import approved

from .conftest import World

pytestmark = pytest.mark.urls("tests.search.urls")
URL = "/api/v1/search/"


@pytest.fixture
def client() -> APIClient:
    return APIClient()


def test_results_are_paginated_hits_with_absolute_urls(world: World, client: APIClient) -> None:
    response = client.get(URL, {"q": "唐生智", "page_size": 1})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "count_exact", "next", "previous", "results"}
    assert body["count"] == len(search.search("唐生智")) == 3  # the person and two passages
    assert body["count_exact"] is True
    assert body["previous"] is None and "page=2" in body["next"]
    [first] = body["results"]
    assert first == {
        "type": "person", "id": world.tang.pk, "slug": "tang-shengzhi", "title": "唐生智",
        "url": "http://testserver/api/v1/persons/tang-shengzhi/", "matched": "name",
        "snippet": "<mark>唐生智</mark>", "start": None, "end": None, "score": 0, "fictional": False,
    }


def test_pages_cover_records_then_passages(world: World, client: APIClient) -> None:
    expected = [(hit.type, hit.id) for hit in search.search("撤退")]
    seen = []
    for page in (1, 2, 3):
        body = client.get(URL, {"q": "撤退", "page_size": 2, "page": page}).json()
        seen += [(hit["type"], hit["id"]) for hit in body["results"]]
    assert seen == expected
    passage = next(hit for hit in client.get(URL, {"q": "撤退", "page_size": 200}).json()["results"]
                   if hit["type"] == "passage")
    assert passage["url"] == f"http://testserver/api/v1/passages/{passage['id']}/"
    assert passage["slug"] is None and passage["start"] is not None


def test_fiction_and_type_parameters(world: World, client: APIClient) -> None:
    excluded = client.get(URL, {"q": "孙百里"}).json()
    assert excluded["count"] == 0
    only = client.get(URL, {"q": "孙百里", "fiction": "only", "type": "person"}).json()
    assert [(hit["slug"], hit["fictional"]) for hit in only["results"]] == [("sun-baili", True)]
    both = client.get(URL, {"q": "南京", "type": "location,event"}).json()
    assert {hit["type"] for hit in both["results"]} == {"location", "event"}
    repeated = client.get(f"{URL}?q=南京&type=location&type=event").json()
    assert repeated == both


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({}, "q"),
        ({"q": ""}, "q"),
        ({"q": "  "}, "q"),
        ({"q": "江" * 101}, "q"),
        ({"q": "南京", "fiction": "all"}, "fiction"),
        ({"q": "南京", "type": "ship"}, "type"),
        ({"q": "南京", "type": "person,ship"}, "type"),
    ],
)
def test_bad_parameters_are_400_naming_the_parameter(world: World, client: APIClient, params: dict,
                                                     param: str) -> None:
    response = client.get(URL, params)
    assert response.status_code == 400
    assert list(response.json()) == [param]


def test_page_size_is_at_most_200(world: World, client: APIClient) -> None:
    for index in range(3):
        approved(Person(slug=f"li-{index}", name=f"李{index}"))
    response = client.get(URL, {"q": "李", "page_size": 200})
    assert response.status_code == 200
    assert response.json()["count"] == 3
    too_big = client.get(URL, {"q": "李", "page_size": 201})
    assert too_big.status_code == 400
    assert list(too_big.json()) == ["page_size"]


def test_only_get_is_allowed(world: World, client: APIClient) -> None:
    assert client.post(URL, {"q": "南京"}).status_code == 405


def test_unusable_database_is_a_503_not_a_500(world: World, client: APIClient, monkeypatch: Any) -> None:
    def refuse(alias: str = "default") -> None:
        raise search.SearchBackendError("The database uses the encoding SQL_ASCII; Chinese text needs UTF8.")

    monkeypatch.setattr(search.index, "ensure_usable", refuse)
    response = client.get(URL, {"q": "南京"})
    assert response.status_code == 503
    assert "UTF8" in response.json()["detail"]


def test_query_count_does_not_grow_with_the_hits(world: World, client: APIClient,
                                                 django_assert_num_queries: Any) -> None:
    from tests.factories import source_with_text

    def queries(*, warm: bool) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from archive.search import snapshot

        if warm:  # the records' snapshot is current: what most requests find
            client.get(URL, {"q": "撤退", "page_size": 50})
        else:
            snapshot.clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(URL, {"q": "撤退", "page_size": 50}).status_code == 200
        return len(captured)

    approved(Person(slug="che", name="撤退者"))  # so that the first count includes person hits
    before = queries(warm=True), queries(warm=False)
    source = source_with_text("\n".join(f"第{i}次撤退。" for i in range(20)), slug="many")
    search.reindex([source])
    for index in range(20):
        approved(Person(slug=f"che-{index}", name=f"撤退者{index}"))
    assert client.get(URL, {"q": "撤退", "page_size": 50}).json()["count"] > 40
    assert (queries(warm=True), queries(warm=False)) == before


def test_schema_documents_the_parameters_and_the_paginated_response(db: object) -> None:
    from drf_spectacular.generators import SchemaGenerator

    from tests.search.urls import urlpatterns

    schema = SchemaGenerator(patterns=urlpatterns).get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/search/"]["get"]
    parameters = {parameter["name"]: parameter for parameter in operation["parameters"]}
    assert {"q", "fiction", "type", "page", "page_size"} <= set(parameters)
    assert parameters["q"]["required"] is True
    assert parameters["fiction"]["schema"]["enum"] == ["exclude", "include", "only"]
    response = operation["responses"]["200"]["content"]["application/json"]["schema"]
    paginated = schema["components"]["schemas"][response["$ref"].rsplit("/", 1)[1]]
    assert {"count", "next", "previous", "results"} <= set(paginated["properties"])
