"""End to end on the shipped history: filter, jump, make a person in the cite dialog, accept a suggestion, review.

The curator filters the history's reader to uncited passages, jumps to §77,
selects a phrase and makes a new person with its citation in one submit,
then cites a suggested mention with one click; the reviewer finds both in the
queue. Screenshots of the reader, the dialog and the suggestions are taken in
English and in Traditional Chinese.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import Citation, Person, Status
from archive.roles import ensure_groups
from tests.browser.accounts import account, log_in
from tests.shipped import load_shipped_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HISTORY = "history-nanjing-retreat"
NOVEL = "webnovel-zhutian-changjinhu"
PHRASE = "第36师的哨兵"

SELECT = """
([seq, phrase]) => {
  const el = document.querySelector(`.passage-text[data-seq="${seq}"]`);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const at = node.data.indexOf(phrase);
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + phrase.length);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      el.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
      return true;
    }
  }
  return false;
}
"""

SELECT_ACROSS = """
([first, second]) => {
  const a = document.querySelector(`.passage-text[data-seq="${first}"]`);
  const b = document.querySelector(`.passage-text[data-seq="${second}"]`);
  const text = (el) => document.createTreeWalker(el, NodeFilter.SHOW_TEXT).nextNode();
  const range = document.createRange();
  range.setStart(text(a), 1);
  range.setEnd(text(b), 1);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  a.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
}
"""


def test_a_curators_day_in_the_reader(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    ensure_groups(Group, Permission)
    load_shipped_collection()
    curator = account("curator-day", "curator")
    reviewer = account("reviewer-day", "reviewer")
    base = live_server.url
    reader = f"/admin/curate/sources/{HISTORY}/read/"
    requests: list[str] = []

    page = new_page()
    page.on("request", lambda request: requests.append(request.url))
    log_in(page, base, curator.username, reader)
    assert 0 < page.locator(".passage-row").count() <= 20
    assert "suggested mentions left" in page.locator("[data-role=coverage]").inner_text()

    # Uncited passages only: every row shown has no citation card. Every passage of the history is
    # cited, so it shows none; the web novel has uncited passages, and only those are shown.
    page.select_option("[data-role=filters] [name=cited]", "no")
    page.click("[data-role=filters] button[type=submit]")
    page.wait_for_url("**cited=no*")
    assert page.locator(".passage-row").count() == 0
    page.goto(f"{base}/admin/curate/sources/{NOVEL}/read/?cited=no")
    rows = page.locator(".passage-row")
    assert rows.count() > 0
    assert page.locator(".passage-row details[data-role=citations]").count() == 0
    page.goto(f"{base}{reader}?cited=no")

    # Jump to §77: cited, so the filter that hides it is cleared, and the page opens at it.
    page.fill("[data-role=jump] [name=seq]", "77")
    page.click("[data-role=jump] button[type=submit]")
    page.wait_for_url("**#passage-77")
    assert "§77 is hidden by the filters" in page.locator("#passage-77 [data-role=passage-messages]").inner_text()
    assert page.locator("#passage-77").is_visible()

    # A selection across two passages is explained where it was made.
    page.evaluate(SELECT_ACROSS, [77, 78])
    warning = page.locator("#selection-warning")
    warning.wait_for(state="visible")
    box = warning.bounding_box()
    assert box is not None and 0 <= box["y"] <= page.viewport_size["height"]

    # A new person made and cited in one submit.
    assert page.evaluate(SELECT, [77, PHRASE])
    dialog = page.locator("#cite-dialog")
    dialog.wait_for(state="visible")
    dialog.locator("[name=target_type]").select_option("person")
    dialog.locator("[data-role=new-record-toggle]").click()
    name = dialog.locator("[name=new_name]")
    name.wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('[name=new_slug]').value !== ''")
    assert name.input_value() == PHRASE
    name.fill("第36师哨兵")
    page.wait_for_function("() => document.querySelector('[name=new_slug]').value === 'di-36-shishaobing'")
    dialog.locator("[name=new_words_kind]").select_option("alias")
    dialog.locator("[name=claim]").fill("stood at the gate with a machine gun")
    page.screenshot(path=str(screenshot_dir / "reader-new-person-dialog-en.png"))
    dialog.locator("input[name=_submit]").click()
    page.wait_for_url(f"{base}{reader}*")
    assert "made and cited" in page.locator("#passage-77 [data-role=passage-messages]").inner_text()
    person = Person.objects.get(slug="di-36-shishaobing")
    made = Citation.objects.get(person=person)
    assert (person.status, made.status, made.quote) == (Status.IN_REVIEW, Status.IN_REVIEW, PHRASE)

    # One suggested mention of §77 cited with a click.
    suggestion = page.locator("#passage-77 [data-role=mentions] button").first
    suggestion.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "reader-suggestions-en.png"))
    before = Citation.objects.count()
    suggestion.click()
    page.wait_for_load_state()
    assert Citation.objects.count() == before + 1
    mention = Citation.objects.latest("pk")
    assert mention.status == Status.IN_REVIEW and mention.created_by == curator and mention.passage.seq == 77

    # The same pages in Traditional Chinese.
    page.goto(f"{base}{reader}?seq=77")
    with page.expect_navigation():
        page.select_option("#language-select", "zh-hant")
    page.goto(f"{base}{reader}?seq=77")
    assert page.locator("html").get_attribute("lang") == "zh-hant"
    page.locator("#passage-77").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "reader-suggestions-zh-hant.png"))
    page.evaluate(SELECT, [77, "城门口"])
    page.locator("#cite-dialog").wait_for(state="visible")
    page.locator("#cite-dialog [data-role=new-record-toggle]").click()
    page.locator("#cite-dialog [name=new_name]").wait_for(state="visible")
    page.screenshot(path=str(screenshot_dir / "reader-new-record-dialog-zh-hant.png"))

    # Coverage at a glance on the curators' index.
    page.goto(f"{base}/admin/curate/?q=南京")
    history_row = page.locator("table.sources-table tr", has_text="history-nanjing-retreat").or_(
        page.locator("table.sources-table tr", has=page.locator(f"a[href='{reader}']"))
    )
    assert "/ 125" in history_row.locator(".coverage-passages").inner_text()
    page.screenshot(path=str(screenshot_dir / "curators-index-coverage-zh-hant.png"), full_page=True)

    # The reviewer sees the new person, its citation and the mention in the queue.
    review = new_page()
    log_in(review, base, reviewer.username, "/admin/curate/review/")
    for citation in (made, mention):
        assert review.locator(f"#record-citation-{citation.pk}").count() == 1
    assert review.locator(f"#record-person-{person.pk}").count() == 1
    review.screenshot(path=str(screenshot_dir / "review-queue-after-reader.png"), full_page=True)

    host = base.rstrip("/")
    assert requests and all(url.startswith(host) for url in requests), "every asset is served by the app"
