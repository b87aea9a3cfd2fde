"""The API's search as of a moment or a release: names, aliases and passage text as they stood then."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from archive import search
from archive.importing.releases import make_release
from archive.importing.source_text import import_source
from archive.models import Passage, Person, PersonName, Source, Status
from tests.factories import approved, user

pytestmark = pytest.mark.django_db

SEARCH = "/api/v1/search/"


def _import(path: Path, text: str, *, slug: str = "hist", kind: str = "history", replace: bool = False) -> Source:
    path.write_text(text, encoding="utf-8")
    import_source(path=path, slug=slug, title=f"史 {slug}", kind=kind, language="zh-Hans", replace=replace)
    return Source.objects.get(slug=slug)


def _z(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.fixture
def moment(tmp_path: Path) -> dt.datetime:
    """The archive at a moment (also release 1); after it a person, an alias and a rewritten passage."""
    author, reviewer = user("search-author", role="curator"), user("search-reviewer", role="reviewer")
    tang = approved(Person(slug="tang", name="唐生智", side="chinese"), author=author, reviewer=reviewer)
    PersonName.objects.create(person=tang, name="唐孟潇", kind="courtesy")
    hist = _import(tmp_path / "hist.txt", "唐生智离开司令部，渡江。\n\n唐部渡江而去。\n")
    approved(hist, author=author, reviewer=reviewer)
    novel = _import(tmp_path / "novel.txt", "渡江之夜。\n", slug="novel", kind="novel")
    approved(novel, author=author, reviewer=reviewer)
    make_release(by="operator", base_url="http://testserver")
    time.sleep(0.01)
    then = timezone.now()
    time.sleep(0.01)
    approved(Person(slug="luo", name="罗卓英", side="chinese"), author=author, reviewer=reviewer)
    PersonName.objects.create(person=tang, name="唐总司令", kind="title")
    # A published text is never replaced in place; an operator's change of status lets the re-import run.
    Source.objects.filter(slug="hist").update(status=Status.DRAFT)
    approved(_import(tmp_path / "hist.txt", "唐生智离开司令部，渡江。\n\n乘船离去。\n", replace=True),
             author=author, reviewer=reviewer)
    return then


def _hits(query: str) -> list[tuple[str, str]]:
    answer = Client().get(SEARCH + query)
    assert answer.status_code == 200, answer.content
    return [(hit["type"], hit["title"]) for hit in answer.json()["results"]]


def test_a_search_as_of_then_finds_the_names_and_text_of_then(moment: dt.datetime) -> None:
    at = f"&as_of={_z(moment)}"
    # Now: the rewritten passage, the later person and the later alias are found; the old words are not.
    assert _hits("?q=乘船") == [("passage", "史 hist §2")]
    assert _hits("?q=渡江") == [("passage", "史 hist §1")]
    assert ("person", "罗卓英") in _hits("?q=罗卓英") and ("person", "唐生智") in _hits("?q=唐总司令")
    # Then: the passage's words then, and none of what came later.
    assert _hits("?q=渡江" + at) == [("passage", "史 hist §1"), ("passage", "史 hist §2")]
    assert _hits("?q=乘船" + at) == []
    assert _hits("?q=罗卓英" + at) == []
    assert _hits("?q=唐总司令" + at) == []
    assert _hits("?q=唐孟潇" + at) == [("person", "唐生智")]
    assert ("passage", "史 hist §1") in _hits("?q=司令部" + at)  # a passage unchanged since, from the index
    # A release holds the same state; fiction follows the source's flag then.
    assert _hits("?q=渡江&release=1") == [("passage", "史 hist §1"), ("passage", "史 hist §2")]
    # (passages rewritten since come after the others)
    assert _hits("?q=渡江&fiction=include" + at) == [
        ("passage", "史 hist §1"), ("passage", "史 novel §1"), ("passage", "史 hist §2")]
    assert _hits("?q=渡江&fiction=only" + at) == [("passage", "史 novel §1")]


def test_a_search_as_of_then_is_marked_as_a_memento_and_links_the_current_search(moment: dt.datetime) -> None:
    answer = Client().get(f"{SEARCH}?q=渡江&as_of={_z(moment)}")
    body = answer.json()
    assert answer["Memento-Datetime"].endswith("GMT")
    assert body["memento"]["current"] == "http://testserver/api/v1/search/?q=%E6%B8%A1%E6%B1%9F"
    assert f'<{body["memento"]["current"]}>; rel="original latest-version"' in answer["Link"]
    marked = body["results"][0]["snippet"]
    assert "<mark>渡江</mark>" in marked
    permanent = Client().get(body["memento"]["permalink"])
    assert permanent.status_code == 200 and permanent.json()["results"] == body["results"]
    released = Client().get(f"{SEARCH}?q=渡江&release=1").json()
    assert released["memento"]["release"] == 1 and "release=1" in released["memento"]["permalink"]


def test_a_search_as_of_pages_across_records_and_passages(moment: dt.datetime) -> None:
    at = f"&as_of={_z(moment)}"
    # A person's name then, a passage from the index and one rewritten since: three kinds of hit.
    whole = _hits("?q=唐&page_size=50" + at)
    assert whole == [("person", "唐生智"), ("passage", "史 hist §1"), ("passage", "史 hist §2")]
    paged = [hit for page in (1, 2, 3) for hit in _hits(f"?q=唐&page_size=1&page={page}" + at)]
    assert paged == whole
    assert _hits("?q=唐&page_size=2&page=2" + at) == whole[2:]
    assert Client().get(f"{SEARCH}?q=唐{at}").json()["count"] == 3


def test_bad_as_of_and_release_values_are_named(moment: dt.datetime) -> None:
    client = Client()
    for query, name in (("?q=唐&as_of=1937-13-45", "as_of"), ("?q=唐&release=0", "release"),
                        ("?q=唐&as_of=2026-01-01&release=1", "release"),
                        (f"?q=唐&as_of={(timezone.now() + dt.timedelta(days=2)).date()}", "as_of")):
        answer = client.get(SEARCH + query)
        assert answer.status_code == 400 and name in answer.json(), (query, answer.content)
    assert client.get(f"{SEARCH}?q=唐&release=9").status_code == 404
    assert client.get(f"{SEARCH}?q=唐&version=1").status_code == 400


def test_too_much_changed_since_is_refused_by_name(moment: dt.datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    from archive.search import as_of

    # Since the moment one passage was rewritten and one person changed (an alias added); no unit changed.
    monkeypatch.setattr(as_of, "REWRITTEN_LIMIT", 0)
    for kind, said in (("passage", "passages were rewritten"), ("person", "records of one kind changed")):
        answer = Client().get(f"{SEARCH}?q=渡江&as_of={_z(moment)}&type={kind}")
        assert answer.status_code == 400 and said in answer.json()["as_of"][0], answer.content
    assert Client().get(f"{SEARCH}?q=渡江&as_of={_z(moment)}&type=unit").status_code == 200


def test_the_rewritten_passage_is_read_from_its_history(moment: dt.datetime) -> None:
    passage = Passage.objects.get(source__slug="hist", seq=2)
    assert passage.text.startswith("乘船")
    found = search.find_as_of("渡江", {"as_of": _z(moment)})[:5]
    assert [hit.id for hit in found][-1] == passage.pk and "<mark>渡江</mark>而去" in found[-1].snippet
