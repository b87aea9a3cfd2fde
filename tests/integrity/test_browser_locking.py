"""Two curators in two browsers edit the same record: the second save is refused, not lost.

Drives the system's chromium through Playwright in two browser contexts (two
sessions at once), as tests/browser does, and skips when either is missing.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import Person, Status
from archive.roles import ensure_groups
from tests.browser.accounts import account, log_in
from tests.conftest import CHROMIUM

# Skipped by a mark, not in the test's body: its fixtures would launch the missing chromium first.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs chromium at {CHROMIUM}, which is not installed"),
    pytest.mark.skipif(find_spec("playwright") is None, reason="needs the playwright package (requirements-dev.txt)"),
]


def test_two_browsers_the_second_save_is_refused_with_the_diff(live_server: Any, new_page: Any) -> None:
    ensure_groups(Group, Permission)
    account("browser-first", "curator")
    account("browser-second", "curator")
    from tests.factories import in_status

    tang = in_status(Person(slug="tang-shengzhi", name="唐生智", side="chinese", description="卫戍司令长官"),
                     Status.DRAFT)
    path = f"/admin/archive/person/{tang.pk}/change/"
    base = live_server.url
    first, second = new_page(), new_page()
    log_in(first, base, "browser-first", path)
    log_in(second, base, "browser-second", path)
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
