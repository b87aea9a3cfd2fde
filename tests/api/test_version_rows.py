"""The table of document versions stays bounded: rows of tags nothing carries go once they are old.

A row may go (`archive.api.stored.forget_unused_versions`) only when no stored document carries
its tag and its version has not moved for longer than any build takes (`UNUSED_ROWS_KEPT_FOR`);
a document built before the row went and stored after it is never taken for current.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from archive.api import stored
from archive.models import DocumentVersion, StoredDocument, document_versions
from archive.models.document_versions import EVERYTHING, UNUSED_ROWS_KEPT_FOR
from archive.selectors import FictionMode
from tests.api.world import World
from tests.factories import publish_change

pytestmark = pytest.mark.django_db

TANG = "/api/v1/persons/tang-shengzhi/"


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


def _age(*tags: str) -> None:
    """As if the tags' versions last moved longer ago than a build can take."""
    DocumentVersion.objects.filter(tag__in=tags).update(bumped_at=timezone.now() - 2 * UNUSED_ROWS_KEPT_FOR)


def test_old_rows_that_no_document_carries_are_forgotten_and_the_rest_kept() -> None:
    DocumentVersion.objects.bump(["person:gone", "person:recent", "person:carried", EVERYTHING])
    StoredDocument.objects.create(tag="person:carried", variant="exclude", tag_version=1, everything_version=1,
                                  body="{}", fictional=False)
    _age("person:gone", "person:carried", EVERYTHING)

    assert stored.forget_unused_versions() == 1
    left = set(DocumentVersion.objects.values_list("tag", flat=True))
    assert left == {"person:recent", "person:carried", EVERYTHING}
    assert DocumentVersion.objects.versions(["person:gone"]) == {"person:gone": 0}  # as one never bumped


def test_a_document_built_before_its_row_was_forgotten_is_not_taken_for_current(world: World) -> None:
    kind = stored.KINDS["person"]
    tag = kind.tag("tang-shengzhi")
    publish_change(world.tang, description="第一稿。")
    read_before = DocumentVersion.objects.versions([tag, EVERYTHING])
    assert read_before[tag] > 0
    StoredDocument.objects.filter(tag=tag).delete()
    _age(tag)
    assert stored.forget_unused_versions() >= 1

    # A slow builder that read the versions before the row went stores its document now.
    stored._store([StoredDocument(tag=tag, variant=kind.variant(FictionMode.EXCLUDE), tag_version=read_before[tag],
                                  everything_version=read_before[EVERYTHING], body='{"description": "old"}',
                                  fictional=False)])
    answer = json.loads(Client().get(TANG).content)
    assert answer["description"] == "第一稿。"


def test_a_committed_write_forgets_the_old_unused_rows(
        world: World, django_capture_on_commit_callbacks: Any) -> None:
    DocumentVersion.objects.bump(["person:long-gone"])
    _age("person:long-gone")
    with django_capture_on_commit_callbacks(execute=True):
        publish_change(world.tang, description="改一处。")
    assert not DocumentVersion.objects.filter(tag="person:long-gone").exists()
    assert DocumentVersion.objects.filter(tag="person:tang-shengzhi").exists()  # just bumped: kept


def test_forgetting_is_bounded_per_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_versions, "FORGOTTEN_PER_STATEMENT", 3)
    DocumentVersion.objects.bump([f"person:p{n}" for n in range(7)])
    _age(*[f"person:p{n}" for n in range(7)])
    assert [stored.forget_unused_versions() for _ in range(4)] == [3, 3, 1, 0]
