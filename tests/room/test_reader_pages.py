"""Every room page in English, 简体 and 繁體 reads as a reader reads: no stored code, no untranslated choice.

A stored code is a record's slug or an enumerated value as kept in the
database (`participant`, `web-novel`, `True`); on the Chinese pages the
English label of a choice is untranslated too. The archive's own prose
(descriptions, claims, reasonings, notes) is data in whatever language the
curator wrote it and is left out of the check; so are attributes and
scripts, which the reader does not read.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.conf import settings
from django.db import models
from django.test import Client
from django.utils import translation

from archive.client_address import forget_all_clients
from archive.models import (
    Echelon,
    Event,
    EventKind,
    Location,
    LocationKind,
    NameKind,
    ParticipationRole,
    PassageRole,
    Person,
    Rank,
    Script,
    Side,
    Source,
    SourceKind,
    Status,
    Unit,
)
from archive.models.statements import Basis, StatementField

pytestmark = pytest.mark.usefixtures("shipped")

LANGUAGES = [code for code, _name in settings.LANGUAGES]
CHOICES: list[type[models.TextChoices]] = [
    Echelon, EventKind, LocationKind, NameKind, ParticipationRole, PassageRole, Rank, Script, Side, SourceKind,
    StatementField, Basis,
]
PROSE = {"description", "claim", "reasoning", "note", "reference", "precision", "names"}
ROUTES = {Person: "people", Unit: "units", Location: "places", Event: "events", Source: "sources"}


# The pages the first reports came from, read in every language.
ALWAYS = ["/events/meeting-1700-12-december/", "/people/tang-shengzhi/", "/places/nanjing/"]


class _ReaderText(HTMLParser):
    """The text a reader reads outside the archive's prose, one string per text node."""

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in {"script", "style", "title", "option"} or bool(classes & PROSE)
        self.stack.append(skipped or (bool(self.stack) and self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]) and data.strip():
            self.texts.append(data.strip())


def _read(html: str) -> list[str]:
    parser = _ReaderText()
    parser.feed(html)
    return parser.texts


def _says(text: str, words: str) -> bool:
    """Whether `words` stand in `text` as whole words (a code's hyphens are part of it)."""
    return words in text and re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", text) is not None


# A slug stands alone where a whole run of word characters, hyphens and slashes is the slug (not a URL's part).
_RUNS = re.compile(r"[\w/-]+")


def _pages() -> list[str]:
    """Every page of the room a reader reaches without fiction: the pictures, the lists and each record's page."""
    paths = ["/", "/timeline/", "/map/", "/night/", "/order-of-battle/", "/releases/", "/search/?q=唐"]
    for model, route in ROUTES.items():
        field = "is_fiction" if model is Source else "fictional"
        slugs = model.objects.filter(  # type: ignore[attr-defined]
            status=Status.APPROVED, **{field: False}).order_by("slug").values_list("slug", flat=True)
        paths += [f"/{route}/{slug}/" for slug in slugs]
    return paths


