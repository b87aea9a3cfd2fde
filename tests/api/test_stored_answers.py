"""Plain reads of one record, or of a list's page, answered from a stored document before the view.

(`archive.api.stored_answers`.)

Such an answer must be the view's answer, headers and all, and must never
be given where the view would answer otherwise: another format or reading,
a record that is not shown, a document a write has made stale, a client
the throttle refuses.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from rest_framework.throttling import AnonRateThrottle

from archive.api import stored
from archive.api.caching import HIT_HEADER
from archive.api.pagination import ArchivePagination
from archive.api.stored_answers import BUILT, STORED
from archive.client_address import forget_all_clients
from archive.models import DocumentVersion, Person, StoredDocument
from tests.api.world import HIDDEN, World
from tests.factories import approved, publish_change

pytestmark = pytest.mark.django_db

BASE = "/api/v1"
MIDDLEWARE = "archive.api.stored_answers.StoredAnswerMiddleware"
# Set per request, not by the document.
PER_REQUEST = {"X-Request-ID", HIT_HEADER}


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


def _details(world: World) -> dict[str, str]:
    return {
        "source": f"{BASE}/sources/{world.history.slug}/",
        "fictional source": f"{BASE}/sources/{world.novel.slug}/",
        "person": f"{BASE}/persons/{world.tang.slug}/",
        "unit": f"{BASE}/units/{world.div51.slug}/",
        "location": f"{BASE}/locations/{world.gate.slug}/",
        "event": f"{BASE}/events/{world.order.slug}/",
        "fictional event": f"{BASE}/events/{world.breakout.slug}/",
        "passage": f"{BASE}/passages/{world.passage(world.history, 1).pk}/",
        "fictional passage": f"{BASE}/passages/{world.passage(world.novel, 1).pk}/",
        "citation": f"{BASE}/citations/{world.history_cite.pk}/",
        "fictional citation": f"{BASE}/citations/{world.novel_cite.pk}/",
    }


@pytest.fixture
def details(world: World) -> dict[str, str]:
    paths = _details(world)
    for path in paths.values():  # each document built and stored by its first reader
        assert Client().get(path, {"fiction": "include"}).status_code == 200
        assert Client().get(path).status_code == 200
    return paths


def _through_the_view() -> override_settings:
    return override_settings(MIDDLEWARE=[name for name in settings.MIDDLEWARE if name != MIDDLEWARE])


def _headers(response: Any) -> dict[str, str]:
    return {name: value for name, value in response.items() if name not in PER_REQUEST}


def test_a_plain_detail_is_the_views_answer_headers_and_all(details: dict[str, str]) -> None:
    for name, path in details.items():
        answered = Client().get(path, HTTP_ORIGIN="https://maps.example.org")
        assert answered[HIT_HEADER] == STORED, name
        with _through_the_view():
            viewed = Client().get(path, HTTP_ORIGIN="https://maps.example.org")
        assert viewed.get(HIT_HEADER) != STORED, name
        assert (answered.status_code, answered.content) == (viewed.status_code, viewed.content), name
        assert _headers(answered) == _headers(viewed), name
        for header in ("ETag", "Last-Modified", "Allow", "X-Frame-Options", "Access-Control-Allow-Origin"):
            assert answered[header], (name, header)


def test_a_plain_detail_costs_one_statement(details: dict[str, str]) -> None:
    for name, path in details.items():
        with CaptureQueriesContext(connection) as queries:
            response = Client().get(path)
        assert response[HIT_HEADER] == STORED, name
        assert len(queries) == 1, (name, [query["sql"] for query in queries])


@pytest.mark.parametrize("spelling", ["", "*/*", "application/json", " application/json "])
def test_accept_headers_that_mean_plain_json_are_answered(details: dict[str, str], spelling: str) -> None:
    assert Client().get(details["person"], HTTP_ACCEPT=spelling)[HIT_HEADER] == STORED


@pytest.mark.parametrize(
    ("path_of", "request_kwargs"),
    [
        ("person", {"data": {"fiction": "include"}}),
        ("person", {"data": {"format": "jsonld"}}),
        ("person", {"HTTP_ACCEPT": "application/ld+json"}),
        ("person", {"HTTP_ACCEPT": "application/json; indent=2"}),
        ("source", {"HTTP_ACCEPT": "application/tei+xml"}),
        ("location", {"data": {"format": "geojson"}}),
        ("citation", {"data": {"unknown": "1"}}),
    ],
)
def test_another_format_or_reading_goes_to_the_view(details: dict[str, str], path_of: str,
                                                     request_kwargs: dict[str, Any]) -> None:
    response = Client().get(details[path_of], **request_kwargs)
    assert response.get(HIT_HEADER) != STORED
    assert response.status_code in (200, 400)


def test_other_methods_and_a_sources_passages_go_to_the_view(details: dict[str, str]) -> None:
    client = Client()
    assert client.head(details["event"]).get(HIT_HEADER) != STORED
    refused = client.post(details["event"], {})
    assert refused.status_code == 405
    for _ in range(2):
        assert client.get(f"{BASE}/sources/history/passages/").get(HIT_HEADER) != STORED


@pytest.mark.parametrize(
    "path",
    [
        f"{BASE}/persons/nobody/",
        f"{BASE}/passages/007x/",
        f"{BASE}/passages/99999999/",
        f"{BASE}/citations/-1/",
        f"{BASE}/persons/tang%00shengzhi/",
        f"{BASE}/nothing/here/",
    ],
)
def test_a_path_that_names_no_record_is_the_views_json_404(details: dict[str, str], path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 404
    assert response.get(HIT_HEADER) != STORED


def test_a_record_that_is_not_shown_is_never_answered(world: World, details: dict[str, str]) -> None:
    secrets = [
        f"{BASE}/{plural}/secret-{status.replace('_', '-')}-{kind}/"
        for plural, kind in (("sources", "source"), ("persons", "person"), ("units", "unit"),
                             ("locations", "location"), ("events", "event"))
        for status in HIDDEN
    ]
    secrets += [f"{BASE}/passages/{passage.pk}/" for passage in world.secret_passages]
    for path in secrets:
        response = Client().get(path)
        assert response.status_code == 404, path
        assert response.get(HIT_HEADER) != STORED, path


def test_a_stale_document_is_built_again_and_stored(world: World, details: dict[str, str]) -> None:
    """On PostgreSQL by the stored answers in one statement (`stored.built_detail`), elsewhere by the view."""
    before = Client().get(details["person"]).content
    DocumentVersion.objects.bump_everything()  # a write that bypassed the services' refresh
    rebuilt = Client().get(details["person"])
    if connection.vendor == "postgresql":
        assert rebuilt.get(HIT_HEADER) == BUILT
    else:
        assert rebuilt.get(HIT_HEADER) not in (STORED, BUILT)
    assert rebuilt.content == before
    assert Client().get(details["person"])[HIT_HEADER] == STORED  # stored again


def test_a_write_changes_the_answer_of_what_it_touched_and_of_nothing_else(world: World,
                                                                          details: dict[str, str]) -> None:
    before = {name: Client().get(path).content for name, path in details.items()}
    publish_change(world.order, title="唐生智下令全军撤退")
    after = {name: Client().get(path) for name, path in details.items()}
    assert "唐生智下令全军撤退" in after["event"].content.decode()
    assert "唐生智下令全军撤退" in after["person"].content.decode()  # his participation names the event
    changed = {name for name in details if after[name].content != before[name]}
    assert changed == {"event", "person"}
    with _through_the_view():
        for name, path in details.items():
            assert Client().get(path).content == after[name].content, name


def test_a_conditional_read_of_a_stored_answer_is_304(details: dict[str, str]) -> None:
    first = Client().get(details["event"])
    again = Client().get(details["event"], HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    since = Client().get(details["event"], HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304


def test_stored_answers_are_throttled_with_the_rest_of_the_api(details: dict[str, str], monkeypatch: Any) -> None:
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    forget_all_clients()  # the fixture's reads were counted at the usual rate
    answers = [Client().get(details["unit"]) for _ in range(3)]
    assert [answer.get(HIT_HEADER) for answer in answers] == [STORED] * 3
    refused = Client().get(details["unit"])
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "detail" in refused.json()
    assert Client().get(f"{BASE}/events/").status_code == 429  # the same allowance as the views'


def test_without_stored_documents_nothing_is_answered_early(details: dict[str, str], settings: Any) -> None:
    settings.API_STORED_DOCUMENTS = False
    response = Client().get(details["person"])
    assert response.status_code == 200
    assert response.get(HIT_HEADER) != STORED


def test_only_current_rows_are_read(world: World, details: dict[str, str]) -> None:
    """A row left behind under an older version is never the answer, even if the view is not asked."""
    tag = stored.KINDS["person"].tag(world.tang.slug)
    StoredDocument.objects.filter(tag=tag).update(body='{"forged": true}', tag_version=-1)
    response = Client().get(details["person"])
    assert b"forged" not in response.content
    assert response.get(HIT_HEADER) != STORED


# Lists whose pages are stored whole, and spellings of their first and second pages (of one record each).
LISTS = ("sources", "persons", "units", "locations", "events", "citations")
FIRST = ("", "page=1", "page_size=1", "page=1&page_size=1")
SECOND = ("page=2", "page=2&page_size=1", "page_size=1&page=2")


@pytest.fixture
def small_pages(monkeypatch: Any) -> None:
    monkeypatch.setattr(ArchivePagination, "page_size", 1)  # the test archive has a few records of each kind


def _spellings(plural: str) -> tuple[str, ...]:
    """The spellings of the first page, and of the second where the list has one."""
    return FIRST + (SECOND if Client().get(f"{BASE}/{plural}/").json()["next"] else ())


def _page(plural: str, query: str) -> str:
    return f"{BASE}/{plural}/" + (f"?{query}" if query else "")


def _page_rows() -> int:
    return StoredDocument.objects.filter(variant__startswith=stored.PAGE_PREFIX).count()


@pytest.mark.usefixtures("small_pages")
def test_a_page_as_first_shown_is_stored_by_its_view_and_then_answered_as_the_view_answers(world: World) -> None:
    spellings = {plural: _spellings(plural) for plural in LISTS}
    assert all(len(spellings[plural]) == len(FIRST + SECOND) for plural in ("events", "citations", "persons"))
    StoredDocument.objects.filter(variant__startswith=stored.PAGE_PREFIX).delete()
    for plural in LISTS:
        for query in spellings[plural]:
            path = _page(plural, query)
            built = Client().get(path, HTTP_ORIGIN="https://maps.example.org")
            assert built.status_code == 200, path
            assert built.get(HIT_HEADER) != STORED, path
            answered = Client().get(path, HTTP_ORIGIN="https://maps.example.org")
            assert answered[HIT_HEADER] == STORED, path
            with _through_the_view():
                viewed = Client().get(path, HTTP_ORIGIN="https://maps.example.org")
            assert (answered.status_code, answered.content) == (viewed.status_code, viewed.content), path
            assert _headers(answered) == _headers(viewed), path
            assert answered.content == built.content, path
    assert _page_rows() == sum(len(found) for found in spellings.values())


@pytest.mark.usefixtures("small_pages")
def test_a_stored_pages_links_name_the_host_that_reads_it(world: World, settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["testserver", "mirror.example.org"]
    Client().get(_page("events", "page=2"))
    mirrored = Client().get(_page("events", "page=2"), HTTP_HOST="mirror.example.org")
    assert mirrored[HIT_HEADER] == STORED
    links = mirrored.json()
    assert links["previous"] == "http://mirror.example.org/api/v1/events/"
    assert links["next"] == "http://mirror.example.org/api/v1/events/?page=3"
    assert b"testserver" not in mirrored.content


def test_a_stored_page_costs_one_statement(world: World) -> None:
    Client().get(_page("events", ""))
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(_page("events", ""))
    assert response[HIT_HEADER] == STORED
    assert len(queries) == 1, [query["sql"] for query in queries]


@pytest.mark.usefixtures("small_pages")
@pytest.mark.parametrize(
    "query",
    [
        "page_size=2",  # not the default size
        "page=02",
        "page=last",
        "page=%32",
        "page=2&page=2",
        "page=2&",
        "page",
        "fiction=include",
        "kind=order",
        "format=json",
        "page=99",  # past the end: the view's 404
    ],
)
def test_any_other_page_goes_to_the_view_and_is_never_stored(world: World, query: str) -> None:
    for _ in range(2):
        response = Client().get(_page("events", query))
        assert response.get(HIT_HEADER) != STORED
        assert response.status_code in (200, 400, 404)
    assert _page_rows() == 0


def test_pages_are_not_stored_in_another_format_or_reading(world: World) -> None:
    for request_kwargs in ({"HTTP_ACCEPT": "application/ld+json"}, {"HTTP_ACCEPT": "application/json; indent=2"}):
        for _ in range(2):
            assert Client().get(_page("events", ""), **request_kwargs).get(HIT_HEADER) != STORED
    assert _page_rows() == 0


@pytest.mark.usefixtures("small_pages")
def test_a_write_makes_the_pages_of_the_lists_it_touched_stale_and_no_others(world: World) -> None:
    pages = {f"{plural} {query}": _page(plural, query) for plural in LISTS for query in ("", "page=2")
             if query in _spellings(plural)}
    for path in pages.values():
        Client().get(path)
    publish_change(world.order, title="唐生智下令全军撤退")
    after = {name: Client().get(path) for name, path in pages.items()}
    rebuilt = {name for name, response in after.items() if response.get(HIT_HEADER) != STORED}
    assert {"events ", "events page=2", "persons ", "persons page=2"} <= rebuilt
    assert "sources " not in rebuilt  # no source shows the event
    assert "唐生智下令全军撤退" in "".join(response.content.decode() for response in after.values())
    with _through_the_view():
        for name, path in pages.items():
            assert Client().get(path).content == after[name].content, name
    assert all(Client().get(path)[HIT_HEADER] == STORED for path in pages.values())  # stored again by the views


def test_a_forged_or_stale_page_is_never_read(world: World) -> None:
    Client().get(_page("persons", ""))
    StoredDocument.objects.filter(variant__startswith=stored.PAGE_PREFIX).update(body='{"forged": true}',
                                                                                 tag_version=-1)
    response = Client().get(_page("persons", ""))
    assert b"forged" not in response.content
    assert response.get(HIT_HEADER) != STORED


def test_a_record_named_list_is_not_confused_with_its_lists_pages(world: World) -> None:
    approved(Person(slug="list", name="名单"))
    Client().get(_page("persons", ""))
    Client().get(f"{BASE}/persons/list/")
    assert set(stored.details(stored.KINDS["person"], "list")) == {"exclude"}
    answered = Client().get(f"{BASE}/persons/list/")
    assert answered[HIT_HEADER] == STORED
    assert answered.json()["slug"] == "list"
    assert Client().get(_page("persons", ""))[HIT_HEADER] == STORED


@pytest.mark.parametrize(
    ("query", "variant"),
    [
        ("", "page:1:"),
        ("page=3", "page:3:p"),
        ("page_size=50&page=3", "page:3:sp"),
        ("page=3&page_size=50", "page:3:ps"),
        ("page_size=50", "page:1:s"),
        ("page_size=5", None),
        ("page=0", None),
        ("page=-1", None),
        ("page=１", None),  # a full-width digit
        ("page=1234567890123", None),  # too long to be a variant, and far past any list's end
        ("page=2&page_size=50&page_size=50", None),
        ("q=x", None),
    ],
)
def test_the_variant_of_a_page_is_its_number_and_the_spelling_of_its_query(query: str, variant: str | None) -> None:
    assert stored.page_variant(query, 50) == variant


def test_refreshing_after_a_write_leaves_stored_pages_to_their_readers(world: World) -> None:
    detail = f"{BASE}/events/{world.order.slug}/"
    Client().get(_page("events", ""))
    Client().get(detail)
    tags = {stored.KINDS["event"].tag("list"), stored.KINDS["event"].tag(world.order.slug)}
    assert stored.refresh(tags) == 1  # the event's own document; its list's page is built by the list's view
    assert Client().get(detail)[HIT_HEADER] == STORED


def test_a_long_path_is_answered_without_being_remembered(world: World) -> None:
    from archive.api.stored_answers import _resolved

    _resolved.cache_clear()
    long_slug = "x" * 600
    for _ in range(2):
        assert Client().get(f"{BASE}/persons/{long_slug}/").status_code == 404
    assert Client().get(_page("persons", "")).status_code == 200
    assert _resolved.cache_info().currsize == 1  # the list's path; never the long one


def test_a_stored_page_the_view_is_asked_for_is_read_not_built_again(world: World) -> None:
    """A browser's Accept, or HEAD, reaches the view: a current stored page is its answer, as for a detail."""
    first = Client().get(_page("events", ""))
    browser = "text/html,application/xhtml+xml,*/*;q=0.8"
    with CaptureQueriesContext(connection) as queries:
        viewed = Client().get(_page("events", ""), HTTP_ACCEPT=browser)
    assert viewed.get(HIT_HEADER) != STORED
    assert viewed.content == first.content
    assert viewed["ETag"] == first["ETag"]
    assert not [query for query in queries if "INSERT" in query["sql"]]
    assert len(queries) == 1, [query["sql"] for query in queries]
