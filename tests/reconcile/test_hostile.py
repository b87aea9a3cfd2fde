"""Whatever a client sends, the service answers with a result or a 4xx naming the part at fault, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("collection")

json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
query = st.fixed_dictionaries({}, optional={
    "query": st.text(max_size=30) | json_values,
    "type": st.sampled_from(["person", "unit", "location", "event", "ship"]) | json_values,
    "limit": st.integers(-3, 300) | json_values,
    "properties": st.lists(st.fixed_dictionaries({}, optional={
        "pid": st.sampled_from(["unit", "date", "place", "side", "parent", "fiction", "x"]) | json_values,
        "v": json_values,
    }), max_size=3) | json_values,
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.dictionaries(st.text(max_size=5), query | json_values, max_size=4))
def test_no_batch_is_a_server_error(client: Client, batch: dict[str, Any]) -> None:
    for payload in (json.dumps(batch), json.dumps(batch)[:-1]):
        response = client.post("/reconcile/", {"queries": payload})
        assert response.status_code in (200, 400, 413), (payload, response.content[:300])
        document = json.loads(response.content)
        assert response.status_code == 200 or document["param"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values, prefix=st.text(max_size=30))
def test_no_extension_or_suggestion_is_a_server_error(client: Client, body: Any, prefix: str) -> None:
    assert client.post("/reconcile/", {"extend": json.dumps(body)}).status_code in (200, 400, 413)
    nul = {"ids": ["person:tang\x00", "unit:\x00"], "properties": [{"id": "side"}]}
    assert client.post("/reconcile/", {"extend": json.dumps(nul)}).status_code == 200
    response = client.post("/reconcile/1.0/match", json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 400, 413)
    for path in ("/reconcile/suggest/entity/", "/reconcile/suggest/type/", "/reconcile/suggest/property/"):
        assert client.get(path, {"prefix": prefix}).status_code in (200, 400)
