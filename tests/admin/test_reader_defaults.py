"""The cite dialog's defaults: the kind the selection names, a search in every kind, claims by rule, the way back.

"Evidence for" follows the words selected (a name of a person, a unit or a
place, found folded in the name tables, else the form of the words); before a
kind is chosen the search looks in every kind; a person, unit or place only
named may keep an empty claim ("named here"), other kinds need one; after
citing, the reader comes back with its filters and page.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from archive.models import Citation, Event, Location, Passage, Person, Source, Unit
from archive.reading.kinds import by_form, likely_kind
from archive.services.citations import CLAIM_OPTIONAL, MENTION_CLAIM, citation_create, claim_for
from archive.text import anchor
from tests.factories import approved, source_with_text, user

pytestmark = pytest.mark.django_db

TEXT = "唐孟潇于12日傍晚离开司令部。第74军向挹江門撤退，第88师在后。\n"


@pytest.fixture
def source() -> Source:
    return source_with_text(TEXT, slug="defaults", kind="history")


@pytest.fixture
def named() -> dict[str, object]:
    person = approved(Person(slug="tang", name="唐生智"))
    person.names.create(name="唐孟潇", kind="courtesy")
    unit = approved(Unit(slug="74", name="第74军", echelon="army"))
    place = approved(Location(slug="yijiang", name="挹江门", kind="gate"))
    event = approved(Event(slug="leaves", title="唐生智离开南京", kind="escape", date="1937-12-12"))
    return {"person": person, "unit": unit, "location": place, "event": event}


@pytest.fixture
def curator_client() -> Client:
    client = Client()
    client.force_login(user("defaults-curator", role="curator"))
    return client


def test_the_selection_names_a_person_a_unit_or_a_place_by_the_name_tables(named: dict[str, object]) -> None:
    # An alias, a name, and a Traditional form of a name: each is found folded, with its record.
    for words, kind in (("唐孟潇", "person"), ("第74军", "unit"), ("挹江門", "location")):
        guess = likely_kind(words)
        assert (guess.kind, guess.ids) == (kind, [named[kind].pk]), words  # type: ignore[attr-defined]


def test_without_a_record_the_form_of_the_words_says_the_kind(named: dict[str, object]) -> None:
    assert (likely_kind("第88师").kind, likely_kind("第88师").ids) == ("unit", [])
    assert likely_kind("煤炭港").kind == "location" and likely_kind("唐司令").kind == "person"
    assert likely_kind("傍晚").kind == "" and likely_kind("").kind == "" and likely_kind("%%").kind == ""
    assert by_form("军") == "" and by_form("渡江") == ""  # an ending alone, or a verb and its object, name nothing


def test_the_dialog_asks_the_kind_of_a_selection(curator_client: Client, named: dict[str, object]) -> None:
    url = reverse("archive_curate:kind_of_selection")
    assert curator_client.get(url, {"words": "唐孟潇"}).json() == {"kind": "person", "ids": [named["person"].pk]}  # type: ignore[attr-defined]
    assert curator_client.get(url, {"words": "x" * 5000}).status_code == 200
    assert Client().get(url, {"words": "唐孟潇"}).status_code == 302  # staff only


def test_before_a_kind_is_chosen_the_search_looks_in_every_kind(
    curator_client: Client, named: dict[str, object]
) -> None:
    url = reverse("archive_curate:targets")
    found = curator_client.get(url, {"type": "", "q": "唐生智"}).json()["results"]
    kinds = {(row["kind"], row["id"]) for row in found}
    assert ("person", named["person"].pk) in kinds and ("event", named["event"].pk) in kinds  # type: ignore[attr-defined]
    assert all(row["text"].split(":")[0] for row in found)
    assert curator_client.get(url, {"type": "", "q": ""}).json() == {"results": []}


def test_an_empty_claim_is_allowed_only_where_the_kinds_rule_says(named: dict[str, object]) -> None:
    assert sorted(CLAIM_OPTIONAL) == ["location", "person", "unit"]
    assert claim_for("unit", "  ") == MENTION_CLAIM and claim_for("event", " left ") == "left"
    for kind in ("event", "post", "participation"):
        with pytest.raises(ValidationError):
            claim_for(kind, "")


def _cite(client: Client, passage: Passage, phrase: str, target_type: str, target: object, claim: str, **extra: str):
    start = passage.text.index(phrase)
    data = {
        "start": anchor.codepoint_to_utf16(passage.text, start),
        "end": anchor.codepoint_to_utf16(passage.text, start + len(phrase)),
        "quote": phrase,
        "target_type": target_type,
        "target_id": target.pk,  # type: ignore[attr-defined]
        "claim": claim,
        "rank": "normal",
        "_save": "1",
        **extra,
    }
    return client.post(reverse("archive_curate:cite", args=[passage.pk]), data)


def test_citing_keeps_the_readers_filters_and_page_and_an_empty_claim_follows_the_rule(
    curator_client: Client, source: Source, named: dict[str, object]
) -> None:
    passage = source.passages.get(seq=1)
    reader = reverse("archive_curate:reader", args=[source.slug])
    back = f"{reader}?cited=no&page=2&page_size=50&seq=9&focus=4#passage-9"
    response = _cite(curator_client, passage, "第74军", "unit", named["unit"], "", next=back)
    assert response.status_code == 302
    where = urlsplit(response["Location"])
    assert where.path == reader and where.fragment == f"passage-{passage.seq}"
    assert parse_qs(where.query) == {"cited": ["no"], "page": ["2"], "page_size": ["50"], "focus": [str(passage.seq)]}
    assert Citation.objects.get(unit=named["unit"]).claim == MENTION_CLAIM

    refused = _cite(curator_client, passage, "离开司令部", "event", named["event"], "   ", next=back)
    assert refused.status_code == 200 and not Citation.objects.filter(event=named["event"]).exists()
    assert refused.context["form"].errors["claim"]
    assert f'value="{reader}?cited=no' in refused.content.decode()  # the way back survives the refusal

    elsewhere = _cite(curator_client, passage, "挹江門", "location", named["location"], "", next="https://x.example/")
    assert elsewhere["Location"].startswith(f"{reader}?seq={passage.seq}")


def test_the_service_applies_the_claim_rule(source: Source, named: dict[str, object]) -> None:
    passage = source.passages.get(seq=1)
    by = User.objects.get(username="factory-author")
    start = passage.text.index("离开司令部")
    with pytest.raises(ValidationError):
        citation_create(passage=passage, quote="离开司令部", start=start, end=start + 5, target_type="event",
                        target=named["event"], claim="", rank="normal", by=by)
    start = passage.text.index("唐孟潇")
    made = citation_create(passage=passage, quote="唐孟潇", start=start, end=start + 3, target_type="person",
                           target=named["person"], claim="", rank="normal", by=by)
    assert made.claim == MENTION_CLAIM


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_a_chinese_reader_is_offered_the_claim_templates_translated_and_stores_them_as_the_templates(
    curator_client: Client, source: Source, named: dict[str, object], language: str
) -> None:
    import html
    import json

    from django.utils import translation

    from archive.services.citations import CLAIM_TEMPLATES

    page = curator_client.get(
        reverse("archive_curate:reader", args=[source.slug]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    offered = json.loads(html.unescape(page.split('data-claims="', 1)[1].split('"', 1)[0]))["templates"]
    with translation.override(language):
        expected = {kind: [translation.gettext(t) for t in found] for kind, found in CLAIM_TEMPLATES.items()}
    assert offered == expected
    for kind, found in CLAIM_TEMPLATES.items():
        for template, shown in zip(found, offered[kind], strict=True):
            assert shown != template and not shown.isascii(), (kind, template)  # every one translated
            assert claim_for(kind, shown) == template  # chosen in Chinese, stored as the template
    # "named here" chosen in Chinese is a mention, as an empty claim is.
    response = _cite(curator_client, source.passages.get(seq=1), "第74军", "unit", named["unit"],
                     offered["unit"][0])
    assert response.status_code == 302
    assert Citation.objects.get(unit=named["unit"]).claim == MENTION_CLAIM
    assert claim_for("person", "指挥第74军") == "指挥第74军"  # a claim written out is kept as written
