"""Record pages as published at a moment, in a release or as a version: marked as mementos, bad values a 400."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from archive.importing.releases import make_release
from archive.models import Event, Location, Passage, Person, PersonName, Revision, Unit
from archive.services import decisions, records, revisions
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

PAGE = "/people/tang/"


def _z(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.fixture(scope="module")
def _history(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, object]]:
    """Made once for the module (a release is the slow part), rolled back after it."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield _published_then_changed()
        transaction.set_rollback(True)


@pytest.fixture
def history(_history: dict[str, object], db: None) -> dict[str, object]:
    return _history


def _published_then_changed() -> dict[str, object]:
    """唐生智 published and released, then changed by an approved revision; a unit, a place and an event beside."""
    author, reviewer = user("room-asof-author", role="curator"), user("room-asof-reviewer", role="reviewer")
    before = timezone.now()
    time.sleep(0.01)
    tang = approved(Person(slug="tang", name="唐生智", side="chinese", description="卫戍司令长官"),
                    author=author, reviewer=reviewer)
    PersonName.objects.create(person=tang, name="唐孟潇", kind="courtesy")
    source = source_with_text("唐生智离开司令部。\n", slug="room-hist")
    cite(Passage.objects.get(source=source, seq=1), "唐生智", person=tang)
    approved(Unit(slug="hq", name="卫戍司令部", side="chinese"), author=author, reviewer=reviewer)
    approved(Location(slug="nanjing", name="南京", kind="city"), author=author, reviewer=reviewer)
    approved(Event(slug="leaves", title="唐生智离城", description="渡江"), author=author, reviewer=reviewer)
    make_release(by="operator", base_url="http://testserver")
    time.sleep(0.01)
    published = timezone.now()
    time.sleep(0.01)
    tang = Person.objects.get(slug="tang")
    first_version = tang.version
    tang.description = "南京卫戍司令长官，12日傍晚离城"
    revision = records.record_update(record=tang, by=author)
    revisions.approve_revision(revision=revision, by=reviewer, note="the order of 12 December says so",
                                shown=decisions.revision_pin(revision))
    return {"before": before, "published": published, "first_version": first_version,
            "revision": Revision.objects.get(pk=revision.pk)}


def test_as_of_shows_the_record_as_published_then_marked_and_linked_to_the_current(history: dict) -> None:
    client = Client()
    assert "南京卫戍司令长官" in client.get(PAGE).content.decode()

    then = client.get(f"{PAGE}?as_of={_z(history['published'])}")

    assert then.status_code == 200
    page = then.content.decode()
    assert "卫戍司令长官" in page and "12日傍晚离城" not in page
    assert "唐孟潇" in page and "“唐生智”" in page  # its names and evidence then
    assert f"version {history['first_version']}." in page and "As published on" in page
    assert f'href="{PAGE}" rel="original latest-version"' in page
    assert then["Memento-Datetime"].endswith("GMT")
    assert f'<http://testserver{PAGE}>; rel="original latest-version"' in then["Link"]
    assert f'<http://testserver{PAGE}?version={history["first_version"]}>; rel="memento"' in then["Link"]


def test_release_and_version_answer_the_same_state_and_a_later_date_the_change(history: dict) -> None:
    client = Client()
    released = client.get(f"{PAGE}?release=1").content.decode()
    permanent = client.get(f"{PAGE}?version={history['first_version']}").content.decode()
    assert "12日傍晚离城" not in released and "12日傍晚离城" not in permanent
    today = client.get(f"{PAGE}?as_of={timezone.now().date().isoformat()}")
    assert "12日傍晚离城" in today.content.decode()
    assert f"Changed by revision {history['revision'].pk}." in today.content.decode()


@pytest.mark.parametrize("path", ["/units/hq/", "/places/nanjing/", "/events/leaves/"])
def test_every_record_page_answers_a_release(history: dict, path: str) -> None:
    answer = Client().get(f"{path}?release=1")
    assert answer.status_code == 200 and "Memento-Datetime" in answer
    assert f'href="{path}" rel="original latest-version"' in answer.content.decode()


