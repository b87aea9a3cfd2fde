"""The reconciliation service bounds the whole work of a request, and the limits documented are the code's.

A batch used to be bounded per item only: a property id could be repeated
without end, the same value sent many times, and data extension asked for
any number of properties, so that one anonymous POST of 100 KB held a worker
past its timeout. Now every part is bounded, and so is the batch's work,
candidates × property values; past any limit the answer is a 413 or a 400
naming it (timings at each limit: `bench/reconcile_limits.py`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from archive.reconcile.batch import MAX_BATCH, MAX_COMPARISONS, MAX_VALUES
from archive.reconcile.extend import MAX_IDS
from archive.search import MAX_QUERY_LENGTH
from archive.search import candidates as names

pytestmark = pytest.mark.usefixtures("collection")

SECURITY = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def _post(client: Client, batch: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = client.post("/reconcile/", {"queries": json.dumps(batch, ensure_ascii=False)})
    return response.status_code, json.loads(response.content)


def _common_name() -> tuple[str, int]:
    """A one-character name with several person candidates, and how many it finds."""
    people = names.records_by_pk("person").values()
    counts = {record.title[:1]: len(names.find(record.title[:1], ("person",), "exclude")) for record in people}
    name = max(counts, key=lambda key: counts[key])
    assert counts[name] > 1
    return name, counts[name]


def test_a_property_given_twice_is_refused(client: Client) -> None:
    status, document = _post(client, {"q0": {"query": "唐生智", "properties": [
        {"pid": "side", "v": "chinese"}, {"pid": "side", "v": "japanese"}]}})
    assert status == 400
    assert document["param"] == "queries.q0.properties[1]" and "side" in document["error"]


def test_more_values_than_the_limit_are_refused_not_cut(client: Client) -> None:
    values = [f"unit {n}" for n in range(MAX_VALUES + 1)]
    status, document = _post(client, {"q0": {"query": "唐生智", "properties": [{"pid": "unit", "v": values}]}})
    assert status == 413 and document["param"] == "queries.q0.properties[0]"
    assert str(MAX_VALUES) in document["error"]
    status, _document = _post(client, {"q0": {"query": "唐生智", "properties": [{"pid": "unit", "v": values[:-1]}]}})
    assert status == 200


def test_repeated_values_count_once_in_the_budget(client: Client) -> None:
    name, found = _common_name()
    repeated = ["第三十六师"] * MAX_VALUES
    batch = {f"q{n}": {"query": name, "type": "person", "properties": [{"pid": "unit", "v": repeated}]}
             for n in range(MAX_BATCH)}
    assert MAX_BATCH * found * MAX_VALUES > MAX_COMPARISONS >= MAX_BATCH * found  # only deduplication lets it in
    status, document = _post(client, batch)
    assert status == 200, document
    single = _post(client, {"q0": {"query": name, "type": "person", "properties": [{"pid": "unit", "v": repeated[0]}]}})
    assert document["q0"] == single[1]["q0"]


def test_the_batch_budget_of_candidates_times_values(client: Client) -> None:
    name, found = _common_name()
    values = [f"unit {n}" for n in range(MAX_VALUES)]
    within = MAX_COMPARISONS // (found * MAX_VALUES)

    def batch(count: int) -> dict[str, Any]:
        return {f"q{n}": {"query": name, "type": "person", "properties": [{"pid": "unit", "v": values}]}
                for n in range(count)}

    assert _post(client, batch(within))[0] == 200
    status, document = _post(client, batch(within + 1))
    assert status == 413 and document["param"] == "queries"
    assert f"{MAX_COMPARISONS}" in document["error"]


def test_extension_is_bounded_by_ids_and_known_properties(client: Client) -> None:
    def extend(ids: list[str], pids: list[str]) -> tuple[int, dict[str, Any]]:
        body = {"ids": ids, "properties": [{"id": pid} for pid in pids]}
        response = client.post("/reconcile/", {"extend": json.dumps(body)})
        return response.status_code, json.loads(response.content)

    status, document = extend(["person:tang-shengzhi"], ["side", "side"])
    assert status == 400 and document["param"] == "extend.properties" and "side" in document["error"]
    status, document = extend(["person:tang-shengzhi"], ["side", "shoe-size"])
    assert status == 400 and "shoe-size" in document["error"]
    status, document = extend([f"person:p{n}" for n in range(MAX_IDS + 1)], ["side"])
    assert status == 413 and document["param"] == "extend.ids"
    status, document = extend(["person:tang-shengzhi"] * (MAX_IDS + 1), ["side"])
    assert status == 413  # counted as sent, before any is read
    status, document = extend(["person:tang-shengzhi", "person:tang-shengzhi"], ["side"])
    assert status == 200 and list(document["rows"]) == ["person:tang-shengzhi"]


def test_the_draft_version_is_bounded_alike(client: Client) -> None:
    def match(queries: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
        response = client.post("/reconcile/1.0/match", json.dumps({"queries": queries}),
                               content_type="application/json")
        return response.status_code, json.loads(response.content)

    ids = [{"conditions": [{"matchType": "id", "propertyValue": f"person:p{n}"}]} for n in range(MAX_IDS + 1)]
    status, document = match(ids)
    assert status == 413 and document["param"] == f"queries[{MAX_IDS}].conditions"
    name, found = _common_name()
    values = [{"matchType": "property", "propertyId": "unit", "propertyValue": f"unit {n}"} for n in range(MAX_VALUES)]
    query = {"type": "person", "conditions": [{"matchType": "name", "propertyValue": name}, *values]}
    assert match([query])[0] == 200  # a property's values, one condition each, are one list
    status, document = match([query] * (MAX_COMPARISONS // (found * MAX_VALUES) + 1))
    assert status == 413 and document["param"] == "queries"
    too_many = {**query, "conditions": [*query["conditions"], {**values[0], "propertyValue": "one more"}]}
    assert match([too_many])[0] == 413


def _lone(text: str) -> str:
    """`text` with each @ a JSON string holding half a UTF-16 pair."""
    return text.replace("@", '"\\ud800"')


@pytest.mark.parametrize(("method", "path", "data"), [
    ("post", "/reconcile/", {"queries": _lone('{"q0": {"query": @}}')}),
    ("get", "/reconcile/", {"queries": _lone('{"q0": {"query": "唐", "properties": [{"pid": "unit", "v": @}]}}')}),
    ("post", "/reconcile/", {"query": _lone('{"query": @}')}),
    ("post", "/reconcile/", {"extend": _lone('{"ids": [@], "properties": [{"id": "side"}]}')}),
    ("get", "/reconcile/", {"extend": _lone('{"ids": ["person:tang-shengzhi"], "properties": [{"id": @}]}')}),
    ("json", "/reconcile/1.0/match",
     _lone('{"queries": [{"conditions": [{"matchType": "name", "propertyValue": @}]}]}')),
    ("json", "/reconcile/1.0/match",
     _lone('{"queries": [{"conditions": [{"matchType": "id", "propertyValue": @}]}]}')),
    ("json", "/reconcile/1.0/extend", _lone('{"ids": [@], "properties": [{"id": "side"}]}')),
    ("json", "/reconcile/1.0/extend",
     _lone('{"ids": ["person:tang-shengzhi"], "properties": [{"id": "side"}], "x": {@: 1}}')),
])
def test_a_lone_surrogate_is_a_bad_request(client: Client, method: str, path: str, data: Any) -> None:
    if method == "json":
        response = client.post(path, data, content_type="application/json")
    else:
        response = getattr(client, method)(path, data)
    assert response.status_code == 400, response.content
    assert json.loads(response.content)["error"]


def _limits_row() -> str:
    rows = [line for line in SECURITY.read_text(encoding="utf-8").splitlines()
            if line.startswith("| reconciliation batch")]
    assert len(rows) == 1
    return rows[0]


def test_the_documented_limits_are_the_code_s() -> None:
    row = _limits_row()
    limits = row.split("|")[2].replace("1.0 ", "")  # the version's name is no limit
    numbers = {int(number.replace(",", "")) for number in re.findall(r"\b\d[\d,]*\b", limits)}
    assert numbers == {MAX_BATCH, MAX_QUERY_LENGTH, MAX_VALUES, MAX_COMPARISONS, MAX_IDS}
    for phrase in (f"{MAX_BATCH} queries", f"{MAX_QUERY_LENGTH} characters", f"{MAX_VALUES} distinct values",
                   f"{MAX_COMPARISONS:,} candidates × property values", f"{MAX_IDS} ids"):
        assert phrase in row, phrase
