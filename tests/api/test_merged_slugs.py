"""The slug of a record merged into another keeps answering, with a permanent redirect."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from archive.models import Person
from archive.services import decisions, revisions
from archive.services import merges as merging
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db


def test_old_slug_redirects_to_the_survivor(client) -> None:
    passage = source_with_text("参谋长周斓签了字，周澜随后出城。\n", slug="hist").passages.get(seq=1)
    survivor = approved(Person(slug="zhou-lan", name="周斓"))
    duplicate = approved(Person(slug="zhou-lan-2", name="周澜"))
    cite(passage, "周斓", person=survivor)
    cite(passage, "周澜", person=duplicate)
    merger = user("merger", role="reviewer")
    revision = merging.merge(survivor=survivor, duplicate=duplicate, by=merger)

    # Pending review: both records answer as published, no redirect yet.
    pending = client.get("/api/v1/persons/zhou-lan-2/?fiction=include")
    assert pending.status_code == 200 and pending.json()["name"] == "周澜"
    assert {c["quote"] for c in client.get("/api/v1/persons/zhou-lan/").json()["citations"]} == {"周斓"}
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=merger, shown=decisions.revision_pin(revision))
    revisions.approve_revision(
        revision=revision, by=user("second-reviewer", role="reviewer"), shown=decisions.revision_pin(revision)
    )

    response = client.get("/api/v1/persons/zhou-lan-2/?fiction=include")
    assert response.status_code == 301
    assert response["Location"].endswith("/api/v1/persons/zhou-lan/?fiction=include")
    followed = client.get(response["Location"]).json()
    assert followed["slug"] == "zhou-lan"
    assert {c["quote"] for c in followed["citations"]} == {"周斓", "周澜"}


def test_an_unknown_slug_is_still_a_404(client) -> None:
    assert client.get("/api/v1/persons/nobody/").status_code == 404
