"""End to end: the reading room's pictures in headless chromium, in each language, with nothing from another host.

The shipped collection is loaded into the live server's database. Every
request the pages make is recorded and must go to the live server itself;
screenshots of each picture in each language go to screenshots/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.shipped import load_shipped_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "zh-hans", "zh-hant")
# The timeline's title in each language, to tell that the page really speaks it.
TIMELINE = {"en": "Timeline", "zh-hans": "时间轴", "zh-hant": "時間軸"}
DAY_12 = "from=1937-12-12T00:00&to=1937-12-13T00:00"


def _load_collection() -> None:
    load_shipped_collection()


def _reader(new_page: Any, base: str, language: str, requests: list[str], *, width: int = 1400) -> Any:
    page = new_page()
    page.set_viewport_size({"width": width, "height": 1000})
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    page.on("request", lambda request: requests.append(request.url))
    return page


def _row_order(page: Any) -> list[str]:
    return page.eval_on_selector_all("#timeline g.row", "rows => rows.map(r => r.dataset.slug)")


def _bar_kinds(page: Any, slug: str) -> list[str]:
    return page.eval_on_selector_all(f'#timeline g.row[data-slug="{slug}"] rect.bar',
                                     "bars => bars.map(b => b.dataset.kind)")


def test_the_reading_room_in_each_language(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    _load_collection()
    base = live_server.url
    requests: list[str] = []
    for language in LANGUAGES:
        page = _reader(new_page, base, language, requests)

        # The timeline of 12 December: the 17:00 meeting before the crossings, the novel's times left out.
        page.goto(f"{base}/timeline/?{DAY_12}")
        assert TIMELINE[language] in page.locator("h1").inner_text()
        page.click('button[data-zoom="day12"]')
        order = _row_order(page)
        assert order.index("meeting-1700-12-december") < order.index("xiaguan-crossings")
        assert _bar_kinds(page, "yijiangmen-crush") == ["history"]
        page.screenshot(path=str(screenshot_dir / f"room-timeline-{language}.png"), full_page=False)

        # With fiction asked for, the novel's account of the crush is drawn beside the history's.
        page.goto(f"{base}/timeline/?{DAY_12}&fiction=include")
        page.click('button[data-zoom="night12"]')
        assert sorted(_bar_kinds(page, "yijiangmen-crush")) == ["history", "web-novel"]
        hover = page.locator('#timeline g.row[data-slug="yijiangmen-crush"] rect.kind-web-novel title').text_content()
        assert "下午五点" in hover
        assert page.locator(".invented-track li").count() > 0
        page.screenshot(path=str(screenshot_dir / f"room-timeline-fiction-{language}.png"), full_page=False)

        # The map: the gate, the riverside and the far bank, on the app's own base layer.
        page.goto(f"{base}/map/")
        page.wait_for_selector(".leaflet-overlay-pane path")
        page.wait_for_load_state("networkidle")
        labels = page.eval_on_selector_all(".leaflet-tooltip", "tips => tips.map(t => t.textContent)")
        for name in ("挹江门", "下关", "浦口"):
            assert name in labels
        page.locator("#map").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"room-map-{language}.png"), full_page=False)

        # The order of battle: the 51st Division inside the 74th Army.
        page.goto(f"{base}/order-of-battle/")
        division = page.locator("#unit-74th-army #unit-51st-division summary")
        # The Traditional pages write the archive's names in Traditional characters.
        assert {"zh-hant": "第51師"}.get(language, "第51师") in division.inner_text()
        # A unit opens from the keyboard: its commander appears.
        division.focus()
        page.keyboard.press("Enter")
        assert page.locator("#unit-51st-division > details").get_attribute("open") is not None
        assert page.locator("#unit-51st-division .commanders").first.is_visible()
        page.locator("#unit-74th-army").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"room-order-of-battle-{language}.png"), full_page=False)

        # The edition of the history: §77 links to 程奎朗.
        page.goto(f"{base}/sources/history-nanjing-retreat/#p-77")
        link = page.locator('#p-77 a.target[href="/people/cheng-kuilang/"]')
        assert link.inner_text() == "程奎朗"
        page.locator("#p-77").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"room-edition-{language}.png"), full_page=False)
        link.click()
        page.wait_for_url(f"{base}/people/cheng-kuilang/")
        assert page.locator("h1").inner_text().startswith("程奎朗")

    # A phone's width: the timeline still fits and its table scrolls on its own.
    phone = _reader(new_page, base, "zh-hans", requests, width=390)
    phone.goto(f"{base}/timeline/?{DAY_12}")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 400
    phone.screenshot(path=str(screenshot_dir / "room-timeline-phone-zh-hans.png"), full_page=False)

    host = urlsplit(base).netloc
    elsewhere = sorted({url for url in requests if urlsplit(url).netloc != host})
    assert requests and not elsewhere, elsewhere
