"""Reads as of a date, a release or a version: the published state then, from the history, marked as a memento."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.test import Client
from django.utils import timezone

from archive.importing.releases import make_release
from archive.models import Location, Passage, Person, PersonName, Revision
from archive.services import decisions, records, revisions
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db

PATH = "/api/v1/persons/tang/"


@pytest.fixture
def history() -> dict[str, dt.datetime]:
    """唐生智 published, released, then changed by an approved revision with a new name."""
    author, reviewer = user("asof-author", role="curator"), user("asof-reviewer", role="reviewer")
    before = timezone.now()
    time.sleep(0.01)
    tang = approved(Person(slug="tang", name="唐生智", side="chinese", description="卫戍司令长官"),
                    author=author, reviewer=reviewer)
    PersonName.objects.create(person=tang, name="唐孟潇", kind="courtesy")
    source = source_with_text("唐生智离开司令部。\n", slug="hist")
    cite(Passage.objects.get(source=source, seq=1), "唐生智", person=tang)
    approved(Location(slug="nanjing", name="南京", kind="city"), author=author, reviewer=reviewer)
    make_release(by="operator", base_url="http://testserver")
    time.sleep(0.01)
    published = timezone.now()
    time.sleep(0.01)
    tang = Person.objects.get(slug="tang")
    tang.description = "南京卫戍司令长官，12日傍晚离城"
    revision = records.record_update(record=tang, by=author)
    revisions.approve_revision(
        revision=revision, by=reviewer, note="the order of 12 December says so", shown=decisions.revision_pin(revision)
    )
    return {"before": before, "published": published}


def _get(query: str) -> object:
    return Client().get(PATH + query, HTTP_ACCEPT="application/json")


def test_as_of_a_moment_answers_the_state_published_then_with_memento_headers(history: dict) -> None:
    current = _get("")  # read (and stored) first: the memento must not be answered from it
    assert current.json()["description"] == "南京卫戍司令长官，12日傍晚离城"

    then = _get(f"?as_of={history['published'].isoformat().replace('+00:00', 'Z')}")

    assert then.status_code == 200
    document = then.json()
    assert document["description"] == "卫戍司令长官"
    assert document["names"] == [{"name": "唐孟潇", "kind": "courtesy"}]
    assert [c["quote"] for c in document["citations"]] == ["唐生智"]
    assert document["memento"]["current"] == "http://testserver" + PATH
    assert then["Memento-Datetime"].endswith("GMT")
    assert 'rel="original latest-version"' in then["Link"] and 'rel="memento"' in then["Link"]
    # The permanent link answers the same state.
    permanent = Client().get(document["memento"]["permalink"])
    assert permanent.json()["description"] == "卫戍司令长官"
    assert permanent.json()["memento"]["version"] == document["memento"]["version"]


def test_a_date_reads_the_end_of_that_day_and_a_later_moment_the_change(history: dict) -> None:
    today = timezone.now().date().isoformat()
    assert _get(f"?as_of={today}").json()["description"] == "南京卫戍司令长官，12日傍晚离城"
    latest = _get(f"?as_of={today}").json()["memento"]
    assert latest["change"] and latest["version"] > _get("?release=1").json()["memento"]["version"]


def test_a_release_answers_the_version_it_holds(history: dict) -> None:
    released = _get("?release=1")
    assert released.status_code == 200 and released.json()["description"] == "卫戍司令长官"
    assert _get("?release=2").status_code == 404


def test_a_record_not_yet_published_then_is_a_404_and_bad_values_a_400(history: dict) -> None:
    assert _get(f"?as_of={history['before'].isoformat().replace('+00:00', 'Z')}").status_code == 404
    assert _get("?as_of=1937-13-45").status_code == 400
    assert _get("?release=0").status_code == 400
    assert _get("?version=x").status_code == 400
    assert _get("?as_of=2026-12-01&release=1").status_code == 400
    assert _get("?version=999").status_code == 404
    assert Client().get("/api/v1/persons/nobody/?as_of=2026-12-01").status_code == 404


def test_a_record_page_shows_its_version_and_a_permanent_link_that_answers_it(history: dict) -> None:
    page = Client().get("/people/tang/").content.decode()
    tang = Person.objects.get(slug="tang")
    link = f"/api/v1/persons/tang/?version={tang.version}"
    published = timezone.localtime(tang.reviewed_at)  # the page shows the archive's own time zone
    revision = Revision.objects.get(record_id=tang.pk, state="approved")  # the fixture's change came through it
    assert (f"Version {tang.version}, published {published:%Y-%m-%d}, changed by revision {revision.pk}." in page
            and f'href="{link}"' in page)
    assert Client().get(link).json()["description"] == tang.description


def test_a_list_as_of_a_moment_or_release_answers_the_records_published_then(history: dict) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = Client()
    moment = history["published"].isoformat().replace("+00:00", "Z")
    with CaptureQueriesContext(connection) as few:
        then = client.get(f"/api/v1/persons/?as_of={moment}")
    assert then.status_code == 200 and then["Memento-Datetime"].endswith("GMT")
    assert [(r["slug"], r["description"]) for r in then.json()["results"]] == [("tang", "卫戍司令长官")]
    assert client.get("/api/v1/persons/?release=1").json()["results"][0]["description"] == "卫戍司令长官"
    before = history["before"].isoformat().replace("+00:00", "Z")
    assert client.get(f"/api/v1/persons/?as_of={before}").json()["count"] == 0
    assert client.get(f"/api/v1/persons/?as_of={moment}&side=chinese").status_code == 400
    assert client.get("/api/v1/persons/?version=1").status_code == 400
    for n in range(5):
        approved(Person(slug=f"more-{n}", name=f"某{n}", side="chinese"))
    with CaptureQueriesContext(connection) as more:
        assert client.get(f"/api/v1/persons/?as_of={timezone.now().isoformat().replace('+00:00', 'Z')}").json()[
            "count"] == 6
    assert len(more) == len(few)


def test_a_moment_still_to_come_is_a_400_and_a_list_of_an_unknown_release_a_404(history: dict) -> None:
    client = Client()
    tomorrow = (timezone.now() + dt.timedelta(days=1)).date().isoformat()
    for path in (PATH, "/api/v1/persons/"):
        future = client.get(f"{path}?as_of={tomorrow}")
        assert future.status_code == 400 and "as_of" in future.json()
        assert client.get(f"{path}?as_of=2999-01-01T00:00Z").status_code == 400
    assert client.get("/api/v1/persons/?release=99").status_code == 404
    assert client.get("/api/v1/persons/?release=x").status_code == 400


def test_a_list_read_as_of_a_release_links_itself_as_a_memento(history: dict) -> None:
    answer = Client().get("/api/v1/persons/?release=1")
    assert answer.json()["memento"]["release"] == 1
    assert '<http://testserver/api/v1/persons/?release=1>; rel="memento"' in answer["Link"]
    moment = Client().get(f"/api/v1/units/?as_of={history['published'].isoformat().replace('+00:00', 'Z')}")
    assert moment.status_code == 200 and 'rel="memento"' in moment["Link"] and "release" not in moment.json()[
        "memento"]


def _source_with_history(text: str, slug: str) -> object:
    """A source whose passages have their history rows, as every import writes them."""
    source = source_with_text(text, slug=slug)
    Passage.history.bulk_history_create(list(Passage.objects.filter(source=source)))  # type: ignore[attr-defined]
    return source


def test_citations_passages_and_a_sources_passages_read_as_of_then(history: dict) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from archive.models import Citation

    source = _source_with_history("唐生智离开司令部。\n渡江而去。\n", "later-source")
    first = Citation.objects.get(quote="唐生智")
    tang = Person.objects.get(slug="tang")
    later = cite(Passage.objects.get(source=source, seq=1), "司令部", person=tang)
    client = Client()

    released = client.get("/api/v1/citations/?release=1").json()
    assert [(r["id"], r["quote"]) for r in released["results"]] == [(first.pk, "唐生智")]
    now = timezone.now().isoformat().replace("+00:00", "Z")
    assert {r["id"] for r in client.get(f"/api/v1/citations/?as_of={now}").json()["results"]} == {first.pk, later.pk}
    assert client.get(f"/api/v1/citations/{later.pk}/?release=1").status_code == 404
    detail = client.get(f"/api/v1/citations/{first.pk}/?release=1")
    assert detail.status_code == 200 and detail.json()["quote"] == "唐生智" and "Memento-Datetime" in detail

    assert client.get("/api/v1/sources/later-source/passages/?release=1").status_code == 404  # not yet published
    with CaptureQueriesContext(connection) as queries:
        passages = client.get(f"/api/v1/sources/later-source/passages/?as_of={now}")
    assert passages.status_code == 200 and passages["Memento-Datetime"].endswith("GMT")
    assert [(p["seq"], [c["quote"] for c in p["citations"]]) for p in passages.json()["results"]] == [
        (1, ["司令部"]), (2, [])]
    longer = _source_with_history("".join(f"第{n}句。\n" for n in range(1, 9)), "longer-source")
    for passage in Passage.objects.filter(source=longer):
        cite(passage, passage.text[:2], person=tang)
    now = timezone.now().isoformat().replace("+00:00", "Z")
    with CaptureQueriesContext(connection) as more:
        assert client.get(f"/api/v1/sources/longer-source/passages/?as_of={now}").json()["count"] == 8
    assert len(more) == len(queries)

    one = Passage.objects.get(source=source, seq=1)
    single = client.get(f"/api/v1/passages/{one.pk}/?as_of={now}")
    assert single.status_code == 200 and single.json()["text"] == one.text
    assert client.get(f"/api/v1/passages/{one.pk}/?release=1").status_code == 404
    assert client.get(f"/api/v1/passages/{one.pk}/?version=1").status_code == 400
    assert client.get("/api/v1/sources/later-source/passages/?as_of=2999-01-01").status_code == 400


@pytest.mark.django_db(transaction=True)  # the response cache keeps nothing inside a transaction
def test_an_answer_as_of_today_is_read_as_of_now_and_never_kept() -> None:
    from django.contrib.auth.models import Group, Permission
    from django.core.cache import caches

    from archive.api.caching import HIT_HEADER
    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)  # another transactional test's flush may have emptied the role groups
    caches["api"].clear()
    # (no release here: the database refuses to delete one when a transactional test empties the tables)
    approved(Person(slug="tang", name="唐生智", side="chinese"))
    time.sleep(0.01)
    published = timezone.now()
    today = published.date().isoformat()
    first = _get(f"?as_of={today}")
    time.sleep(0.01)
    second = _get(f"?as_of={today}")
    assert first.status_code == second.status_code == 200 and HIT_HEADER not in second
    assert second.json()["memento"]["read_as_of"] > first.json()["memento"]["read_as_of"]
    # A moment past is what it was: its answer is kept like any other.
    past = f"?as_of={published.isoformat().replace('+00:00', 'Z')}"
    assert HIT_HEADER not in _get(past)
    assert _get(past)[HIT_HEADER] == "hit"
