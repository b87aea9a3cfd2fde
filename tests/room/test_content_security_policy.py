"""Every page of the reading room, the admin and the API docs sends the Content-Security-Policy and obeys it.

The policy lets scripts come only from the app (`script-src 'self'`); the
pages therefore hold no inline script and no inline event handler, which the
browser would refuse. JSON data islands (`json_script`) are not scripts.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from archive.models import Event, Location, Person, Source, Status, Unit

pytestmark = pytest.mark.usefixtures("shipped")

SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.IGNORECASE)
DATA_ISLAND = re.compile(r'type="application/(ld\+)?json"')


def _directives(header: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


def _first(model: Any, **where: Any) -> Any:
    record = model.objects.filter(status=Status.APPROVED, **where).order_by("slug").first()
    assert record is not None, model
    return record


def _public_paths() -> list[str]:
    return [
        "/", "/timeline/", "/map/", "/order-of-battle/", "/night/",
        f"/people/{_first(Person, fictional=False).slug}/",
        f"/units/{_first(Unit, fictional=False).slug}/",
        f"/places/{_first(Location, fictional=False).slug}/",
        f"/events/{_first(Event, fictional=False).slug}/",
        f"/sources/{_first(Source, is_fiction=False).slug}/",
        "/timeline/?from=0001-01-01",  # a 400 page
        "/people/no-such-person/",  # a 404 page
        "/api/docs/",
        "/api/docs/?script=",
        "/api/v1/",
        "/api/v1/persons/",
    ]


def _curator_paths() -> list[str]:
    source = _first(Source, is_fiction=False)
    event = _first(Event, fictional=False)
    return [
        "/admin/", "/admin/archive/person/", f"/admin/archive/person/{_first(Person).pk}/change/",
        "/admin/archive/citation/", "/admin/curate/", f"/admin/curate/sources/{source.slug}/read/",
        "/admin/curate/review/", "/admin/curate/my-work/", "/admin/curate/audit/",
        f"/admin/curate/events/{event.slug}/accounts/",
    ]


def _check(client: Client, path: str) -> list[str]:
    response = client.get(path)
    problems = []
    if response.status_code >= 500:
        return [f"{path}: {response.status_code}"]
    header = response.get("Content-Security-Policy", "")
    directives = _directives(header)
    if directives.get("script-src") != ["'self'"]:
        problems.append(f"{path}: script-src is {directives.get('script-src')}")
    if directives.get("object-src") != ["'none'"] or directives.get("base-uri") != ["'none'"]:
        problems.append(f"{path}: object-src or base-uri is open")
    if response.get("Content-Type", "").startswith("text/html"):
        html = response.content.decode()
        inline = [attrs for attrs in SCRIPT_TAG.findall(html) if "src=" not in attrs and not DATA_ISLAND.search(attrs)]
        if inline:
            problems.append(f"{path}: inline script {inline}")
        handler = HANDLER.search(html)
        if handler:
            problems.append(f"{path}: inline handler {handler.group(0)}")
    return problems


def test_every_public_page_sends_the_policy_and_holds_no_inline_script() -> None:
    client = Client()
    problems = [problem for path in _public_paths() for problem in _check(client, path)]
    assert problems == []


def test_every_curator_page_sends_the_policy_and_holds_no_inline_script() -> None:
    client = Client()
    client.force_login(User.objects.create_superuser("csp-admin", password="csp-pass-1937"))
    problems = [problem for path in _curator_paths() for problem in _check(client, path)]
    assert problems == []


def test_the_api_docs_start_from_their_own_script_which_names_the_schema() -> None:
    client = Client()
    html = client.get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script="></script>' in html
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert '"/api/schema/"' in script.content.decode()


def test_the_csrf_cookie_is_out_of_scripts_reach() -> None:
    client = Client()
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert response.cookies["csrftoken"]["httponly"] is True
