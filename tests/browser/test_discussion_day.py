"""End to end: the cite dialog's defaults, and a thread with "changes requested" between curator and reviewer.

Both tests start from the same small world: a source of three passages, a
person known by a courtesy name, a unit and a place, a curator and a reviewer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from archive.models import Citation, Comment, CommentKind, Location, Person, Status, Unit
from archive.roles import ensure_groups
from archive.services import records, review
from tests.browser.accounts import account, log_in
from tests.factories import approved, source_with_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "唐孟潇于12日傍晚离开司令部。\n\n第74军向挹江门撤退。\n\n部队在下关码头渡江。\n"

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
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
      el.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
      return true;
    }
  }
  return false;
}
"""


@pytest.fixture
def world(live_server: Any) -> dict[str, Any]:
    ensure_groups(Group, Permission)
    source = source_with_text(TEXT, slug="thread-day", kind="history")
    person = approved(Person(slug="tang", name="唐生智"))
    person.names.create(name="唐孟潇", kind="courtesy")
    return {
        "base": live_server.url,
        "source": source,
        "person": person,
        "unit": approved(Unit(slug="army-74", name="第74军", echelon="army")),
        "place": approved(Location(slug="yijiang", name="挹江门", kind="gate")),
        "curator": account("thread-curator", "curator"),
        "reviewer": account("thread-reviewer", "reviewer"),
    }


def test_the_cite_dialog_follows_what_the_selection_names(
    world: dict[str, Any], new_page: Any, screenshot_dir: Path
) -> None:
    base, person = world["base"], world["person"]
    reader = f"/admin/curate/sources/{world['source'].slug}/read/"
    page = new_page()
    log_in(page, base, world["curator"].username, reader)
    page.goto(f"{base}{reader}?cited=no&page_size=50")
    dialog = page.locator("#cite-dialog")

    # A courtesy name: "Evidence for" is a person and the person is chosen; the claim may stay empty.
    assert page.evaluate(SELECT, [1, "唐孟潇"])
    dialog.wait_for(state="visible")
    page.wait_for_function(f"() => document.querySelector('#cite-dialog [name=target_id]').value === '{person.pk}'")
    assert dialog.locator("[name=target_type]").input_value() == "person"
    claim = dialog.locator("[name=claim]")
    assert claim.get_attribute("placeholder") == "named here (may stay empty)"
    offered = dialog.locator("[data-role=claim-templates] option").evaluate_all("(os) => os.map((o) => o.value)")
    assert offered[:3] == ["named here", "commands X", "present at Y"]
    page.screenshot(path=str(screenshot_dir / "cite-dialog-defaults-en.png"))
    dialog.locator("input[name=_save]").click()
    page.wait_for_url("**focus=1*")
    assert "cited=no" in page.url and "page_size=50" in page.url  # the reader as it was left
    assert Citation.objects.get(person=person).claim == "named here"

    # Words that name nothing known: the kind used last; typing searches every kind, a pick sets the kind.
    assert page.evaluate(SELECT, [3, "渡江"])
    dialog.wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('#cite-dialog [name=target_type]').value === 'person'")
    dialog.locator("[data-role=target-search]").fill("挹江门")
    option = dialog.locator("[name=target_id] option", has_text="挹江门")
    option.wait_for(state="attached")
    assert option.get_attribute("data-kind") == "location"
    dialog.locator("[name=target_id]").select_option(str(world["place"].pk))
    assert dialog.locator("[name=target_type]").input_value() == "location"
    dialog.locator("[name=claim]").fill("the retreat passes the gate")
    dialog.locator("input[name=_save]").click()
    page.wait_for_url("**focus=3*")
    assert Citation.objects.get(location=world["place"]).claim == "the retreat passes the gate"

    # The claim written is offered next time, first.
    assert page.evaluate(SELECT, [2, "第74军"])
    dialog.wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('#cite-dialog [name=target_type]').value === 'unit'")
    offered = dialog.locator("[data-role=claim-templates] option").evaluate_all("(os) => os.map((o) => o.value)")
    assert offered[0] == "the retreat passes the gate" and "commanded by X" in offered


def test_a_thread_and_changes_requested_between_curator_and_reviewer(
    world: dict[str, Any], new_page: Any, screenshot_dir: Path
) -> None:
    base, curator = world["base"], world["curator"]
    draft = records.record_create(record=Person(slug="song", name="宋希濂", description="commander"), by=curator)
    review.submit(draft, by=curator)
    key = f"person-{draft.pk}"

    queue = new_page()
    log_in(queue, base, world["reviewer"].username, "/admin/curate/review/")
    item = queue.locator(f"#record-{key}")
    item.locator(f"[name=comment-{key}]").fill("Which passage names him?")
    item.locator(f"button[value='comment:{key}']").click()
    queue.wait_for_url(f"**#thread-{key}")
    assert "Which passage names him?" in queue.locator(f"#thread-{key}").inner_text()
    queue.locator(f"#record-{key} [name=note-{key}]").fill("Cite the passage that names him first.")
    queue.screenshot(path=str(screenshot_dir / "review-thread-en.png"), full_page=True)
    queue.locator(f"#record-{key} button[value='changes:{key}']").click()
    queue.wait_for_load_state()
    assert "went back to its author" in queue.locator("ul.messagelist").inner_text()
    draft.refresh_from_db()
    assert draft.status == Status.DRAFT

    mine = new_page()
    log_in(mine, base, curator.username, "/admin/curate/my-work/")
    waiting = mine.locator("#my-waiting")
    assert "Cite the passage that names him first." in waiting.inner_text()
    waiting.locator(f"[name=comment-{key}]").fill("Done: §2 names him.")
    waiting.locator(f"button[value='comment:{key}']").click()
    mine.wait_for_url(f"**#thread-{key}")
    mine.screenshot(path=str(screenshot_dir / "my-work-waiting-en.png"), full_page=True)
    kinds = list(Comment.objects.order_by("pk").values_list("kind", flat=True))
    assert kinds == [CommentKind.COMMENT, CommentKind.CHANGES_REQUESTED, CommentKind.COMMENT]
