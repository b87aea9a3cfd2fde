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

from archive import search
from archive.importing.releases import make_release
from archive.models import Event, Location, Participation, Passage, Person, PersonName, Post, Revision, Statement, Unit
from archive.services import decisions, records, revisions
from tests.factories import approved, cite, publish_change, source_with_text, user

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
    hq = approved(Unit(slug="hq", name="卫戍司令部", side="chinese"), author=author, reviewer=reviewer)
    approved(Location(slug="nanjing", name="南京", kind="city"), author=author, reviewer=reviewer)
    leaves = approved(Event(slug="leaves", title="唐生智离城", description="渡江"), author=author, reviewer=reviewer)
    # What the person's and the event's pages show besides their own fields: a post, a participation, an account.
    post = approved(Post(slug="tang-hq", person=tang, unit=hq, title="司令长官"), author=author, reviewer=reviewer)
    approved(Participation(slug="tang-leaves", event=leaves, person=tang, role="escaped"), author=author,
             reviewer=reviewer)
    approved(Statement(slug="leaves-date", field="date", value="1937-12-12", as_written="十二日傍晚", event=leaves,
                       basis="reference", reference="《南京保卫战》"), author=author, reviewer=reviewer)
    make_release(by="operator", base_url="http://testserver")
    time.sleep(0.01)
    published = timezone.now()
    time.sleep(0.01)
    publish_change(post, title="首都卫戍司令长官")
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


def test_posts_participations_and_accounts_are_read_as_of_then_too(history: dict) -> None:
    client = Client()
    assert "首都卫戍司令长官" in client.get("/api/v1/persons/tang/").content.decode()
    person = client.get("/api/v1/persons/tang/?release=1").json()
    assert [(p["slug"], p["unit"], p["title"]) for p in person["posts"]] == [("tang-hq", "hq", "司令长官")]
    event = client.get("/api/v1/events/leaves/?release=1").json()
    assert [(p["person"], p["role"]) for p in event["participations"]] == [("tang", "escaped")]
    assert [(s["field"], s["as_written"]) for s in event["statements"]] == [("date", "十二日傍晚")]
    page = client.get(f"{PAGE}?release=1").content.decode()
    assert "司令长官" in page and "首都卫戍司令长官" not in page and 'href="/units/hq/"' in page
    assert "十二日傍晚" in client.get("/events/leaves/?release=1").content.decode()
    # Before the post was published, the person's memento has none.
    assert client.get(f"/api/v1/persons/tang/?version={history['first_version']}").json()["posts"]


def _home(client: Client, query: str) -> Any:
    return client.get(f"/?{query}")


def test_the_home_lists_as_a_release_holds_them_are_marked_linked_and_cited(history: dict) -> None:
    client = Client()
    released = _home(client, "release=1")
    assert released.status_code == 200
    page = released.content.decode()
    assert "The archive as release 1 holds it" in page
    assert f'href="{PAGE}?version={history["first_version"]}"' in page  # each record at the version listed
    assert 'href="/" rel="original latest-version"' in page
    assert released["Memento-Datetime"].endswith("GMT")
    assert '<http://testserver/>; rel="original latest-version"' in released["Link"]
    assert '<http://testserver/?release=1>; rel="memento"' in released["Link"]
    cite_block = page[page.index('class="cite"'):]
    assert "Release 1." in cite_block and "http://testserver/?release=1." in cite_block
    assert 'href="/releases/#release-1"' in cite_block or "/releases/#release-1" in cite_block
    # Before anything was published, the lists are empty; the current home page is not a memento.
    before = _home(client, f"as_of={_z(history['before'])}").content.decode()
    assert f'href="{PAGE}' not in before and "The archive as published at" in before
    assert "Memento-Datetime" not in client.get("/")


def test_the_home_lists_as_of_a_moment_take_the_same_queries_whatever_their_length(history: dict) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = Client()
    with CaptureQueriesContext(connection) as few:
        assert _home(client, "as_of=" + _z(timezone.now())).status_code == 200
    for n in range(3):
        approved(Person(slug=f"later-{n}", name=f"后来{n}", side="chinese"))
        approved(Unit(slug=f"later-unit-{n}", name=f"后来部队{n}", side="chinese"))
    with CaptureQueriesContext(connection) as more:
        page = _home(client, "as_of=" + _z(timezone.now())).content.decode()
    assert 'href="/people/later-2/?version=' in page
    assert len(more) == len(few)


