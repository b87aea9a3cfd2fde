"""End to end: a curator cites a selection in the reader, a reviewer approves it.

The passage holds 𠀀 (U+20000) before the selected phrase, so the browser's
UTF-16 offsets differ from the stored code points by one: the test proves the
whole path, from the Range API through the server's conversion to the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import Resolver404, resolve

from archive.models import Citation, Event, Source, Status
from archive.roles import ensure_groups
from archive.text import anchor
from tests.browser.accounts import account, log_in
from tests.factories import approved, cite, source_with_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = (
    "十二月十二日，南京城内秩序渐乱。\n\n"
    "唐生智𠀀于12日傍晚离开司令部，原定18时到煤炭港码头，实际20时方到，21时以后才开船。\n\n"
    "部队拥向挹江门。\n"
)
MEMOIR = "我们在码头等了很久，过了21时才开船。\n"
PHRASE = "20时方到"

SELECT_PHRASE = """
([seq, phrase]) => {
  const el = document.querySelector(`.passage-text[data-seq="${seq}"]`);
  const node = el.firstChild;
  const at = node.data.indexOf(phrase);
  const range = document.createRange();
  range.setStart(node, at);
  range.setEnd(node, at + phrase.length);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  el.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
  return at;
}
"""


def test_cite_in_the_reader_then_approve_in_the_queue(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    # Transactional tests flush the groups the migration made; make them again.
    ensure_groups(Group, Permission)
    curator = account("curator-e2e", "curator")
    reviewer = account("reviewer-e2e", "reviewer")
    source = source_with_text(TEXT, slug="history-e2e", kind="history")
    # A plain update: saving an approved source would reopen its review.
    Source.objects.filter(pk=source.pk).update(title="南京保卫战史")
    passage = source.passages.get(seq=2)
    event = approved(Event(slug="tang-departs", title="唐生智离开南京", kind="escape", date="1937-12-12"))
    # A second account, so that the accounts page has two columns to compare.
    memoir = source_with_text(MEMOIR, slug="memoir-e2e", kind="memoir")
    Source.objects.filter(pk=memoir.pk).update(title="江边回忆")
    cite(memoir.passages.get(), "过了21时才开船", event=event, claim="left after 21:00")
    base = live_server.url
    reader_path = f"/admin/curate/sources/{source.slug}/read/"

    page = new_page()
    log_in(page, base, curator.username, reader_path)
    assert page.locator(".passage-row").count() == 3

    at16 = page.evaluate(SELECT_PHRASE, [passage.seq, PHRASE])
    dialog = page.locator("#cite-dialog")
    dialog.wait_for(state="visible")
    at = passage.text.index(PHRASE)
    assert at16 == anchor.codepoint_to_utf16(passage.text, at) == at + 1
    assert dialog.locator("[name=start]").input_value() == str(at16)
    assert dialog.locator("[name=end]").input_value() == str(at16 + len(PHRASE))
    assert dialog.locator("[name=quote]").input_value() == PHRASE

    dialog.locator("[name=target_type]").select_option("event")
    dialog.locator("[data-role=target-search]").fill("离开")
    dialog.locator(f"[name=target_id] option[value='{event.pk}']").wait_for(state="attached")
    dialog.locator("[name=target_id]").select_option(str(event.pk))
    dialog.locator("[name=claim]").fill("arrived at the dock at 20:00, two hours late")
    dialog.locator("[name=rank]").select_option("preferred")
    page.screenshot(path=str(screenshot_dir / "reader-cite-dialog.png"))
    dialog.locator("input[name=_submit]").click()
    page.wait_for_url(f"{base}{reader_path}*")
    assert "saved and submitted for review" in page.locator("ul.messagelist").inner_text()

    citation = Citation.objects.get(passage=passage)
    assert (citation.start, citation.end, citation.quote) == (at, at + len(PHRASE), PHRASE)
    assert citation.status == Status.IN_REVIEW and citation.created_by == curator
    assert page.locator(f"#passage-{passage.seq} mark.cite-in_review").inner_text() == PHRASE
    page.locator(f"#passage-{passage.seq}").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "reader.png"), full_page=True)

    # The review queue is the reviewers': a curator is refused it.
    refused = page.goto(f"{base}/admin/curate/review/")
    assert refused is not None and refused.status == 403

    review = new_page()
    log_in(review, base, reviewer.username, "/admin/curate/review/")
    record = review.locator(f"#record-citation-{citation.pk}")
    assert record.locator("mark").inner_text() == PHRASE
    assert "唐生智𠀀于12日傍晚离开司令部" in record.locator(".queue-passage").inner_text()
    assert "南京保卫战史" in record.inner_text()
    review.screenshot(path=str(screenshot_dir / "review-queue.png"), full_page=True)
    record.locator("textarea[name^=note-]").fill("matches the passage")
    record.locator("button[value^=approve]").click()
    review.wait_for_url(f"{base}/admin/curate/review/*")
    assert f"Approved citation “{PHRASE}”" in review.locator("ul.messagelist").inner_text()

    citation.refresh_from_db()
    assert citation.status == Status.APPROVED and citation.reviewed_by == reviewer

    review.goto(f"{base}/admin/curate/events/{event.slug}/accounts/")
    columns = review.locator(".account-column")
    assert columns.count() == 2
    assert "过了21时才开船" in columns.nth(0).inner_text()  # the memoir, a primary source, comes first
    assert PHRASE in columns.nth(1).inner_text()
    review.screenshot(path=str(screenshot_dir / "accounts.png"), full_page=True)

    api_path = f"/api/v1/citations/{citation.pk}/"
    try:
        resolve(api_path)
    except Resolver404:
        return  # the API is not routed in this tree; the ORM assertions above stand
    response = review.request.get(f"{base}{api_path}")
    assert response.status == 200
    body = response.json()
    assert (body["quote"], body["start"], body["end"]) == (PHRASE, at, at + len(PHRASE))
