"""Records made where they are cited: the words selected in a passage become a new person, unit, place or event.

The record is a draft of its author like any other (`records.record_create`),
named by a slug made from the name's pinyin (`text.slugs`), with the selected
words kept as one of its names when they are not its name itself (a
Traditional form, a title used as a name); its citation is made with it, in
one transaction, and both are submitted together when the curator submits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import (
    Citation,
    Curated,
    Event,
    Location,
    LocationAlias,
    NameKind,
    Passage,
    Person,
    PersonName,
    Script,
    Unit,
    UnitAlias,
)
from archive.services import review
from archive.services.citations import citation_create
from archive.services.records import child_save, record_create
from archive.text.normalize import is_han, to_simplified
from archive.text.slugs import pinyin_slug

NEW_KINDS = ("person", "unit", "location", "event")


def script_of(words: str) -> str:
    """The script a name is written in: Latin, Traditional (it changes when simplified) or Simplified."""
    if not any(is_han(ch) for ch in words):
        return Script.LATN
    return Script.HANT if to_simplified(words) != words else Script.HANS


def default_name_kind(words: str) -> str:
    """Selected Traditional words are a Traditional form of a name; anything else is taken as the name."""
    return NameKind.TRADITIONAL if script_of(words) == Script.HANT else NameKind.PRIMARY


def suggested_name(words: str) -> str:
    """The name a new record gets from the words: the Simplified form of Traditional words."""
    return to_simplified(words) if script_of(words) == Script.HANT else words


def free_slug(model: type[models.Model], name: str, *, kind: str) -> str:
    """A slug made from `name`'s pinyin that no record of `model` has yet (a number added when taken)."""
    base = pinyin_slug(name, personal=kind == "person", join_runs=kind != "event") or kind
    taken = set(
        model._default_manager.filter(slug__startswith=base).values_list("slug", flat=True)
    )
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


@dataclass
class NewRecord:
    """What the cite dialog's short form says of the record to make."""

    kind: str
    name: str
    words: str  # the selected words, which may be another form of the name
    words_kind: str = NameKind.PRIMARY  # for a person: what kind of name the words are
    echelon: str = ""
    location_kind: str = ""
    event_kind: str = ""
    slug: str = ""


def _alias(record: Curated, new: NewRecord) -> models.Model | None:
    """The selected words as a name of the record, when they are not simply its name."""
    words = new.words.strip()
    if isinstance(record, Person):
        if words == record.name and new.words_kind == NameKind.PRIMARY:
            return None
        return PersonName(person=record, name=words, kind=new.words_kind, script=script_of(words))
    if not words or words == getattr(record, "name", None):
        return None
    if isinstance(record, Unit):
        return UnitAlias(unit=record, name=words, script=script_of(words))
    if isinstance(record, Location):
        languages: dict[str, str] = {Script.HANT: "zh-Hant", Script.LATN: "zh-Latn-pinyin"}
        language = languages.get(script_of(words), "zh-Hans")
        return LocationAlias(location=record, name=words, language=language)
    return None


def build_record(new: NewRecord) -> Curated:
    """The unsaved record the form describes, checked by its model's own rules."""
    name = new.name.strip()
    if new.kind not in NEW_KINDS:
        raise ValidationError(_("Unknown record type “%(type)s”.") % {"type": new.kind})
    if not name:
        raise ValidationError({"new_name": _("Give the new record a name.")})
    record: Curated
    if new.kind == "person":
        record = Person(name=name)
    elif new.kind == "unit":
        record = Unit(name=name, echelon=new.echelon)
    elif new.kind == "location":
        record = Location(name=name, kind=new.location_kind)
    else:
        record = Event(title=name, kind=new.event_kind)
    model = type(record)
    record.slug = new.slug.strip() or free_slug(model, name, kind=new.kind)
    record.full_clean(exclude=["created_by", "modified_by"])
    return record


@transaction.atomic
def cite_with_new_record(
    *,
    passage: Passage,
    quote: str,
    start: int,
    end: int,
    new: NewRecord,
    claim: str,
    rank: str,
    by: Any,
    submit: bool = False,
) -> tuple[Curated, Citation]:
    """Make the new record (a draft of `by`) and its citation together; submit both when asked."""
    record = build_record(new)
    record_create(record=record, by=by, reason="created in the source reader")
    alias = _alias(record, new)
    if alias is not None:
        alias.full_clean()
        child_save(child=alias, parent_field=new.kind, by=by, reason="added in the source reader")
        record.refresh_from_db()
    citation = citation_create(
        passage=passage,
        quote=quote,
        start=start,
        end=end,
        target_type=new.kind,
        target=record,
        claim=claim,
        rank=rank,
        by=by,
    )
    if submit:
        review.submit(record, by=by)
        review.submit(citation, by=by)
    return record, citation
