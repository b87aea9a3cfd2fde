"""The lock version follows bulk paths too: merges raise it, reloads keep it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from archive.models import Citation, Person
from archive.services import decisions, revisions
from archive.services import merges as merging
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db


def test_a_merge_raises_the_version_of_what_it_moves() -> None:
    passage = source_with_text("周斓签了字，周澜随后出城。\n", slug="hist").passages.get(seq=1)
    survivor = approved(Person(slug="zhou-lan", name="周斓"))
    duplicate = approved(Person(slug="zhou-lan-2", name="周澜"))
    moved = cite(passage, "周澜", person=duplicate)
    before = Citation.objects.get(pk=moved.pk).version
    revision = merging.merge(survivor=survivor, duplicate=duplicate, by=user("merger", role="reviewer"))
    assert Citation.objects.get(pk=moved.pk).version == before  # proposed only: nothing moved yet
    revisions.approve_revision(
        revision=revision, by=user("second-reviewer", role="reviewer"), shown=decisions.revision_pin(revision)
    )
    after = Citation.objects.get(pk=moved.pk)
    assert after.person_id == survivor.pk
    assert after.version == before + 1


def test_reloading_the_same_export_keeps_the_lock_version(tmp_path: Path) -> None:
    source_with_text("唐生智下令撤退。\n", slug="hist")
    person = approved(Person(slug="tang", name="唐生智"))
    out = tmp_path / "export"
    call_command("export_collection", str(out))
    person.refresh_from_db()
    call_command("load_collection", "--dir", str(out))
    assert Person.objects.get(pk=person.pk).version == person.version


def test_an_older_export_does_not_overwrite_newer_edits(tmp_path: Path) -> None:
    from django.core.management.base import CommandError

    source_with_text("唐生智下令撤退。\n", slug="hist")
    person = approved(Person(slug="tang", name="唐生智"))
    out = tmp_path / "export"
    call_command("export_collection", str(out))
    Person.objects.filter(pk=person.pk).update(version=person.version + 5, description="edited since")
    with pytest.raises(CommandError, match="version"):
        call_command("load_collection", "--dir", str(out))
    assert Person.objects.get(pk=person.pk).description == "edited since"
