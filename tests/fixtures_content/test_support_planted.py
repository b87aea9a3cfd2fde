"""Planted on the shipped collection: the audit finds a value its quote does not say, and bounds against words."""

from __future__ import annotations

import datetime as dt

import pytest

from archive.audit import run_audit
from archive.dating import NANJING
from archive.models import Location, Statement

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("collection")]


def _found(code: str) -> list[str]:
    return [f"{f.slug}: {f.message}" for f in run_audit(codes=[code]).open]


def test_the_shipped_collection_has_no_finding_of_these_checks() -> None:
    assert _found("stated-not-said") == []
    assert _found("bounds-contradict-words") == []
    bases = set(Statement.objects.values_list("basis", flat=True))
    assert bases == {"stated", "inferred", "reference"}


def test_an_event_date_contradicting_its_cited_passage_is_found() -> None:
    planted = Statement.objects.get(slug="meeting-1700-12-december--date-1")
    assert planted.as_written == "12月12日傍晚5点"
    Statement.objects.filter(pk=planted.pk).update(
        earliest=dt.datetime(1937, 12, 12, 9, tzinfo=NANJING), latest=dt.datetime(1937, 12, 12, 9, 59, tzinfo=NANJING)
    )
    (contradiction,) = _found("bounds-contradict-words")
    assert contradiction.startswith("meeting-1700-12-december:") and "12月12日傍晚5点" in contradiction
    (unsaid,) = _found("stated-not-said")
    assert "meeting-1700-12-december--date-1" in unsaid and "do not hold the time" in unsaid


def test_a_place_statement_whose_passage_does_not_name_the_place_is_found() -> None:
    planted = Statement.objects.get(slug="yijiangmen-crush--location-1", basis="stated")
    assert Location.objects.filter(slug="ministry-of-railways").exists()
    Statement.objects.filter(pk=planted.pk).update(value="ministry-of-railways")
    findings = _found("stated-not-said")  # one per cited quote, each naming it
    assert findings
    for finding in findings:
        assert "yijiangmen-crush--location-1" in finding and "does not name the place" in finding
        assert "铁道部大楼" in finding and "«" in finding