@pytest.fixture(scope="module")
def codes(shipped_collection: None, django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        slugs = {slug for model in ROUTES for slug in model.objects.values_list("slug", flat=True)  # type: ignore[attr-defined]
                 if "-" in slug}
        pages = _pages()
    raw = {str(c.value) for choice in CHOICES for c in choice if str(c.value) != str(c.label)}
    with translation.override("en"):
        english = {str(c.label) for choice in CHOICES for c in choice}
    return {"slugs": slugs, "raw": raw | {"True", "False"}, "english": english,
            "longest_first": sorted(english, key=len, reverse=True), "pages": pages}


@pytest.fixture(scope="module")
def remembered(shipped_collection: None) -> dict[str, dict[tuple[Any, ...], Any]]:
    """What the walk has read, kept from one language's walk to the next (the walk writes nothing)."""
    return {"records": {}, "revisions": {}, "querysets": {}}


@pytest.fixture
def read_once(remembered: dict[str, dict[tuple[Any, ...], Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A record page's reads, which no language changes, done once for the three languages of the walk.

    The record with its prefetched evidence and the revision that published
    it are the same whatever language the page is written in; all the rest of
    the view (its words, the values put into words, the template) runs for
    each language. Only the walk reads through this: the tests after it
    change the collection.
    """
    from archive import selectors
    from archive.room import views

    visible, revision = views._visible, views._revision
    records, revisions, querysets = remembered["records"], remembered["revisions"], remembered["querysets"]

    class RecordReads:
        """`archive.selectors` as the record views call it: a record's queryset made once for each mode."""

        KINDS = frozenset({"persons", "units", "locations", "events"})

        def __getattr__(self, name: str) -> Any:
            found = getattr(selectors, name)
            if name not in self.KINDS:
                return found

            def made_once(mode: Any) -> Any:
                if (name, mode) not in querysets:
                    querysets[name, mode] = found(mode)
                return querysets[name, mode]

            return made_once

    def remembered_visible(queryset: Any, mode: Any, slug: str, field: str = "fictional") -> Any:
        key = (queryset.model, mode, slug, field)
        if key not in records:
            records[key] = visible(queryset, mode, slug, field)
        return records[key]

    def remembered_revision(record: Any) -> Any:
        key = (type(record), record.pk, record.version)
        if key not in revisions:
            revisions[key] = revision(record)
        return revisions[key]

    monkeypatch.setattr(views, "selectors", RecordReads())
    monkeypatch.setattr(views, "_visible", remembered_visible)
    monkeypatch.setattr(views, "_revision", remembered_revision)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_reads_without_stored_codes(language: str, codes: dict[str, Any], read_once: None) -> None:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    chinese = language != "en"
    problems = []
    assert set(ALWAYS) <= set(codes["pages"])
    for path in codes["pages"]:
        forget_all_clients()  # hundreds of pages: the room's rate is not what is tested here
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["Content-Language"] == language, path
        texts = _read(response.content.decode())
        joined = "\n".join(texts)
        slugs = codes["slugs"].intersection(_RUNS.findall(joined))
        english = {label for label in codes["english"] if chinese and _says(joined, label)}
        # A stored code may be a word of a label ("garrison" of "garrison command"): labels are read first.
        unlabelled = joined
        for label in codes["longest_first"]:
            if label in unlabelled:
                unlabelled = re.sub(rf"(?<![\w-]){re.escape(label)}(?![\w-])", " ", unlabelled)
        raw = {value for value in codes["raw"] if _says(unlabelled, value)}
        if slugs or raw or english:
            problems.append((path, sorted(slugs), sorted(raw), sorted(english)))
    assert not problems, problems[:10]



def _quoted(html: str) -> list[str]:
    return re.findall(r'class="quote"[^>]*data-citation="(\d+)"', html)


@pytest.fixture
def mentioned(shipped: None) -> set[int]:
    """Two passages that name 唐生智 cited as mentions ("named here"), as the curators' mention button cites them."""
    from archive.models import Passage
    from archive.services.mentions import MENTION_CLAIM
    from tests.factories import cite

    person = Person.objects.get(slug="tang-shengzhi")
    made = set()
    for passage in Passage.objects.filter(text__contains="唐生智", source__is_fiction=False).order_by("pk")[:2]:
        made.add(cite(passage, "唐生智", claim=MENTION_CLAIM, person=person).pk)
    assert len(made) == 2
    return made


@pytest.mark.parametrize("path", ["/events/meeting-1700-12-december/", "/people/tang-shengzhi/", "/places/nanjing/"])
def test_each_quotation_is_printed_once(path: str) -> None:
    quoted = _quoted(Client().get(path).content.decode())
    assert quoted, path
    assert len(quoted) == len(set(quoted)), sorted(pk for pk in set(quoted) if quoted.count(pk) > 1)


def test_mentions_are_counted_and_folded_after_the_statements(mentioned: set[int]) -> None:
    html = Client().get("/people/tang-shengzhi/").content.decode()
    folded = re.findall(r'<details class="mentions"><summary>(.*?)</summary>(.*?)</details>', html, re.S)
    assert [{int(pk) for pk in _quoted(body)} for _summary, body in folded] == [mentioned]
    assert str(len(mentioned)) in folded[0][0]
    statements = set(_quoted(html)) - {str(pk) for pk in mentioned}
    assert statements
    assert max(html.index(f'data-citation="{pk}"') for pk in statements) < html.index('<details class="mentions">')


# --- cite and reuse -----------------------------------------------------------------------------------------------

CITED_PAGES = ["/people/tang-shengzhi/", "/units/74th-army/", "/places/nanjing/", "/events/meeting-1700-12-december/",
               "/sources/history-nanjing-retreat/"]


def _meta(html: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, content in re.findall(r'<meta name="([^"]+)" content="([^"]*)">', html):
        found.setdefault(name, []).append(content)
    return found


@pytest.mark.parametrize("path", CITED_PAGES)
def test_every_record_and_source_page_says_how_to_cite_and_reuse_it(path: str) -> None:
    import json

    from django.utils import timezone

    client = Client()
    html = client.get(path).content.decode()
    head = html[: html.index("</head>")]
    meta = _meta(head)
    permanent = meta["DC.identifier"][0]
    assert permanent.startswith(f"http://testserver{path}")
    assert meta["citation_title"] and meta["citation_public_url"] == [permanent]
    ld = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', head, re.S).group(1))
    assert ld["@context"] == "https://schema.org" and ld["url"] == permanent and ld["name"] == meta["citation_title"][0]
    cite_block = html[html.index('class="cite"'):]
    assert f"{permanent}." in cite_block and timezone.localdate().isoformat() in cite_block
    links = dict.fromkeys(re.findall(r'href="([^"]+)"', cite_block.replace("&amp;", "&")))
    data_links = [link for link in links if "/api/v1/" in link]
    assert data_links, path
    for link in data_links:
        assert client.get(link).status_code == 200, link
    if path.startswith("/sources/"):
        assert any("format=tei" in link for link in data_links)
    else:
        assert any("format=jsonld" in link for link in data_links)
    downloads = [link for link in links if link.startswith("/cite/")]
    assert len(downloads) == 3
    for link in downloads:
        response = client.get(link)
        assert response.status_code == 200, link
        assert "attachment" in response["Content-Disposition"]
        body = response.content.decode()
        assert permanent in body, (link, body)
        if "format=csl" in link:
            assert json.loads(body)[0]["URL"] == permanent
        elif "format=bibtex" in link:
            assert body.startswith("@") and body.rstrip().endswith("}")
        else:
            assert body.startswith("TY  - ") and "ER  - " in body


@pytest.mark.parametrize("path, status", [
    ("/cite/people/tang-shengzhi/?format=docx", 400), ("/cite/people/tang-shengzhi/", 400),
    ("/cite/dragons/tang-shengzhi/?format=ris", 404), ("/cite/people/no-such/?format=ris", 404),
    ("/cite/people/tang-shengzhi/?format=ris&as_of=%00", 400),
])
def test_a_reference_that_cannot_be_made_is_a_clear_refusal(path: str, status: int) -> None:
    assert Client().get(path).status_code == status


def test_a_fictional_record_is_cited_only_when_fiction_is_asked() -> None:
    novel = Person.objects.filter(status=Status.APPROVED, fictional=True).order_by("slug").first()
    assert novel is not None
    assert Client().get(f"/cite/people/{novel.slug}/?format=ris").status_code == 404
    assert Client().get(f"/cite/people/{novel.slug}/?format=ris&fiction=include").status_code == 200


def test_favicon_and_robots_are_served_by_the_app() -> None:
    icon = Client().get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/vnd.microsoft.icon"
    assert icon.content[:4] == b"\x00\x00\x01\x00"
    robots = Client().get("/robots.txt")
    assert robots.status_code == 200 and "Disallow: /admin/" in robots.content.decode()


# --- fiction marked where it shows ---------------------------------------------------------------------------------


def _fictional_paths() -> set[str]:
    paths = set()
    for model, route in ROUTES.items():
        field = "is_fiction" if model is Source else "fictional"
        paths |= {f"/{route}/{slug}/" for slug in model.objects.filter(  # type: ignore[attr-defined]
            status=Status.APPROVED, **{field: True}).values_list("slug", flat=True)}
    return paths


def test_with_fiction_on_every_listed_fictional_record_is_marked(django_assert_max_num_queries: Any) -> None:
    fictional = _fictional_paths()
    novel_event = Event.objects.filter(status=Status.APPROVED, fictional=True).order_by("slug").first()
    assert novel_event is not None and fictional
    pages = ["/", f"/events/{novel_event.slug}/", "/search/?q=孫百里"]
    unmarked, marked = [], 0
    for path in pages:
        with django_assert_max_num_queries(25):
            html = Client().get(path, {"fiction": "include"}).content.decode()
        for item in re.split(r"<li\b", html)[1:]:
            item = re.split(r"<li\b|</li>|<ul\b", item)[0]
            link = re.search(r'href="([^"?#]+)', item)
            if link and link.group(1) in fictional:
                marked += 1
                if 'class="badge fiction"' not in item:
                    unmarked.append((path, link.group(1)))
    assert marked and not unmarked, unmarked


# --- the order of battle tied to time -----------------------------------------------------------------------------


def test_the_order_of_battle_says_which_posts_are_undated_and_when_the_others_were_held() -> None:
    from archive.models import Post
    from archive.room.battle import held_words

    posts = list(Post.objects.filter(status=Status.APPROVED, fictional=False).select_related("person"))
    dated = [post for post in posts if post.date_from or post.date_to]
    assert dated and len(dated) < len(posts)
    for path in ("/order-of-battle/", "/night/?at=1937-12-12T21:00"):
        html = Client().get(path).content.decode()
        shown = re.findall(r'<span class="bounds( undated)?">([^<]*)</span>', html)
        assert len(shown) == len(posts), path
        assert sum(1 for undated, _words in shown if undated) == len(posts) - len(dated), path
        with translation.override("en"):
            for post in dated:
                assert held_words(post.date_from, post.date_to) in {words for _u, words in shown}, (path, post.slug)
    with translation.override("en"):
        assert held_words("[..1937-12-12]", "[1937-12-12..]") == "held on 1937-12-12"
        assert held_words("", "") == "undated"
        assert held_words("1937-12-01", "[1937-12-12..]") == "1937-12-01 – on or after 1937-12-12"
