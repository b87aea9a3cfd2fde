"""The source filter of the passage and citation changelists lists titles, never whole texts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import Citation, Passage
from tests.admin.helpers import changelist, client_for, user, world

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("model", "lookup"), [(Passage, "source_id"), (Citation, "passage__source_id")])
def test_filtering_by_source_without_loading_any_source_text(model: type, lookup: str) -> None:
    made = world(3)
    chosen = made["source"][1]
    client = client_for(user(is_superuser=True))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(changelist(model), {"source": str(chosen.pk)})
    assert response.status_code == 200
    assert chosen.title in response.content.decode()
    shown = list(response.context["cl"].result_list)
    assert shown and all(model.objects.filter(pk=row.pk, **{lookup: chosen.pk}).exists() for row in shown)
    assert len(shown) == model.objects.filter(**{lookup: chosen.pk}).count()
    # The whole text of a source is megabytes; no query of the page reads it.
    assert not [q["sql"] for q in queries.captured_queries if '"archive_source"."text"' in q["sql"]]


@pytest.mark.parametrize("value", ["abc", "-1", "99999999"])
def test_a_hand_typed_source_value_lists_nothing_and_never_fails(value: str) -> None:
    world(1)
    client = client_for(user(is_superuser=True))
    response = client.get(changelist(Passage), {"source": value})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == []
