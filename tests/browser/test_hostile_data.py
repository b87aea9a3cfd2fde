"""End to end: names, descriptions, quotes and claims that carry script reach every page as text.

The shipped collection is loaded and its published texts are overwritten with
the usual payloads (an image whose error handler runs script, a closing
script tag, a `javascript:` URL, U+2028). Every public page and every curator
page that shows them is opened in headless chromium: no dialog opens, the
title stays the page's own, no payload's handler runs, and the console holds
no Content-Security-Policy violation, which our own scripts and styles would
cause if they broke the policy.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User

from archive.models import Citation, Event, Location, Person, Source, Statement, Status, Unit
from archive.roles import ensure_groups
from tests.browser.accounts import PASSWORD, log_in
from tests.factories import in_status
from tests.shipped import load_shipped_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RUN = "window.__pwned=1;document.title='pwned';alert(1)"
IMG = f'<img src=x onerror="{RUN}">'
SCRIPT = f"</script><script>{RUN}</script>"
JS_URL = "javascript:alert(2)"
# The shortest hostile text, for fields of a few words; every payload is in each.
HOSTILE = f"{IMG}\u2028{SCRIPT}<a href=\"{JS_URL}\">x</a>"


def _poison() -> dict[str, str]:
    """The published texts the pages show, overwritten in place (the pages read the live rows)."""
    Location.objects.filter(slug="xiaguan").update(name=f"下关{HOSTILE}", description=HOSTILE)
    Person.objects.filter(slug="cheng-kuilang").update(name=f"程奎朗{HOSTILE}", description=HOSTILE)
    Unit.objects.filter(slug="51st-division").update(name=f"第51师{HOSTILE}", description=HOSTILE)
    Event.objects.filter(slug="xiaguan-crossings").update(title=f"下关渡江{HOSTILE}", description=HOSTILE)
    Source.objects.filter(slug="history-nanjing-retreat").update(
        title=f"史{HOSTILE}", description=HOSTILE, url=JS_URL)
    Citation.objects.filter(person__slug="cheng-kuilang").update(claim=HOSTILE)
    Statement.objects.filter(event__slug="xiaguan-crossings").update(as_written=HOSTILE)
    waiting = in_status(Person(slug="hostile-waiting", name=f"待审{HOSTILE}", description=HOSTILE), Status.IN_REVIEW)
    return {"waiting": waiting.slug}


def _watch(page: Any, seen: list[str]) -> None:
    def on_dialog(dialog: Any) -> None:
        seen.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def on_console(message: Any) -> None:
        text = message.text
        if "Content Security Policy" in text or "Content-Security-Policy" in text:
            seen.append(f"console: {text}")

    page.on("dialog", on_dialog)
    page.on("console", on_console)
    page.on("pageerror", lambda error: seen.append(f"error: {error}"))


def _visit(page: Any, url: str, seen: list[str], ready: str = "main, #content, #swagger-ui") -> None:
    before = len(seen)
    page.goto(url)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    state = page.evaluate(
        "() => ({title: document.title, pwned: window.__pwned === 1,"
        " jsLinks: [...document.querySelectorAll('a[href]')].filter(a => /^\\s*javascript:/i.test(a.href)).length,"
        " injected: document.querySelectorAll('img[src=x], img[onerror]').length})"
    )
    assert state["title"] != "pwned", url  # the payload sets exactly this title
    assert not state["pwned"], url
    assert state["jsLinks"] == 0, url
    assert state["injected"] == 0, url
    assert seen[before:] == [], url


def test_hostile_texts_stay_text_on_every_page(live_server: Any, new_page: Any) -> None:
    # A transactional test before this one may have flushed the groups the migrations made.
    ensure_groups(Group, Permission)
    load_shipped_collection()
    waiting = _poison()["waiting"]
    base = live_server.url
    seen: list[str] = []
    page = new_page()
    _watch(page, seen)

    public = ["/", "/people/cheng-kuilang/", "/units/51st-division/", "/places/xiaguan/",
              "/events/xiaguan-crossings/", "/sources/history-nanjing-retreat/", "/timeline/",
              "/timeline/?fiction=include", "/map/", "/order-of-battle/", "/night/?at=1937-12-12T21:00"]
    for path in public:
        _visit(page, f"{base}{path}", seen)

    # The texts are there, as text: the map's permanent label, the timeline's row label, the tree's unit.
    page.goto(f"{base}/map/")
    page.wait_for_selector(".leaflet-tooltip")
    labels = page.eval_on_selector_all(".leaflet-tooltip", "tips => tips.map(t => t.textContent)")
    assert f"下关{HOSTILE}" in labels
    page.locator(".leaflet-interactive").first.wait_for()
    page.goto(f"{base}/timeline/")
    rows = page.eval_on_selector_all("#timeline text.row-label", "labels => labels.map(l => l.textContent)")
    assert any(label.startswith("下关渡江<img") for label in rows), rows
    page.goto(f"{base}/order-of-battle/")
    assert HOSTILE in page.locator("#unit-51st-division summary .unit-name").text_content()
    page.goto(f"{base}/night/?at=1937-12-12T21:00")
    page.wait_for_selector("#night-map .leaflet-tooltip")
    labels = page.eval_on_selector_all("#night-map .leaflet-tooltip", "tips => tips.map(t => t.textContent)")
    assert any(label.startswith(f"下关{HOSTILE} · ") for label in labels), labels
    assert seen == []

    # The API docs run under the same policy, from the app's own files.
    _visit(page, f"{base}/api/docs/", seen, ready="#swagger-ui .information-container")

    # A reviewer's pages: the reader, the queue (which holds the hostile record), their work, the audit.
    User.objects.create_superuser("hostile-reviewer", password=PASSWORD)
    log_in(page, base, "hostile-reviewer", "/admin/curate/")
    curator = ["/admin/curate/", "/admin/curate/sources/history-nanjing-retreat/read/", "/admin/curate/review/",
               "/admin/curate/my-work/", "/admin/curate/audit/", "/admin/curate/events/xiaguan-crossings/accounts/",
               "/admin/archive/person/", f"/admin/archive/person/?q={waiting}"]
    for path in curator:
        _visit(page, f"{base}{path}", seen)
    page.goto(f"{base}/admin/curate/review/")
    assert f"待审{IMG}" in page.locator("#content").inner_text()
