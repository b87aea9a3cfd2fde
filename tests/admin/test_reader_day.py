"""The reader for a curator's whole day, through the Django test client.

Filters and the jump live in the URL; citations fold into counts; suggested
mentions are cited with one click or as a batch of drafts; a new record is
made inside the cite dialog with its citation; a duplicate is refused.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from archive.models import Citation, Location, Person, PersonName, Source, Status, Unit
from archive.search import index as search_index
from archive.services import decisions, review
from archive.text import anchor
from tests.factories import approved, cite, source_with_text, user

pytestmark = pytest.mark.django_db


def _text(count: int) -> str:
    return "".join(f"第{n}段，部队经过下关。\n\n" if n % 7 == 0 else f"第{n}段文字。\n\n" for n in range(1, count + 1))


@pytest.fixture
def curator() -> User:
    return user("cur", role="curator")


@pytest.fixture
def client_of(curator: User) -> Client:
    client = Client()
    client.force_login(curator)
    return client


@pytest.fixture
def source() -> Source:
    found = source_with_text(_text(45), slug="hist", kind="history")
    search_index.reindex(found.passages.all())
    return found


def _reader(source: Source) -> str:
    return reverse("archive_curate:reader", args=[source.slug])


def _seqs(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'data-seq="(\d+)"', html)]


def test_the_reader_opens_a_short_page_and_pages_keep_the_filters(client_of: Client, source: Source) -> None:
    html = client_of.get(_reader(source)).content.decode()
    assert _seqs(html) == list(range(1, 21))
    page = client_of.get(_reader(source) + "?cited=no&page_size=10&page=2").content.decode()
    assert _seqs(page) == list(range(11, 21))
    assert "?cited=no&amp;page_size=10&amp;page=3" in page


def test_filters_uncited_mine_status_kind_fiction_and_words(client_of: Client, curator: User, source: Source) -> None:
    other = user("other", role="curator")
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    p7, p14, p21 = (source.passages.get(seq=n) for n in (7, 14, 21))
    mine = cite(p7, "下关", status=Status.DRAFT, location=xiaguan)
    Citation.objects.filter(pk=mine.pk).update(created_by=curator)
    cite(p14, "下关", status=Status.APPROVED, location=xiaguan)
    theirs = cite(p21, "下关", status=Status.REJECTED, location=xiaguan)
    Citation.objects.filter(pk=theirs.pk).update(created_by=other)
    get = lambda query: _seqs(client_of.get(_reader(source) + query).content.decode())  # noqa: E731
    assert 7 not in get("?cited=no") and 14 not in get("?cited=no")
    assert 21 in get("?cited=no"), "a rejected citation leaves its passage uncited"
    assert get("?cited=yes") == [7, 14]
    assert get("?mine=1") == [7]
    assert get("?status=rejected") == [21]
    assert get("?kind=location") == [7, 14, 21] and get("?kind=person") == []
    assert get("?fiction=no") == [7, 14, 21] and get("?fiction=yes") == []
    # Words of the text, folded: the Traditional 關 finds the Simplified 关.
    assert get("?q=下關") == [7, 14, 21, 28, 35, 42]


def test_unknown_filter_values_are_named_and_never_a_500(client_of: Client, source: Source) -> None:
    huge = client_of.get(_reader(source) + "?seq=99999999999999999999&focus=99999999999999999999", follow=True)
    assert huge.status_code == 200 and "This source has no passage" in huge.content.decode()
    response = client_of.get(_reader(source) + "?status=lost&page_size=7&kind=%00&seq=x", follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "This source has no passage §x." in text
    response = client_of.get(_reader(source) + "?status=lost&page_size=7")
    assert response.status_code == 200
    assert "Unknown value “lost” of “status”." in response.content.decode()
    assert _seqs(response.content.decode()) == list(range(1, 21))


def test_jump_to_a_passage_opens_its_page_at_its_anchor(client_of: Client, source: Source) -> None:
    response = client_of.get(_reader(source) + "?seq=37")
    assert response.status_code == 302
    assert response["Location"].endswith("?page=2&focus=37#passage-37")
    filtered = client_of.get(_reader(source) + "?cited=no&page_size=10&seq=§37")
    assert filtered["Location"].endswith("?cited=no&page_size=10&page=4&focus=37#passage-37")
    hidden = client_of.get(_reader(source) + "?cited=yes&seq=37", follow=True)
    assert "§37 is hidden by the filters; they are cleared." in hidden.content.decode()
    assert 37 in _seqs(hidden.content.decode())


def test_citations_fold_into_counts_by_status(client_of: Client, source: Source) -> None:
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    p7 = source.passages.get(seq=7)
    cite(p7, "下关", location=xiaguan)
    cite(p7, "部队经过", status=Status.DRAFT, location=xiaguan)
    cite(p7, "第7段", status=Status.DRAFT, claim="other", location=xiaguan)
    html = client_of.get(_reader(source)).content.decode()
    row = html.split('id="passage-7"', 1)[1].split("</li>\n    \n", 1)[0]
    summary = row.split("<summary>", 1)[1].split("</summary>", 1)[0]
    assert "1 approved" in summary.replace("\n", " ") or "1 Approved" in summary
    assert re.search(r"2\s+draft", summary, re.IGNORECASE)
    assert "<details" in row and " open" not in row.split("<details", 1)[1].split(">", 1)[0]


def test_reader_queries_do_not_grow_with_the_page(
    client_of: Client, source: Source, django_assert_max_num_queries: Any
) -> None:
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    for n in range(7, 46, 7):
        cite(source.passages.get(seq=n), "下关", location=xiaguan)
    client_of.get(_reader(source))  # warm the session and the caches
    with django_assert_max_num_queries(40) as small:
        client_of.get(_reader(source) + "?page_size=10")
    with django_assert_max_num_queries(len(small.captured_queries)):
        client_of.get(_reader(source) + "?page_size=50")


def test_one_click_cites_a_suggested_mention_and_submits_it(client_of: Client, source: Source) -> None:
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    p7 = source.passages.get(seq=7)
    html = client_of.get(_reader(source)).content.decode()
    key = f"location:{xiaguan.pk}:{p7.text.index('下关')}:{p7.text.index('下关') + 2}"
    assert f'value="{key}"' in html
    url = reverse("archive_curate:cite_mention", args=[p7.pk])
    response = client_of.post(url, {"key": key, "next": _reader(source) + "?cited=no"})
    # Back to the reader as it was left, at the passage cited.
    assert response.status_code == 302 and response["Location"] == _reader(source) + "?cited=no&focus=7#passage-7"
    citation = Citation.objects.get(location=xiaguan, passage=p7)
    assert citation.status == Status.IN_REVIEW and citation.quote == "下关"
    # Not suggested any more; a second post of the same key, or a forged one, writes nothing.
    assert f'value="{key}"' not in client_of.get(_reader(source)).content.decode()
    for forged in (key, f"location:{xiaguan.pk}:0:2", "person:1:0:1", ""):
        client_of.post(url, {"key": forged})
    assert Citation.objects.count() == 1


def _confirm_batch(client: Client, source: Source) -> Any:
    """Read the batch's preview and confirm it, as the curator does."""
    url = reverse("archive_curate:cite_all_mentions", args=[source.slug])
    preview = client.get(url)
    assert preview.status_code == 200
    digest = re.search(r'name="shown" value="([0-9a-f]+)"', preview.content.decode())
    return client.post(url, {"shown": digest.group(1) if digest else ""}, follow=True)


