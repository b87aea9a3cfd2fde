"""Every page of the reading room on the shipped collection: 200 for what is public, 404 for what is not.

No page shows an unapproved record, nor a fictional one unless the reader asked for fiction.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from archive.models import Event, Location, Person, Source, Status, Unit

pytestmark = pytest.mark.usefixtures("shipped")

ROUTES = {Person: "people", Unit: "units", Location: "places", Event: "events", Source: "sources"}
PICTURES = ("/", "/timeline/", "/map/", "/order-of-battle/")
FICTION_FIELD = {Source: "is_fiction"}


def _get(path: str) -> Any:
    return Client().get(path)


def _records(model: type, *, fictional: bool) -> list[Any]:
    field = FICTION_FIELD.get(model, "fictional")
    return list(model.objects.filter(status=Status.APPROVED, **{field: fictional}))  # type: ignore[attr-defined]


def _hidden_paths(*, fictional: bool) -> set[str]:
    return {
        f"/{route}/{record.slug}/" for model, route in ROUTES.items() for record in _records(model, fictional=fictional)
    }


def _linked_paths(html: str) -> set[str]:
    return {match.split("?")[0].split("#")[0] for match in re.findall(r'href="([^"]+)"', html)}


def test_fictional_records_answer_only_when_fiction_is_asked() -> None:
    fictional = sorted(_hidden_paths(fictional=True))
    assert fictional, "the shipped collection has fiction"
    for path in fictional:
        assert _get(path).status_code == 404, path
        assert _get(f"{path}?fiction=include").status_code == 200, path
        assert _get(f"{path}?fiction=only").status_code == 200, path


@pytest.mark.parametrize("route", sorted(ROUTES.values()))
def test_unknown_slug_is_404(route: str) -> None:
    assert _get(f"/{route}/no-such-record/").status_code == 404
    assert _get(f"/{route}/no-such-record/?fiction=include").status_code == 404


def test_every_public_page_answers_200_and_links_no_fiction_by_default() -> None:
    # One walk for both: rendering every record's page is the slow part.
    fictional = _hidden_paths(fictional=True)
    pages = [*PICTURES, "/timeline/?from=1937-12-01&to=1938-04-01", *sorted(_hidden_paths(fictional=False))]
    for path in pages:
        response = _get(path)
        assert response.status_code == 200, path
        leaked = _linked_paths(response.content.decode()) & fictional
        assert not leaked, (path, leaked)


def test_fiction_is_linked_when_asked() -> None:
    html = _get("/?fiction=include").content.decode()
    assert "/sources/webnovel-zhutian-changjinhu/" in _linked_paths(html)
    assert "/sources/webnovel-zhutian-changjinhu/" not in _linked_paths(_get("/").content.decode())


def test_unapproved_records_are_on_no_page() -> None:
    draft = Event.objects.create(
        slug="draft-crossing", title="未审核的渡江", kind="crossing", date="1937-12-12",
        earliest="1937-12-12T10:00:00+08:00", latest="1937-12-12T11:00:00+08:00", status=Status.DRAFT,
    )
    draft.locations.add(Location.objects.get(slug="xiaguan"))
    person = Person.objects.create(slug="draft-person", name="未审核的人", status=Status.DRAFT)
    for path in (*PICTURES, "/places/xiaguan/", "/timeline/?place=xiaguan"):
        html = _get(path).content.decode()
        assert "未审核" not in html, path
    assert _get("/events/draft-crossing/").status_code == 404
    assert _get(f"/people/{person.slug}/").status_code == 404
    assert _get("/timeline/?person=draft-person").status_code == 400


@pytest.mark.parametrize(
    ("query", "parameter"),
    [("fiction=maybe", "fiction"), ("from=yesterday", "from"), ("to=1937-12-10", "to"),
     ("person=nobody", "person"), ("unit=none", "unit"), ("place=nowhere", "place")],
)
def test_bad_parameters_are_400_naming_them(query: str, parameter: str) -> None:
    response = _get(f"/timeline/?{query}")
    assert response.status_code == 400
    assert f"“{parameter}”" in response.content.decode()
    assert _get(f"/map/?{query}").status_code == 400


def test_nul_characters_are_refused_not_sent_to_the_database() -> None:
    assert _get("/people/tang%00shengzhi/").status_code == 404
    response = _get("/timeline/?person=tang%00")
    assert response.status_code == 400
    assert "“person”" in response.content.decode()


def test_bad_page_of_an_edition() -> None:
    assert _get("/sources/history-nanjing-retreat/?page=zero").status_code == 400
    assert _get("/sources/history-nanjing-retreat/?page=999").status_code == 404
    assert _get(f"/sources/history-nanjing-retreat/?page={10 ** 30}").status_code == 404
    assert _get("/sources/history-nanjing-retreat/?page=２").status_code == 400


@pytest.mark.parametrize("path", [*PICTURES, "/sources/history-nanjing-retreat/", "/events/yijiangmen-crush/",
                                  "/people/tang-shengzhi/", "/units/nanjing-garrison/", "/places/nanjing/"])
def test_pages_cost_a_fixed_number_of_queries(path: str, django_assert_max_num_queries: Any) -> None:
    with django_assert_max_num_queries(20):
        assert _get(path).status_code == 200
    with django_assert_max_num_queries(20):
        assert _get(f"{path}?fiction=include").status_code == 200
