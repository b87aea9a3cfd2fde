"""Two curators in two browsers edit the same record: the second save is refused, not lost.

Drives the system's chromium through Playwright in two browser contexts (two
sessions at once), as tests/browser does, and skips when either is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User

from archive.models import Person, Status
from archive.roles import ensure_groups
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "browser-pass-1937"


def _skip_without_browser() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs chromium at {CHROMIUM}, which is not installed")
    pytest.importorskip("playwright.sync_api", reason="needs the playwright package (requirements-dev.txt)")


def _account(name: str) -> User:
    account = User.objects.create_user(username=name, password=PASSWORD, is_staff=True)
    account.groups.add(Group.objects.get(name="curator"))
    return account


def _log_in(page: Any, base: str, name: str, next_path: str) -> None:
    page.goto(f"{base}/admin/login/?next={next_path}")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{next_path}*")


def test_two_browsers_the_second_save_is_refused_with_the_diff(live_server: Any, new_page: Any) -> None:
    _skip_without_browser()
    ensure_groups(Group, Permission)
    _account("browser-first")
    _account("browser-second")
    from tests.factories import in_status

    tang = in_status(Person(slug="tang-shengzhi", name="唐生智", side="chinese", description="卫戍司令长官"),
                     Status.DRAFT)
    path = f"/admin/archive/person/{tang.pk}/change/"
    base = live_server.url
    first, second = new_page(), new_page()
    _log_in(first, base, "browser-first", path)
    _log_in(second, base, "browser-second", path)
    assert second.input_value("input[name=version]") == str(tang.version)

    first.fill("#id_description", "南京卫戍司令长官")
    first.click("input[name=_continue]")
    first.wait_for_selector(".messagelist .success")

    second.fill("#id_description", "卫戍司令长官，兼第一军团")
    second.click("input[name=_continue]")
    error = second.wait_for_selector(".errornote, .errorlist.nonfield")
    text = second.inner_text(".errorlist.nonfield")
    assert error is not None
    assert "browser-first" in text
    assert "“卫戍司令长官” → “南京卫戍司令长官”" in text
    stored = Person.objects.get(pk=tang.pk)
    assert stored.description == "南京卫戍司令长官"
    assert stored.version == tang.version + 1
