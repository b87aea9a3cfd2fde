"""Each account says its basis in the API: stated, inferred (with its reasoning) or reference (named)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from archive import statements
from archive.dating import NANJING
from archive.models import Event, Statement
from tests.api.conftest import ApiClient
from tests.factories import approved, cite, source_with_text

pytestmark = pytest.mark.django_db

TEXT = "12月12日傍晚5点，唐生智召开会议。\n\n会后各部于当晚撤退。\n"


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0


def _at(hour: int, minute: int = 0, second: int = 0) -> dt.datetime:
    return dt.datetime(1937, 12, 12, hour, minute, second, tzinfo=NANJING)


def test_accounts_carry_basis_reasoning_and_reference(api: ApiClient) -> None:
    history = source_with_text(TEXT, slug="hist")
    meeting = approved(Event(slug="meeting", title="会议", kind="meeting", date="1937-12-12"))
    said = cite(history.passages.get(seq=1), "12月12日傍晚5点", event=meeting)
    after = cite(history.passages.get(seq=2), "会后各部于当晚撤退", event=meeting)
    stated = approved(statements.statement_create(
        target=meeting, field_name="date", value="1937-12-12", citations=[said], as_written="12月12日傍晚5点",
        earliest=_at(17), latest=_at(17, 59, 59)))  # the whole hour 傍晚5点 gives
    inferred = approved(statements.statement_create(
        target=meeting, field_name="date", value="1937-12-12", citations=[said, after], earliest=_at(17),
        latest=_at(19), basis="inferred", reasoning="the units left the same evening, after the meeting"))
    Statement.objects.filter(pk=inferred.pk).update(rank="preferred")  # as a fixture could rank it
    document = api.json("/api/v1/events/meeting/")
    date = document["statements"]["date"]
    assert [a["basis"] for a in date["accounts"]] == ["stated", "inferred"]  # the stated account first, and shown
    assert date["accounts"][0]["as_written"] == stated.as_written and document["earliest"].startswith("1937-12-12T17")
    assert date["accounts"][1]["reasoning"] == "the units left the same evening, after the meeting"
    assert [c["seq"] for c in date["accounts"][1]["citations"]] == [1, 2]
    assert all(a["reference"] == "" for a in date["accounts"])


def test_the_schema_describes_the_basis(api: ApiClient) -> None:
    schema = api.json("/api/schema/", format="json")
    account = schema["components"]["schemas"]["StatementAccount"]
    assert {"basis", "reasoning", "reference"} <= set(account["required"])
    basis = account["properties"]["basis"]
    (reference,) = [part["$ref"] for part in basis["allOf"]]
    enum = schema["components"]["schemas"][reference.rsplit("/", 1)[1]]["enum"]
    assert enum == ["stated", "inferred", "reference"]
