"""End to end: a batch of suggested mentions previewed, made, submitted, found in the queue and approved as one.

A curator asks to cite every suggested mention of a source and reads the
preview (how many, of which record, which names were left as ambiguous),
confirms it, and submits her drafts of the source from the reader. A
reviewer finds the batch as one row of the queue, opens it (the queue
filtered to the batch), reads it and approves it as one: the page sends it in
chunks, each a short request, and shows how many are decided as it goes; the
messages name what was approved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import Batch, Citation, Location, Person, Status
from archive.roles import ensure_groups
from tests.browser.accounts import account, log_in
from tests.factories import approved, source_with_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MENTIONS = 300
# Making and deciding hundreds of items is one request each; give them room on a shared machine.
LONG_MS = 90_000


def test_a_batch_of_mentions_from_preview_to_approval(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    ensure_groups(Group, Permission)
    approved(Location(slug="xiaguan", name="下关", kind="district"))
    approved(Person(slug="tang-a", name="唐生智", side="chinese"))
    approved(Person(slug="tang-b", name="唐生智", side="chinese"))  # one name, two records: left out
    text = "\n\n".join(f"第{i}段：部队经下关撤退。" for i in range(MENTIONS)) + "\n\n唐生智到了。"
    source = source_with_text(text, slug="batch-day")
    curator = account("batch-curator", "curator")
    reviewer = account("batch-reviewer", "reviewer")
    base = live_server.url
    reader = f"/admin/curate/sources/{source.slug}/read/"

    page = new_page()
    log_in(page, base, curator.username, reader)
    page.click("[data-role=cite-all-mentions]")
    page.wait_for_url("**/mentions/*")
    assert f"{MENTIONS} suggested mentions would be cited" in page.locator("[data-role=preview-count]").inner_text()
    assert "下关" in page.locator(".preview-records").inner_text()
    ambiguous = page.locator("[data-role=ambiguous]").inner_text()
    assert "唐生智" in ambiguous
    assert not Citation.objects.exists(), "a preview makes nothing"
    page.screenshot(path=str(screenshot_dir / "batch-preview.png"), full_page=False)

    page.click("[data-role=confirm-batch]", timeout=LONG_MS)
    page.wait_for_url(f"{base}{reader}", timeout=LONG_MS)
    assert f"{MENTIONS} draft citations made" in page.locator(".messagelist").inner_text()
    submit = page.locator("[data-role=submit-my-drafts]")
    assert f"Submit my {MENTIONS} drafts of this source" in submit.inner_text()
    submit.click(timeout=LONG_MS)
    page.wait_for_url(f"{base}{reader}*", timeout=LONG_MS)
    assert f"{MENTIONS} draft citations of" in page.locator(".messagelist").inner_text()
    batch = Batch.objects.get()
    assert batch.citations.filter(status=Status.IN_REVIEW).count() == MENTIONS

    review = new_page()
    log_in(review, base, reviewer.username, "/admin/curate/review/")
    row = review.locator(f".review-batch[data-batch='{batch.pk}']")
    assert f"{MENTIONS} citations in review" in row.inner_text()
    assert review.locator(".review-record").count() == 0, "the batch is one row, not 300"
    row.locator("[data-role=open-batch]").click()
    review.wait_for_url(f"**/review/?batch={batch.pk}")
    assert review.locator(".review-record").count() > 0
    assert "page 1 of" in review.locator(".paginator").inner_text()
    approve = review.locator("[data-role=approve-batch]")
    assert f"Approve the batch ({MENTIONS} items)" in approve.inner_text()
    review.screenshot(path=str(screenshot_dir / "batch-queue.png"), full_page=False)
    # The batch is decided in chunks, each its own short request, with the count decided shown as it grows.
    chunk = int(review.locator("[data-role=batch-progress]").get_attribute("data-chunk-size") or 0)
    chunks = -(-MENTIONS // chunk)
    review.evaluate(
        """() => { window.seen = []; const text = document.querySelector('[data-role=progress-text]');
        new MutationObserver(() => window.seen.push(text.textContent)).observe(text, {childList: true}); }"""
    )
    posts: list[str] = []
    review.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    approve.click()
    done = review.locator("[data-role=progress-done]")
    done.wait_for(state="visible", timeout=LONG_MS)
    assert review.url.endswith(f"/review/?batch={batch.pk}"), "the page stays while the chunks are sent"
    assert len(posts) == chunks
    seen = review.evaluate("window.seen")
    assert seen == [f"{n} of {MENTIONS} items decided" for n in [0, *range(chunk, MENTIONS, chunk), MENTIONS]]
    assert review.locator("[data-role=progress-bar]").evaluate("bar => [bar.value, bar.max]") == [MENTIONS, MENTIONS]
    said = review.locator("[data-role=progress-result] li.success").all_inner_texts()
    assert len(said) == chunks and said[0].startswith(f"Approved {chunk} records: “下关” (batch-day §1)")
    assert Citation.objects.filter(status=Status.APPROVED).count() == MENTIONS
    review.screenshot(path=str(screenshot_dir / "batch-approved.png"), full_page=False)
    done.click()
    review.wait_for_url("**/admin/curate/review/")
    assert review.locator(f".review-batch[data-batch='{batch.pk}']").count() == 0