@pytest.mark.parametrize(("query", "status"), [
    ("as_of=yesterday", 400), ("as_of=2999-01-01", 400), ("as_of=2999-01-01T00:00Z", 400), ("release=0", 400),
    ("version=1", 400), ("as_of=2026-12-01&release=1", 400), ("release=99", 404),
])
def test_the_home_lists_refuse_what_they_cannot_read(history: dict, query: str, status: int) -> None:
    assert _home(Client(), query).status_code == status


def test_the_archive_as_of_a_release_downloads_as_a_reference(history: dict) -> None:
    import json

    client = Client()
    item = json.loads(client.get("/cite/archive/?format=csl&release=1").content)[0]
    assert item["URL"] == "http://testserver/?release=1" and item["version"] == "release 1"
    moment = _z(history["published"])
    ris = client.get(f"/cite/archive/?format=ris&as_of={moment}").content.decode()
    assert "UR  - http://testserver/?as_of=" in ris
    assert client.get("/cite/archive/?format=ris").status_code == 400
    assert client.get("/cite/archive/?format=bibtex&release=9").status_code == 404


def test_a_source_reads_as_published_then_with_the_citations_then(history: dict) -> None:
    source = source_with_text("唐生智离开司令部。\n渡江而去。\n", slug="room-later")
    # Every import writes its passages' history (archive/importing/bulk.py); the factory's bulk write does not.
    Passage.history.bulk_history_create(list(Passage.objects.filter(source=source)))  # type: ignore[attr-defined]
    tang = Person.objects.get(slug="tang")
    cite(Passage.objects.get(source=source, seq=2), "渡江", person=tang)
    client = Client()
    answer = client.get(f"/sources/room-later/?as_of={_z(timezone.now())}")
    assert answer.status_code == 200 and answer["Memento-Datetime"].endswith("GMT")
    page = answer.content.decode()
    assert "渡江而去。" in page and "<q lang=\"zh\">渡江</q>" in page and "The archive as published at" in page
    assert 'href="/sources/room-later/" rel="original latest-version"' in page
    assert '<http://testserver/sources/room-later/>; rel="original latest-version"' in answer["Link"]
    assert client.get("/sources/room-later/?release=1").status_code == 404  # published after the release
    assert client.get(f"/sources/room-later/?as_of={_z(history['before'])}").status_code == 404
    assert client.get(f"/sources/room-later/?as_of={_z(timezone.now())}&page=x").status_code == 400
    assert client.get(f"/sources/room-later/?as_of={_z(timezone.now())}&page=9").status_code == 404


def test_the_search_reads_the_archive_then_links_each_hit_then_and_says_so(history: dict) -> None:
    client = Client()
    at = _z(history["published"])  # type: ignore[arg-type]
    PersonName.objects.create(person=Person.objects.get(slug="tang"), name="唐总司令", kind="title")
    assert 'href="/people/tang/"' in client.get("/search/?q=唐总司令").content.decode()

    later = client.get(f"/search/?q=唐总司令&as_of={at}")
    assert later.status_code == 200 and 'href="/people/tang/' not in later.content.decode()
    then = client.get(f"/search/?q=唐孟潇&as_of={at}")
    page = then.content.decode()
    assert f'href="/people/tang/?as_of={at}"' in page
    assert 'class="memento-notice"' in page and f'<input type="hidden" name="as_of" value="{at}">' in page
    assert then["Memento-Datetime"].endswith("GMT")
    assert '<http://testserver/search/?q=%E5%94%90%E5%AD%9F%E6%BD%87>; rel="original latest-version"' in then["Link"]
    search.rebuild()  # the passage index, as an import keeps it
    released = client.get("/search/?q=司令部&release=1").content.decode()
    assert 'href="/sources/room-hist/?release=1#p-1"' in released
    for query, name in (("as_of=1937-13-45", "as_of"), ("version=1", "version"), ("release=0", "release")):
        refused = client.get(f"/search/?q=唐&{query}")
        assert refused.status_code == 400 and f"“{name}”" in refused.content.decode(), query
