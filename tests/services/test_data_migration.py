"""The data migration that gives records taken offline by an edit their approved version back."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from archive.models import Person, Revision, Status
from archive.services import decisions, revisions
from tests.factories import approved, user

pytestmark = pytest.mark.django_db

migration = importlib.import_module("archive.migrations.0012_revisions")


def test_a_record_sent_back_to_review_by_an_edit_is_published_again_with_the_edit_pending() -> None:
    tang = approved(Person(slug="tang", name="唐生智", description="南京卫戍司令长官"))
    editor = user(role="curator")
    # As an edit did before revisions existed: the row itself changed and went back to review.
    Person.objects.filter(pk=tang.pk).update(
        description="改过的描述", status=Status.IN_REVIEW, modified_by=editor, version=tang.version + 1
    )
    migration.restore_published(apps, None)

    tang = Person.objects.get(pk=tang.pk)
    assert tang.status == Status.APPROVED and tang.description == "南京卫戍司令长官"
    pending = revisions.pending_revision(tang)
    assert pending is not None and pending.changes == {"fields": {"description": "改过的描述"}}
    assert pending.created_by == editor
    # The pending change is approved like any other, by someone else.
    revisions.approve_revision(revision=pending, by=user(role="reviewer"), shown=decisions.revision_pin(pending))
    assert Person.objects.get(pk=tang.pk).description == "改过的描述"


def test_a_record_never_approved_stays_in_review() -> None:
    draft = Person.objects.create(slug="draft", name="草稿", status=Status.IN_REVIEW)
    migration.restore_published(apps, None)
    assert Person.objects.get(pk=draft.pk).status == Status.IN_REVIEW
    assert not Revision.objects.exists()
