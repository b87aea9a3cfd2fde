"""The OpenAPI schema describes what the server does, and the docs are served offline.

Besides reading the schema, schemathesis generates requests from it for
every operation (a few examples each, no deadline) and checks the answers:
no 5xx, documented status codes and content types, bodies that conform.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

OPERATIONS = {
    "/api/v1/sources/": ["csl", "json"],
    "/api/v1/sources/{slug}/": ["csl", "json", "tei"],
    "/api/v1/sources/{slug}/passages/": ["json"],
    "/api/v1/passages/{id}/": ["json"],
    "/api/v1/persons/": ["csv", "json", "jsonld"],
    "/api/v1/persons/{slug}/": ["json", "jsonld"],
    "/api/v1/units/": ["csv", "json", "jsonld"],
    "/api/v1/units/{slug}/": ["json", "jsonld"],
    "/api/v1/locations/": ["csv", "geojson", "json", "jsonld", "lpf"],
    "/api/v1/locations/{slug}/": ["geojson", "json", "jsonld", "lpf"],
    "/api/v1/events/": ["csv", "json", "jsonld"],
    "/api/v1/events/{slug}/": ["json", "jsonld"],
    "/api/v1/citations/": ["annotation", "json", "jsonld"],
    "/api/v1/citations/{id}/": ["annotation", "json", "jsonld"],
}


@pytest.fixture
def openapi(api: ApiClient) -> dict[str, Any]:
    return api.json("/api/schema/", format="json")


def _parameters(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {parameter["name"]: parameter for parameter in operation.get("parameters", [])}


def test_schema_describes_every_endpoint_read_only(world: World, openapi: dict[str, Any]) -> None:
    assert openapi["openapi"].startswith("3.")
    paths = {path: operations for path, operations in openapi["paths"].items() if path.startswith("/api/v1/")}
    assert set(OPERATIONS) <= set(paths)
    for path in OPERATIONS:
        assert set(paths[path]) == {"get"}, path


def test_schema_documents_formats_fiction_and_pagination(world: World, openapi: dict[str, Any]) -> None:
    for path, formats in OPERATIONS.items():
        operation = openapi["paths"][path]["get"]
        parameters = _parameters(operation)
        assert sorted(parameters["format"]["schema"]["enum"]) == formats, path
        if path not in ("/api/v1/sources/{slug}/", "/api/v1/citations/{id}/"):
            assert parameters["fiction"]["schema"]["enum"] == ["exclude", "include", "only"], path
        if not path.endswith("}/"):
            assert parameters["page_size"]["schema"]["maximum"] == 200, path
            assert parameters["page"]["schema"]["minimum"] == 1, path
        for code in ("200", "400", "404", "429"):
            assert code in operation["responses"], (path, code)
    events = _parameters(openapi["paths"]["/api/v1/events/"]["get"])
    assert {"after", "before", "person", "unit", "location", "kind", "source"} <= set(events)
    locations = openapi["paths"]["/api/v1/locations/"]["get"]["responses"]["200"]["content"]
    assert set(locations) == {"application/json", "application/geo+json", "application/ld+json", "text/csv"}
    assert locations["application/geo+json"]["schema"]["properties"]["type"]["enum"] == ["FeatureCollection"]
    csl = openapi["paths"]["/api/v1/sources/"]["get"]["responses"]["200"]["content"]
    assert csl["application/vnd.citationstyles.csl+json"]["schema"]["type"] == "array"


def test_schema_documents_reads_as_of_a_date_release_or_version(world: World, openapi: dict[str, Any]) -> None:
    for path in OPERATIONS:
        if path.startswith(("/api/v1/citations/", "/api/v1/passages/")) or path.endswith("/passages/"):
            continue
        parameters = _parameters(openapi["paths"][path]["get"])
        expected = {"as_of", "release", "version"} if path.endswith("}/") else {"as_of", "release"}
        assert expected <= set(parameters), path
        assert parameters["as_of"]["schema"]["type"] == "string" and "ISO 8601" in parameters["as_of"]["description"]
        assert parameters["release"]["schema"]["type"] == "integer", path
        if path.endswith("}/"):
            assert parameters["version"]["schema"]["type"] == "integer", path
        else:
            assert "version" not in parameters, path


def test_spectacular_validates_without_warnings(tmp_path: Any) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3")


def test_docs_are_served_from_the_sidecar(world: World, api: ApiClient) -> None:
    response = api.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "cdn." not in html and "unpkg" not in html
    # The page starts from its own script (no inline script, docs/security.md), which names the schema.
    script = api.get("/api/docs/", {"script": ""}).content.decode()
    assert "/api/schema/" in script
    assert "cdn." not in script and "unpkg" not in script


# --- schemathesis ----------------------------------------------------------------------------


# Loading the schema makes no query, so it can be read when the module is collected.
# The search endpoint has tests of its own; here, the records and their formats.
live_schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).include(
    path_regex=r"^/api/v1/(sources|passages|persons|units|locations|events|citations)"
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def _connection_kept_across_requests() -> Iterator[None]:
    """Django closes the connection after each request, which would end the test's transaction
    (on PostgreSQL); its test client disconnects that handler, and so does this fixture."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@live_schema.parametrize()
@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_generated_requests_get_conforming_answers(world: World, _connection_kept_across_requests: None,
                                                  case: Any) -> None:
    case.call_and_validate(checks=CHECKS)


# Hostile requests generated from the schema: values that break it (negative mode), NUL
# characters and unknown parameters, on every operation including search. Only one check: no
# 5xx. Bounded to a few examples per operation, so that the run stays near a minute.
hostile_schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).include(
    path_regex=r"^/api/v1/"
)
hostile_schema.config.generation.update(
    modes=[GenerationMode.NEGATIVE, GenerationMode.POSITIVE], allow_x00=True, allow_extra_parameters=True
)


@hostile_schema.parametrize()
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_generated_hostile_requests_never_get_a_server_error(world: World, _connection_kept_across_requests: None,
                                                             case: Any) -> None:
    case.call_and_validate(checks=[not_a_server_error])
