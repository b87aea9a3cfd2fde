"""Who reaches the admin, login throttling, and pages served only from the app's own static files."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from archive.models import Event, Person
from tests.admin.helpers import change_url, changelist, client_for, person, user, world

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/?next=/admin/"


def test_a_non_staff_user_is_refused() -> None:
    User.objects.create_user("visitor", password="pw-visitor-long", is_staff=False)
    client = Client()
    response = client.post(LOGIN, {"username": "visitor", "password": "pw-visitor-long"})
    assert response.status_code == 200  # the login form again, with an error
    assert "_auth_user_id" not in client.session
    client.force_login(User.objects.get(username="visitor"))
    assert client.get("/admin/").status_code == 302
    assert client.get(changelist(Person)).status_code == 302


def test_staff_without_a_role_sees_no_records() -> None:
    client = client_for(user("no-role"))
    assert client.get(changelist(Person)).status_code == 403


def test_an_account_and_address_are_locked_after_repeated_failures(settings) -> None:
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    user("locked", role="curator")
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(3):
        attacker.post(LOGIN, {"username": "locked", "password": "wrong"})
    response = attacker.post(LOGIN, {"username": "locked", "password": "pw-locked"})
    assert response.status_code == 429
    assert "_auth_user_id" not in attacker.session
    # The lock is on the pair: the same account from another address still logs in,
    # and so does another account from the locked address.
    elsewhere = Client(REMOTE_ADDR="198.51.100.1")
    assert elsewhere.post(LOGIN, {"username": "locked", "password": "pw-locked"}).status_code == 302
    user("neighbour", role="curator")
    assert attacker.post(LOGIN, {"username": "neighbour", "password": "pw-neighbour"}).status_code == 302


ASSET = re.compile(r"<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)
CSS_URL = re.compile(r"url\(\s*['\"]?(https?:)?//", re.IGNORECASE)


def _assets(html: str) -> list[str]:
    return ASSET.findall(html)


def test_admin_pages_use_only_the_apps_static_files() -> None:
    world(1)
    reviewer = user("assets", role="reviewer")
    client = client_for(reviewer)
    tang = Person.objects.first()
    pages = [
        "/admin/",
        changelist(Person),
        change_url(tang),
        reverse("admin:archive_person_add"),
        reverse("admin:archive_person_history", args=[tang.pk]),
        reverse("admin:archive_person_import"),
        reverse("admin:archive_person_export"),
        reverse("admin:archive_citation_changelist"),
        reverse("admin:archive_event_change", args=[Event.objects.first().pk]),
    ]
    seen = set()
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert not CSS_URL.search(html), url
        for asset in _assets(html):
            assert not re.match(r"^(https?:)?//", asset), (url, asset)
            seen.add(asset)
    login_page = Client().get("/admin/login/")
    assert login_page.status_code == 200
    seen.update(_assets(login_page.content.decode()))
    assert not any(re.match(r"^(https?:)?//", asset) for asset in seen), seen
    static = [asset for asset in seen if asset.startswith("/static/")]
    assert any("import_export" in asset for asset in static) or any("admin/" in asset for asset in static)
    for asset in static:
        path = asset.split("?")[0].removeprefix("/static/")
        assert finders.find(path), asset
    review_page = client.post(changelist(Person), {"action": "approve_selected", "_selected_action": [str(tang.pk)]})
    for asset in _assets(review_page.content.decode()):
        assert not re.match(r"^(https?:)?//", asset), asset


def test_passages_are_read_only_but_role_and_quotes_change() -> None:
    from archive.models import Passage
    from tests.admin.helpers import form_data, source

    src = source(status="draft")
    quoted = source()
    passage = src.passages.get(seq=2)
    original = passage.text
    client = client_for(user("passage-curator", role="curator"))
    assert client.get(reverse("admin:archive_passage_add")).status_code == 403
    page = client.get(change_url(passage))
    assert page.status_code == 200
    assert set(page.context["adminform"].form.fields) == {"role", "quotes"}
    data = {**form_data(page), "text": "篡改", "start": "0", "role": "quotation", "quotes": ""}
    response = client.post(change_url(passage), data)
    assert response.status_code == 200  # a quotation names the work it quotes
    assert "quotes" in response.context["adminform"].form.errors
    response = client.post(change_url(passage), {**data, "quotes": str(quoted.pk)})
    assert response.status_code == 302
    passage = Passage.objects.get(pk=passage.pk)
    assert passage.text == original and passage.role == "quotation" and passage.quotes == quoted
    assert passage.history.latest().history_user.username == "passage-curator"


def test_a_post_added_in_the_unit_inline_is_a_draft_by_its_author() -> None:
    from archive.models import Post, Status, Unit
    from tests.admin.helpers import form_data, unit

    division = unit(status=Status.APPROVED)
    tang = person()
    curator = user("inline-curator", role="curator")
    client = client_for(curator)
    data = form_data(client.get(change_url(division)))
    data.update(
        {
            "posts-TOTAL_FORMS": "1",
            "posts-0-slug": "tang-commander",
            "posts-0-person": str(tang.pk),
            "posts-0-title": "师长",
            "posts-0-date_from": "1937-12",
            "posts-0-date_to": "",
        }
    )
    response = client.post(change_url(division), data)
    assert response.status_code == 302, response.context["errors"] if response.context else response
    post = Post.objects.get(slug="tang-commander")
    assert post.status == Status.DRAFT and post.created_by == curator and post.modified_by == curator
    division = Unit.objects.get(pk=division.pk)
    # A new post is a record of its own, a draft: the published unit is unchanged.
    assert division.status == Status.APPROVED and division.modified_by != curator
