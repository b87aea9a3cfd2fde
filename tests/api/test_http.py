"""HTTP behaviour: read-only methods, conditional GET, throttling, CORS, 400s that name the parameter."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.throttling import AnonRateThrottle

from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
LISTS = ["sources/", "persons/", "units/", "locations/", "events/", "citations/", "sources/history/passages/"]


def _details(world: World) -> list[str]:
    return ["sources/history/", "persons/tang-shengzhi/", "units/army-74/", "locations/nanjing/",
            "events/retreat-order/", f"citations/{world.history_cite.pk}/",
            f"passages/{world.history_cite.passage_id}/"]


def test_only_get_head_and_options(world: World, api: ApiClient) -> None:
    for path in [*LISTS, *_details(world)]:
        url = f"{BASE}/{path}"
        assert api.get(url).status_code == 200
        head = api.head(url)
        assert head.status_code == 200
        assert head.content == b""
        assert api.options(url).status_code == 200
        for method in ("post", "put", "patch", "delete"):
            assert getattr(api, method)(url, {}, content_type="application/json").status_code == 405, (method, url)


def test_etag_and_last_modified_give_304(world: World, api: ApiClient) -> None:
    for path in [*LISTS, *_details(world)]:
        url = f"{BASE}/{path}"
        first = api.get(url)
        etag, modified = first["ETag"], first["Last-Modified"]
        assert etag.startswith('"') and modified.endswith("GMT")
        assert "Accept" in first["Vary"]
        assert api.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
        assert api.get(url, HTTP_IF_MODIFIED_SINCE=modified).status_code == 304
        assert api.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200
        assert api.get(url, HTTP_IF_MODIFIED_SINCE="Mon, 01 Jan 1990 00:00:00 GMT").status_code == 200


def test_etag_follows_the_format_and_the_data(world: World, api: ApiClient) -> None:
    url = f"{BASE}/locations/"
    plain = api.get(url)["ETag"]
    assert api.get(url, {"format": "geojson"})["ETag"] != plain
    from tests.factories import publish_change

    publish_change(world.gate, name="挹江門")
    changed = api.get(url, HTTP_IF_NONE_MATCH=plain)
    assert changed.status_code == 200
    assert changed["ETag"] != plain


def test_anonymous_throttling_answers_429_with_retry_after(world: World, api: ApiClient, monkeypatch: Any) -> None:
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    statuses = [api.get(f"{BASE}/persons/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = api.get(f"{BASE}/events/")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "detail" in refused.json()


def test_cors_allows_reading_from_any_origin(world: World, api: ApiClient) -> None:
    response = api.get(f"{BASE}/events/", HTTP_ORIGIN="https://maps.example.org")
    assert response["Access-Control-Allow-Origin"] == "*"
    preflight = api.options(f"{BASE}/events/", HTTP_ORIGIN="https://maps.example.org",
                            HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 200
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "POST" not in preflight["Access-Control-Allow-Methods"]


@pytest.mark.parametrize(("path", "params", "parameter"), [
    ("events/", {"after": "yesterday"}, "after"),
    ("events/", {"before": "1937-13-45"}, "before"),
    ("events/", {"after": "1937-12-12T25:00"}, "after"),
    ("events/", {"person": "nobody"}, "person"),
    ("events/", {"unit": "no-such-unit"}, "unit"),
    ("events/", {"location": "atlantis"}, "location"),
    ("events/", {"source": "no-such-source"}, "source"),
    ("events/", {"kind": "picnic"}, "kind"),
    ("persons/", {"page_size": "100000"}, "page_size"),
    ("persons/", {"page_size": "201"}, "page_size"),
    ("persons/", {"page_size": "0"}, "page_size"),
    ("persons/", {"page_size": "ten"}, "page_size"),
    ("units/", {"page": "abc"}, "page"),
    ("units/", {"page": "-1"}, "page"),
    ("locations/", {"fiction": "maybe"}, "fiction"),
    ("persons/tang-shengzhi/", {"fiction": "perhaps"}, "fiction"),
    ("sources/history/passages/", {"fiction": "x"}, "fiction"),
    ("citations/", {"source": "nope"}, "source"),
    ("citations/", {"rank": "best"}, "rank"),
    ("events/", {"person": "tang\x00"}, "person"),
    ("persons/", {"fiction": "\x00"}, "fiction"),
])
def test_bad_parameters_are_400_naming_the_parameter(world: World, api: ApiClient, path: str,
                                                     params: dict[str, str], parameter: str) -> None:
    response = api.get(f"{BASE}/{path}", params)
    assert response.status_code == 400, response.content
    body = response.json()
    assert parameter in body
    assert isinstance(body[parameter], list) and body[parameter][0]


def test_page_size_200_is_allowed_and_a_page_past_the_end_is_404(world: World, api: ApiClient) -> None:
    assert api.get(f"{BASE}/persons/", {"page_size": "200"}).status_code == 200
    assert api.get(f"{BASE}/persons/", {"page": "last"}).status_code == 200
    assert api.get(f"{BASE}/persons/", {"page": "99"}).status_code == 404


@pytest.mark.parametrize("path", [
    "persons/nobody/", "units/nothing/", "locations/atlantis/", "events/never/", "sources/none/",
    "sources/none/passages/", "citations/999999/", "passages/999999/", "citations/abc/", "passages/abc/",
    "persons/%E5%94%90/", "persons/a%00b/", "passages/%00/", "citations/%C2%84/", "passages/99999999999999999999999/",
])
def test_unknown_records_are_404(world: World, api: ApiClient, path: str) -> None:
    response = api.get(f"{BASE}/{path}")
    assert response.status_code == 404


def test_api_root_lists_the_endpoints(world: World, api: ApiClient) -> None:
    root = api.json(f"{BASE}/")
    assert {"sources", "persons", "units", "locations", "events", "citations"} <= set(root)
