"""The home page read as of a moment, in headless chromium: marked, linked to the current page, cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_home_page_as_of_a_moment_says_so_fits_a_phone_and_cites_the_moment(
        live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    from django.contrib.auth.models import Group, Permission
    from django.utils import timezone

    from archive.models import Person
    from archive.roles import ensure_groups
    from tests.factories import approved, publish_change

    # A transactional test before this one may have flushed the groups the migrations made.
    ensure_groups(Group, Permission)
    tang = approved(Person(slug="tang", name="唐生智", side="chinese", description="卫戍司令长官"))
    # A release cannot be made here: the database refuses the deletion of one when the test's tables are emptied.
    moment = timezone.now().isoformat().replace("+00:00", "Z")
    publish_change(tang, name="唐生智（孟潇）")
    page = new_page()
    page.set_viewport_size({"width": 390, "height": 900})
    answer = page.goto(f"{live_server.url}/?as_of={moment}")
    assert answer is not None and answer.status == 200
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    assert page.locator(".memento-notice").is_visible()
    assert page.locator("a[href^='/people/tang/?version=']").inner_text() == "唐生智"
    assert "As published at" in page.locator("#cite-text").inner_text()
    page.screenshot(path=str(screenshot_dir / "room-home-as-of-390.png"), full_page=True)
    page.click("text=See the current version")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("a[href='/people/tang/']").inner_text() == "唐生智（孟潇）"


def test_the_timeline_as_of_a_moment_draws_the_event_then_and_its_link_keeps_the_moment(
        live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    import datetime as dt

    from django.contrib.auth.models import Group, Permission
    from django.utils import timezone

    from archive.models import Event
    from archive.roles import ensure_groups
    from tests.factories import approved, publish_change

    ensure_groups(Group, Permission)
    nanjing = dt.timezone(dt.timedelta(hours=8))
    meeting = approved(Event(slug="meeting", title="撤退会议", kind="meeting", date="1937-12-12",
                             earliest=dt.datetime(1937, 12, 12, 17, tzinfo=nanjing),
                             latest=dt.datetime(1937, 12, 12, 18, tzinfo=nanjing)))
    moment = timezone.now().isoformat().replace("+00:00", "Z")
    publish_change(meeting, title="卫戍司令部撤退会议")
    page = new_page()
    answer = page.goto(f"{live_server.url}/timeline/?from=1937-12-12T00:00&to=1937-12-13T00:00&as_of={moment}")
    assert answer is not None and answer.status == 200
    assert page.locator(".memento-notice").is_visible()
    drawn = page.locator("#timeline").inner_text()
    assert "撤退会议" in drawn and "卫戍司令部" not in drawn
    page.screenshot(path=str(screenshot_dir / "room-timeline-as-of.png"), full_page=True)
    page.locator("table a", has_text="撤退会议").first.click()
    page.wait_for_url(f"{live_server.url}/events/meeting/?as_of=*")
    assert page.locator("h1").inner_text().startswith("撤退会议")
    page.goto(f"{live_server.url}/timeline/?from=1937-12-12T00:00&to=1937-12-13T00:00")
    assert "卫戍司令部撤退会议" in page.locator("#timeline").inner_text()