def test_a_record_not_published_then_is_a_404(history: dict) -> None:
    client = Client()
    assert client.get(f"{PAGE}?as_of={_z(history['before'])}").status_code == 404
    assert client.get(f"{PAGE}?as_of=1937-12-13").status_code == 404
    assert client.get(f"{PAGE}?release=2").status_code == 404
    assert client.get(f"{PAGE}?version=999").status_code == 404
    assert client.get("/people/nobody/?as_of=2026-12-01").status_code == 404


@pytest.mark.parametrize(("query", "name"), [
    ("as_of=1937-13-45", "as_of"),
    ("as_of=yesterday", "as_of"),
    ("as_of=2026-12-01T25:61:00Z", "as_of"),
    ("as_of=" + "9" * 5000, "as_of"),
    ("as_of=", "as_of"),
    ("as_of=2026-02-30", "as_of"),
    ("as_of=99999-01-01T00:00Z", "as_of"),
    ("release=0", "release"),
    ("release=-1", "release"),
    ("release=１", "release"),  # a full-width digit
    ("release=99999999999999999999", "release"),
    ("version=x", "version"),
    ("version=1.5", "version"),
    ("as_of=2026-12-01&release=1", "release"),
    ("release=1&version=1", "version"),
])
def test_a_value_that_cannot_be_read_is_a_400_naming_its_parameter(history: dict, query: str, name: str) -> None:
    answer = Client().get(f"{PAGE}?{query}")
    assert answer.status_code == 400
    assert f"“{name}”" in answer.content.decode()


def test_a_nul_in_a_memento_parameter_is_a_400(history: dict) -> None:
    assert Client().get(PAGE, {"as_of": "2026-12-01\x00"}).status_code == 400


def test_a_fictional_record_is_not_shown_as_of_a_date_with_fiction_left_out(history: dict) -> None:
    invented = approved(Person(slug="invented", name="虚构者", side="chinese", fictional=True))
    client = Client()
    assert client.get(f"/people/invented/?version={invented.version}").status_code == 404
    assert client.get(f"/people/invented/?version={invented.version}&fiction=include").status_code == 200


def test_the_version_line_names_the_revision_and_links_the_permanent_version(history: dict) -> None:
    tang = Person.objects.get(slug="tang")
    page = Client().get(PAGE).content.decode()
    published = timezone.localtime(tang.reviewed_at)
    assert (f"Version {tang.version}, published {published:%Y-%m-%d}, changed by revision "
            f"{history['revision'].pk}.") in page
    assert f'href="{PAGE}?version={tang.version}" rel="bookmark"' in page
    permanent = Client().get(f"{PAGE}?version={tang.version}").content.decode()
    assert "12日傍晚离城" in permanent and f"Changed by revision {history['revision'].pk}." in permanent
    # A record never changed by a revision says only its version and date.
    unit = Client().get("/units/hq/").content.decode()
    hq = Unit.objects.get(slug="hq")
    assert "changed by revision" not in unit and f"Version {hq.version}, published" in unit


def test_a_page_read_as_of_a_moment_cites_that_version(history: dict) -> None:
    client = Client()
    first = history["first_version"]
    page = client.get(f"{PAGE}?as_of={_z(history['published'])}").content.decode()
    permanent = f"http://testserver{PAGE}?version={first}"
    cite_block = page[page.index('class="cite"'):]
    assert f"{permanent}." in cite_block
    assert f'<meta name="citation_public_url" content="{permanent}">' in page
    download = client.get(f"/cite/people/tang/?format=ris&as_of={_z(history['published'])}").content.decode()
    assert f"UR  - {permanent}" in download and f"ET  - {first}" in download
    current = Person.objects.get(slug="tang").version
    assert current != first
    assert f"http://testserver{PAGE}?version={current}" in client.get(PAGE).content.decode()