def test_the_batch_makes_drafts_only_and_four_eyes_still_hold(client_of: Client, curator: User, source: Source) -> None:
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    response = _confirm_batch(client_of, source)
    assert "6 draft citations made" in response.content.decode()
    made = Citation.objects.filter(location=xiaguan)
    assert made.count() == 6 and set(made.values_list("status", flat=True)) == {Status.DRAFT}
    assert set(made.values_list("created_by", flat=True)) == {curator.pk}
    one = made.first()
    assert one is not None
    review.submit(one, by=curator)
    with pytest.raises(Exception, match="contributed"):
        review.approve(one, by=curator, shown=decisions.record_pin(one))
    reviewer = user("rev", role="reviewer")
    assert review.approve(one, by=reviewer, shown=decisions.record_pin(one)).status == Status.APPROVED
    # Nothing left to suggest: a second batch makes nothing.
    _confirm_batch(client_of, source)
    assert Citation.objects.filter(location=xiaguan).count() == 6


def test_a_name_of_two_records_is_left_out_of_the_batch(client_of: Client, source: Source) -> None:
    approved(Location(slug="xiaguan", name="下关", kind="district"))
    approved(Location(slug="xiaguan-2", name="下关", kind="pier"))
    response = _confirm_batch(client_of, source)
    assert "6 names belong to more than one record" in response.content.decode()
    assert Citation.objects.count() == 0


