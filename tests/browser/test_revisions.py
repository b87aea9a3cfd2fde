"""End to end: a published event stays served while a curator's edit of it waits for review.

A curator edits the approved event in the admin's change form; the API keeps
answering with the published title and description. A reviewer opens the
review queue, reads the change as a word-level diff (photographed in English
and in Simplified Chinese) and approves it; the API then answers with the new
values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import Event, Revision, RevisionState
from archive.roles import ensure_groups
from tests.browser.accounts import account, log_in
from tests.factories import approved, cite, source_with_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "唐生智于12日傍晚离开司令部，原定18时到煤炭港码头，实际20时方到，21时以后才开船。\n"
OLD_TITLE = "唐生智离开南京"
NEW_TITLE = "唐生智乘船撤出南京"
OLD_DESCRIPTION = "唐生智于12日傍晚离开司令部，赶往煤炭港码头。Tang left his headquarters at dusk."
NEW_DESCRIPTION = (
    "唐生智于12日傍晚离开司令部，20时方到煤炭港码头，21时以后才开船。Tang left his headquarters at dusk, by boat."
)


def _api(page: Any, base: str, slug: str) -> dict[str, Any]:
    response = page.request.get(f"{base}/api/v1/events/{slug}/", headers={"Accept": "application/json"})
    assert response.status == 200, response.text()[:300]
    return response.json()


def test_an_edit_of_a_published_event_waits_for_review_then_goes_live(
    live_server: Any, new_page: Any, screenshot_dir: Path
) -> None:
    # Transactional tests flush the groups the migration made; make them again.
    ensure_groups(Group, Permission)
    curator = account("curator-revise", "curator")
    reviewer = account("reviewer-revise", "reviewer")
    event = Event(slug="tang-departs", title=OLD_TITLE, kind="escape", date="1937-12-12", description=OLD_DESCRIPTION)
    event.clean()  # its bounds derived from the date, as the change form derives them
    approved(event)
    source = source_with_text(TEXT, slug="history-revise", kind="history")
    cite(source.passages.get(seq=1), "21时以后才开船", event=event, claim="the boat left after 21:00")
    base = live_server.url
    change_path = f"/admin/archive/event/{event.pk}/change/"

    page = new_page()
    log_in(page, base, curator.username, change_path)
    page.fill("#id_title", NEW_TITLE)
    page.fill("#id_description", NEW_DESCRIPTION)
    with page.expect_navigation():
        page.click("input[name=_save]")
    assert page.locator("ul.messagelist").count() == 1
    assert "review" in page.locator("ul.messagelist").inner_text()

    revision = Revision.objects.get(state=RevisionState.PENDING)
    assert revision.record_id == event.pk and revision.created_by == curator
    body = _api(page, base, event.slug)
    assert (body["title"], body["description"]) == (OLD_TITLE, OLD_DESCRIPTION)

    review = new_page()
    log_in(review, base, reviewer.username, "/admin/curate/review/")
    card = review.locator(f"#revision-{revision.pk}")
    diff = card.locator("table.revision-diff")
    assert diff.locator("del").first.inner_text() == "离开"
    assert "乘船撤出" in diff.locator("ins").all_inner_texts()
    assert "by boat" in " ".join(diff.locator("ins").all_inner_texts())
    assert "21时以后才开船" in card.locator(".queue-passage").inner_text()  # the approved evidence beside it
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(screenshot_dir / "revision-diff-en.png"))

    with review.expect_navigation():
        review.select_option("#language-select", "zh-hans")
    assert review.locator("html").get_attribute("lang") == "zh-hans"
    card = review.locator(f"#revision-{revision.pk}")
    head = card.locator("table.revision-diff thead").inner_text()
    assert "已发布" in head and "拟改" in head
    card.screenshot(path=str(screenshot_dir / "revision-diff-zh-hans.png"))
    with review.expect_navigation():
        review.select_option("#language-select", "en")

    card = review.locator(f"#revision-{revision.pk}")
    card.locator("textarea[name^=note-]").fill("the boat left after 21:00, as the history says")
    with review.expect_navigation():
        card.locator(f"button[value='approve-revision:{revision.pk}']").click()
    assert "it is published" in review.locator("ul.messagelist").inner_text()

    revision.refresh_from_db()
    assert revision.state == RevisionState.APPROVED and revision.reviewed_by == reviewer
    body = _api(review, base, event.slug)
    assert (body["title"], body["description"]) == (NEW_TITLE, NEW_DESCRIPTION)
