"""A revision proposed on a published version that has since changed is refused, never applied over it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db.models import F

from archive.models import Person, RevisionState
from archive.services import decisions, records, revisions
from tests.factories import approved, user

pytestmark = pytest.mark.django_db


def test_a_revision_on_an_older_published_version_is_refused() -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="原文"))
    edit = Person.objects.get(pk=tang.pk)
    edit.description = "改过"
    pending = records.record_update(record=edit, by=user(role="curator"))
    assert pending is not None and pending.base_version == tang.version
    # The published row moves on by a path that bypasses revisions (a raw write, a restore).
    Person.objects.filter(pk=tang.pk).update(version=F("version") + 1, description="另一版本")
    with pytest.raises(ValidationError, match="published in another version"):
        revisions.approve_revision(revision=pending, by=user(role="reviewer"), shown=decisions.revision_pin(pending))
    assert Person.objects.get(pk=tang.pk).description == "另一版本"
    pending.refresh_from_db()
    assert pending.state == RevisionState.PENDING