def test_only_curators_may_cite_mentions(source: Source) -> None:
    approved(Location(slug="xiaguan", name="下关", kind="district"))
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    client = Client()
    client.force_login(viewer)
    assert client.post(reverse("archive_curate:cite_all_mentions", args=[source.slug])).status_code == 403
    assert client.get(reverse("archive_curate:cite_all_mentions", args=[source.slug])).status_code in (403, 405)
    assert Citation.objects.count() == 0


def _cite_post(passage, words: str, **fields: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    start = passage.text.index(words)
    return {
        "start": str(anchor.codepoint_to_utf16(passage.text, start)),
        "end": str(anchor.codepoint_to_utf16(passage.text, start + len(words))),
        "quote": words,
        "claim": "named",
        "rank": "normal",
        **fields,
    }


def test_a_new_person_is_made_and_cited_in_one_submit(client_of: Client) -> None:
    source = source_with_text("唐司令於12日傍晚離開。\n", kind="history", language="zh-Hant")
    passage = source.passages.get(seq=1)
    defaults_url = reverse("archive_curate:new_record_defaults")
    defaults = client_of.get(defaults_url, {"type": "person", "words": "唐司令"}).json()
    assert defaults == {"name": "唐司令", "slug": "tang-siling", "words_kind": "primary"}
    traditional = client_of.get(reverse("archive_curate:new_record_defaults"), {"type": "location", "words": "離開"})
    assert traditional.json()["name"] == "离开" and traditional.json()["words_kind"] == "traditional"
    approved(Person(slug="tang-shengzhi", name="唐生智"))
    taken = client_of.get(reverse("archive_curate:new_record_defaults"), {"type": "person", "name": "唐生智"}).json()
    assert taken["slug"] == "tang-shengzhi-2"
    post = _cite_post(passage, "唐司令", target_type="person", target_id="", new_name="唐生智",
                      new_words_kind="title", _submit="1")
    response = client_of.post(reverse("archive_curate:cite", args=[passage.pk]), post)
    assert response.status_code == 302, response.content.decode()[:2000]
    person = Person.objects.get(slug="tang-shengzhi-2")
    assert person.name == "唐生智" and person.status == Status.IN_REVIEW
    assert list(PersonName.objects.filter(person=person).values_list("name", "kind", "script")) == [
        ("唐司令", "title", "Hans")
    ]
    citation = Citation.objects.get(person=person)
    assert citation.status == Status.IN_REVIEW and citation.quote == "唐司令"


def test_a_new_record_missing_what_its_model_needs_writes_nothing(client_of: Client) -> None:
    source = source_with_text("第74军撤退。\n")
    passage = source.passages.get(seq=1)
    post = _cite_post(passage, "第74军", target_type="unit", target_id="", new_name="第74军", _save="1")
    response = client_of.post(reverse("archive_curate:cite", args=[passage.pk]), post)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert Unit.objects.count() == 0 and Citation.objects.count() == 0
    post["new_echelon"] = "army"
    assert client_of.post(reverse("archive_curate:cite", args=[passage.pk]), post).status_code == 302
    unit = Unit.objects.get()
    assert (unit.slug, unit.status) == ("di-74-jun", Status.DRAFT)


def test_a_curator_without_the_right_to_add_persons_cannot_make_one(source: Source) -> None:
    limited = User.objects.create_user("limited", password="pw", is_staff=True)
    from django.contrib.auth.models import Permission

    # Everything the cite page shows, and citing, but not adding persons.
    views = [f"view_{name}" for name in ("source", "passage", "citation", "person", "unit", "location", "event",
                                          "post", "participation")]
    limited.user_permissions.add(*Permission.objects.filter(content_type__app_label="archive",
                                                            codename__in=["add_citation", *views]))
    client = Client()
    client.force_login(limited)
    passage = source.passages.get(seq=1)
    post = _cite_post(passage, "第1段", target_type="person", target_id="", new_name="某人", _save="1")
    response = client.post(reverse("archive_curate:cite", args=[passage.pk]), post)
    assert response.status_code == 200 and "You may not make a new record of this kind." in response.content.decode()
    assert Person.objects.count() == 0 and Citation.objects.count() == 0


def test_a_duplicate_citation_is_refused_with_a_link_to_the_existing_one(client_of: Client, source: Source) -> None:
    xiaguan = approved(Location(slug="xiaguan", name="下关", kind="district"))
    p7 = source.passages.get(seq=7)
    existing = cite(p7, "下关", location=xiaguan)
    post = _cite_post(p7, "下关", target_type="location", target_id=str(xiaguan.pk), _save="1")
    response = client_of.post(reverse("archive_curate:cite", args=[p7.pk]), post)
    html = response.content.decode()
    assert response.status_code == 200 and "already cite this record" in html
    assert reverse("admin:archive_citation_change", args=[existing.pk]) in html
    assert Citation.objects.count() == 1
    # Another record for the same words is no duplicate.
    other = approved(Location(slug="xiaguan-pier", name="下关码头", kind="pier"))
    post["target_id"] = str(other.pk)
    assert client_of.post(reverse("archive_curate:cite", args=[p7.pk]), post).status_code == 302


def test_the_target_picker_folds_traditional_and_simplified(client_of: Client) -> None:
    sun = approved(Person(slug="sun-baili", name="孫百里"))
    found = client_of.get(reverse("archive_curate:targets"), {"type": "person", "q": "孙"}).json()["results"]
    assert [r["id"] for r in found] == [sun.pk]
    by_pinyin = client_of.get(reverse("archive_curate:targets"), {"type": "person", "q": "sun baili"}).json()
    assert [r["id"] for r in by_pinyin["results"]] == [sun.pk]


def test_the_index_is_paged_searchable_and_shows_coverage(client_of: Client) -> None:
    for n in range(25):
        source_with_text(f"第{n}篇。\n", slug=f"src-{n:02d}")
    first = client_of.get(reverse("archive_curate:index")).content.decode()
    assert first.count('class="reader-link"') == 20 and "page 1 of 2" in first
    found = client_of.get(reverse("archive_curate:index"), {"q": "src-07"}).content.decode()
    assert found.count('class="reader-link"') == 1 and "0 / 1 (0%)" in found


def test_a_refused_citation_undoes_the_batch_and_says_why(
    client_of: Client, source: Source, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.exceptions import ValidationError

    from archive import fiction

    approved(Location(slug="xiaguan", name="下关", kind="district"))
    made = []

    def refuse_after_the_write(*args: Any, **kwargs: Any) -> int:
        # The drafts and their history rows are written by now: the refusal must take them back.
        made.extend(Citation.objects.values_list("pk", flat=True))
        raise ValidationError("refused for the test")

    monkeypatch.setattr(fiction, "refresh", refuse_after_the_write)
    response = _confirm_batch(client_of, source)
    assert len(made) >= 2, "the drafts were made before the refusal"
    assert Citation.objects.count() == 0 and not Citation.history.exists(), "and rolled back with it"
    assert response.status_code == 200
    assert '<li class="error">Refused for the test</li>' in response.content.decode()
