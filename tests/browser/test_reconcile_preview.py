"""The reconciliation service's preview card, as a client's iframe shows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import NameKind, Person, PersonName, Script, Unit
from archive.roles import ensure_groups
from tests.factories import approved

pytestmark = pytest.mark.browser


def test_preview_card_shows_the_record(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    # Transactional tests before this one flush the groups the migration made; make them again.
    ensure_groups(Group, Permission)
    approved(Unit(slug="36th-division", name="第三十六师", echelon="division", side="chinese"))
    tang = approved(Person(slug="tang-shengzhi", name="唐生智", side="chinese"))
    PersonName.objects.create(person=tang, name="T'ang Sheng-chih", kind=NameKind.ROMANISATION, script=Script.LATN)
    page = new_page()
    page.set_viewport_size({"width": 400, "height": 200})  # the size the manifest asks a client for
    page.goto(f"{live_server.url}/reconcile/preview/person:tang-shengzhi/")
    heading = page.locator("h1 a")
    assert heading.inner_text() == "唐生智"
    assert heading.get_attribute("href").endswith("/api/v1/persons/tang-shengzhi/")
    assert "T'ang Sheng-chih" in page.inner_text("body")
    page.screenshot(path=str(screenshot_dir / "reconcile-preview-person.png"))
    page.goto(f"{live_server.url}/reconcile/preview/unit:36th-division/")
    assert "division" in page.inner_text("body")
    page.screenshot(path=str(screenshot_dir / "reconcile-preview-unit.png"))
