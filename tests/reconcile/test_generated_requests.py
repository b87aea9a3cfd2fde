"""Requests generated from the reconciliation service's own OpenAPI description never get a server error.

The service describes its routes in the API's schema (`archive/reconcile/openapi.py`);
schemathesis generates requests from that description, valid ones and ones that break
it (NUL characters, unknown parameters, bodies of any shape), a few per operation so
that the run stays short. One check: no 5xx.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

pytestmark = pytest.mark.usefixtures("collection")

# Loading the schema makes no query, so it can be read when the module is collected.
service_schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).include(
    path_regex=r"^/reconcile/"
)
service_schema.config.generation.update(
    modes=[GenerationMode.NEGATIVE, GenerationMode.POSITIVE], allow_x00=True, allow_extra_parameters=True
)


@pytest.fixture
def _connection_kept_across_requests() -> Iterator[None]:
    """Django closes the connection after each request, which would end the module's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_the_description_covers_every_route_of_the_service() -> None:
    from archive.reconcile.urls import urlpatterns

    described = {operation.path for operation in (result.ok() for result in service_schema.get_all_operations())}
    routes = {"/reconcile/" + str(pattern.pattern).replace("<str:ident>", "{ident}") for pattern in urlpatterns}
    # The draft's suggest, preview and propose routes are the 0.2 views under the draft's names.
    assert described <= routes and len(described) >= 12, sorted(routes - described)


@service_schema.parametrize()
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_generated_requests_never_get_a_server_error(_connection_kept_across_requests: None, case: Any) -> None:
    case.call_and_validate(checks=[not_a_server_error])
