"""A list asked for without filters builds no filter set, and answers as one with empty filters does."""

from __future__ import annotations

from typing import Any

import django_filters
import pytest

from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

# Each list, and one of its filters.
LISTS = {"sources": "kind", "persons": "side", "units": "echelon", "locations": "kind", "events": "kind",
         "citations": "rank"}


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the filter sets built, in order."""
    names: list[str] = []
    original = django_filters.FilterSet.__init__

    def counting(self: django_filters.FilterSet, *args: Any, **kwargs: Any) -> None:
        names.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(django_filters.FilterSet, "__init__", counting)
    return names


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0


@pytest.mark.parametrize("kind", LISTS)
def test_a_list_without_filters_builds_no_filter_set(world: World, api: ApiClient, built: list[str], kind: str) -> None:
    plain = api.json(f"/api/v1/{kind}/", page_size=200)
    assert built == []
    assert plain["count"] == len(plain["results"]) > 0
    # A filter named with an empty value is given, so its form is built; it filters nothing.
    empty = api.json(f"/api/v1/{kind}/", page_size=200, **{LISTS[kind]: ""})
    assert len(built) == 1
    assert empty["results"] == plain["results"] and empty["count"] == plain["count"]


def test_a_filter_given_is_still_checked_and_applied(world: World, api: ApiClient, built: list[str]) -> None:
    everything = api.json("/api/v1/persons/", page_size=200)["results"]
    chinese = api.json("/api/v1/persons/", page_size=200, side="chinese")["results"]
    assert built == ["PersonFilter"]
    assert 0 < len(chinese) < len(everything)
    assert all(person["side"] == "chinese" for person in chinese)
    refused = api.get("/api/v1/persons/", {"side": "martian"})
    assert refused.status_code == 400 and "side" in refused.json()
    assert api.get("/api/v1/persons/", {"sides": "chinese"}).status_code == 400  # not a filter: refused, as before


def test_a_filter_set_copies_only_the_filters_given(world: World, api: ApiClient,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of the events' nine filters would be deep-copied with its querysets; only those given are."""
    made: list[set[str]] = []
    original = django_filters.FilterSet.__init__

    def recording(self: django_filters.FilterSet, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(set(self.filters))

    monkeypatch.setattr(django_filters.FilterSet, "__init__", recording)
    tang = api.json("/api/v1/events/", person="tang-shengzhi", page_size=200)
    assert made == [{"person"}]
    both = api.json("/api/v1/events/", person="tang-shengzhi", kind="order", page_size=200)
    assert made[1] == {"person", "kind"}
    assert tang["count"] > 0
    assert [event["slug"] for event in both["results"]] == [
        event["slug"] for event in tang["results"] if event["kind"] == "order"
    ]
    # A bad value of a given filter is still refused in its words, an unknown parameter still refused.
    refused = api.get("/api/v1/events/", {"person": "no-such-person", "kind": "order"})
    assert refused.status_code == 400 and set(refused.json()) == {"person"}
    assert api.get("/api/v1/events/", {"person": "tang-shengzhi", "persons": "x"}).status_code == 400
