"""Each defect the issue planted in a copy of the shipped collection is found (`planting.py` plants them).

The two that need the support checker (an event date contradicting its
cited passage, a place statement whose passage does not name the place)
live beside the checker's own tests, with the same planters.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import IntegrityError, InternalError, transaction

from archive.models import Event
from tests.fixtures_content import planting

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("collection")]


def test_a_web_novel_phrase_from_an_uncited_passage_in_a_historical_description() -> None:
    passage, phrase = planting.fiction_phrase_nobody_cites()
    assert phrase in passage.text and not passage.citations.exists()
    event = Event.objects.get(slug="retreat-order-issued")
    assert not event.fictional
    before = {(f.slug, f.field) for f in planting.open_findings("fiction-phrase")}
    assert (event.slug, "description") not in before
    planting.append_to_text(event, "description", f"（{phrase}）")
    planted = [f for f in planting.open_findings("fiction-phrase") if f.slug == event.slug]
    assert [f.field for f in planted] == ["description"]
    assert phrase[:6] in planted[0].quote and planted[0].passages[0].source.slug == planting.WEB_NOVEL


def test_a_cited_passage_changed_by_sql_is_refused_and_else_found() -> None:
    passage = planting.cited_passage_with("浦口")
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        planting.change_text_by_sql(passage, "浦口", "浦江")
    assert planting.open_findings("passage-text-changed") == []
    call_command("check", "--database", "default")
    planting.change_text_by_sql(passage, "浦口", "浦江", around_the_trigger=True)
    found = planting.open_findings("passage-text-changed")
    assert {f.model for f in found} >= {"passage", "citation"}
    assert all(f.passages == [passage] for f in found)
    with pytest.raises(SystemCheckError, match=r"archive\.E003"):
        call_command("check", "--database", "default")
