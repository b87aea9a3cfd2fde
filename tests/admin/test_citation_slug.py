"""A citation cited in the reader is named the way `Citation.save()` names every other citation."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError

from archive.models import Citation, Event, Person, Rank
from archive.services.citations import citation_create
from tests.factories import approved, source_with_text, user

pytestmark = pytest.mark.django_db


def test_the_reader_and_save_give_the_same_slug() -> None:
    passage = source_with_text("唐生智于12日傍晚离开司令部。", slug="hist", kind="history").passages.get(seq=1)
    person = approved(Person(slug="tang", name="唐生智"))
    created = citation_create(passage=passage, quote="唐生智", start=0, end=3, target_type="person", target=person,
                              claim="x", rank=Rank.NORMAL, by=user("cur", role="curator"))
    assert re.fullmatch(r"hist-1-[0-9a-f]{8}", created.slug)
    slug = created.slug
    created.delete()
    again = Citation(passage=passage, quote="唐生智", start=0, end=3, claim="x", person=person)
    again.save()
    assert again.slug == slug


def test_a_taken_slug_is_skipped_and_exhaustion_is_a_validation_error(monkeypatch: pytest.MonkeyPatch) -> None:
    passage = source_with_text("唐生智离开南京。", slug="hist", kind="history").passages.get(seq=1)
    event = approved(Event(slug="leaves", title="唐生智离开南京", kind="escape", date="1937-12-12"))
    first = Citation(passage=passage, quote="唐生智", start=0, end=3, claim="x", event=event)
    first.save()
    second = Citation(passage=passage, quote="唐生智", start=0, end=3, claim="y", event=event)
    assert second.free_slug() != first.slug
    monkeypatch.setattr(Citation.objects, "filter", lambda **kwargs: Citation.objects.all())
    with pytest.raises(ValidationError):
        second.free_slug()
