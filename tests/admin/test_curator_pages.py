"""The curators' pages need the permissions of what they show, not only a staff account.

Enumerated from `archive.admin.curator_urls`, so that a page added tomorrow
without its rule fails here: a staff account without permissions gets 403 at
every one of them (read or post), a curator reaches every one but the review
queue, and a reviewer reaches them all.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, resolve, reverse

from archive import roles
from archive.admin import curator_urls
from archive.models import Event, Status
from tests.admin.helpers import client_for, event, source, user

pytestmark = pytest.mark.django_db


def _paths() -> dict[str, str]:
    text = source(status=Status.DRAFT)
    happening = event(status=Status.DRAFT)
    args = {"slug": {"accounts": happening.slug}, "pk": text.passages.get(seq=1).pk}
    paths = {}
    for pattern in curator_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        name = str(pattern.name)
        converters = pattern.pattern.converters  # type: ignore[attr-defined]  # a RoutePattern
        kwargs: dict[str, Any] = {}
        for key in converters:
            kwargs[key] = args["slug"].get(name, text.slug) if key == "slug" else args["pk"]
        paths[name] = reverse(f"archive_curate:{name}", kwargs=kwargs)
    return paths


def _status(client: Client, path: str, method: str) -> int:
    query = {"type": "person", "q": "唐"} if method == "get" else {}
    return int(getattr(client, method)(path, query).status_code)


def test_every_page_has_a_rule() -> None:
    names = {str(pattern.name) for pattern in curator_urls.urlpatterns}
    assert names == set(roles.PAGE_PERMISSIONS)


@pytest.mark.parametrize("method", ["get", "post"])
def test_staff_without_permissions_get_403_everywhere(method: str) -> None:
    paths = _paths()
    client = client_for(user("bare-staff"))
    refused = {name: _status(client, path, method) for name, path in paths.items()}
    assert refused == dict.fromkeys(paths, 403)
    assert Event.objects.filter(status=Status.DRAFT).count() == 1  # nothing written either


def test_a_view_permission_of_one_model_is_not_enough() -> None:
    from django.contrib.auth.models import Permission

    account = user("source-viewer")
    account.user_permissions.add(Permission.objects.get(codename="view_source"))
    client = client_for(account)
    paths = _paths()
    assert _status(client, paths["index"], "get") == 200
    for name in ("targets", "review", "my_work", "audit", "accounts", "reader"):
        assert _status(client, paths[name], "get") == 403, name


def test_curators_reach_every_page_but_the_review_queue_which_reviewers_reach() -> None:
    paths = _paths()
    curator = client_for(user("page-curator", role="curator"))
    reviewer = client_for(user("page-reviewer", role="reviewer"))
    for name, path in paths.items():
        as_curator, as_reviewer = _status(curator, path, "get"), _status(reviewer, path, "get")
        # A page that only takes a POST answers 405 to a read: reached, not forbidden.
        assert as_reviewer in (200, 405), name
        assert as_curator == (403 if name in roles.REVIEWER_PAGES else as_reviewer), name


def _links(html: str) -> set[str]:
    """The curators' pages a page links to, by name."""
    root = reverse("archive_curate:index")
    names = set()
    for href in re.findall(r'href="([^"#?]+)', html):
        if href.startswith(root):
            names.add(str(resolve(href).url_name))
    return names


@pytest.mark.parametrize("role", ["curator", "reviewer", None])
def test_the_links_to_the_curators_pages_are_shown_only_to_those_who_may_open_them(role: str | None) -> None:
    account = user(f"links-{role}", role=role) if role else user("links-bare-staff")
    client = client_for(account)
    shown_on = {"admin index": client.get(reverse("admin:index"))}
    for name in ("index", "my_work"):
        if roles.may_open(account, name):
            shown_on[name] = client.get(reverse(f"archive_curate:{name}"))
    linked: set[str] = set()
    for where, response in shown_on.items():
        assert response.status_code == 200, where
        found = _links(response.content.decode())
        for name in found:
            assert roles.may_open(account, name), f"{where} links to {name}, which {account} may not open"
            assert client.get(reverse(f"archive_curate:{name}")).status_code == 200, (where, name)
        linked |= found
    if role == "reviewer":
        assert {"index", "review", "my_work", "audit"} <= linked
    elif role == "curator":
        assert "review" not in linked and {"index", "my_work", "audit"} <= linked
        assert client.get(reverse("archive_curate:review")).status_code == 403  # the link it no longer shows
    else:
        assert linked == set() and "Curators' pages" not in shown_on["admin index"].content.decode()
