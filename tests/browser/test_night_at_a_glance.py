"""End to end: the night at a glance, the timeline and the map in headless chromium, on the shipped collection.

One live server and one loaded collection for every check: the night view at
21:00 on 12 December places 唐生智 at 煤炭港 and shows the 74th Army's crossing,
the slider moves the moment from the keyboard, and no label of the timeline or
of either map overlaps another, at a desktop's width and at a phone's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.shipped import load_shipped_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)
NIGHT = "/night/?at=1937-12-12T21:00"

# The boxes of the visible elements matching a selector, as [left, top, right, bottom].
BOXES = """nodes => nodes
  .filter(n => getComputedStyle(n).visibility !== "hidden" && getComputedStyle(n).display !== "none")
  .map(n => n.getBoundingClientRect())
  .filter(r => r.width > 0 && r.height > 0)
  .map(r => [r.left, r.top, r.right, r.bottom])"""


def _overlapping(boxes: list[list[float]]) -> list[tuple[int, int]]:
    """Pairs of boxes that share more than a hair (half a pixel) of area."""
    pairs = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5:
                pairs.append((i, j))
    return pairs


def _inside(boxes: list[list[float]], frame: dict[str, float]) -> None:
    right, bottom = frame["x"] + frame["width"], frame["y"] + frame["height"]
    outside = [box for box in boxes if not (frame["x"] - 0.5 <= box[0] and box[2] <= right + 0.5
                                            and frame["y"] - 0.5 <= box[1] and box[3] <= bottom + 0.5)]
    assert not outside, (frame, outside)


def _reached_by_keyboard(page: Any, holder: str, name: str, key: str) -> None:
    """Tab from the page's start reaches a marker of the map, named; `key` opens what a click opens."""
    page.locator("body").focus()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    reached = None
    for _ in range(200):
        page.keyboard.press("Tab")
        reached = page.evaluate(f"""() => {{
          const node = document.activeElement;
          return node && node.closest("{holder}") && node.matches("path.leaflet-interactive")
            ? node.getAttribute("aria-label") : null; }}""")
        if reached and name in reached:
            break
    assert reached and name in reached, reached
    assert page.locator(f"{holder} .leaflet-popup").count() == 0
    page.keyboard.press(key)
    popup = page.locator(f"{holder} .leaflet-popup")
    popup.wait_for()
    assert reached.split(":")[0].split(" · ")[0] in popup.inner_text()


def _no_horizontal_scroll(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url


def test_the_night_at_a_glance(live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    load_shipped_collection()
    base = live_server.url
    for width in WIDTHS:
        page = new_page()
        page.set_viewport_size({"width": width, "height": 900})

        # The night view: the table the script keeps, and the labels on its map.
        page.goto(f"{base}{NIGHT}")
        page.wait_for_selector("#night-map .place-label")
        tang = page.locator('#positions-body tr[data-who="person:tang-shengzhi"]')
        assert tang.count() == 1
        assert tang.get_attribute("data-place") == "meitangang"
        assert "煤炭港" in tang.inner_text()
        crossing = page.locator('#positions-body tr[data-who="unit:74th-army"]')
        assert crossing.count() > 0
        assert "第74军小火轮" in crossing.first.inner_text()
        # Every shown place keeps its label, on a phone's map too: moved, led back by a line or shortened.
        labels = page.eval_on_selector_all("#night-map .place-label", BOXES)
        markers = page.locator("#night-map path.leaflet-interactive").count()
        controls = page.eval_on_selector_all("#night-map .leaflet-control", BOXES)
        assert labels and len(labels) == markers and not _overlapping(labels + controls)
        assert page.locator("#night-map .place-label.label-hidden").count() == 0
        _inside(labels, page.locator("#night-map").bounding_box())
        named = page.eval_on_selector_all("#night-map .place-label", "nodes => nodes.map(n => n.textContent)")
        assert any("煤炭港" in text for text in named), named
        _no_horizontal_scroll(page, width)
        page.screenshot(path=str(screenshot_dir / f"room-night-{width}.png"), full_page=False)
        page.locator("#night-map").screenshot(path=str(screenshot_dir / f"room-night-map-{width}.png"))
        if width < 1000:
            _reached_by_keyboard(page, "#night-map", "煤炭港", "Enter")

        # The slider answers the keyboard: a quarter of an hour later, the page's address follows.
        page.locator("#moment-slider").focus()
        page.keyboard.press("ArrowRight")
        assert page.locator("#moment-shown").inner_text() == "1937-12-12 21:15"
        assert "at=1937-12-12T21%3A15" in page.url or "at=1937-12-12T21:15" in page.url

        # The timeline of the night, grouped by unit: no label touches another, every bar's source is written.
        page.goto(f"{base}/timeline/?group=unit")
        page.click('button[data-zoom="night12"]')
        texts = page.eval_on_selector_all("#timeline svg text", BOXES)
        assert texts and not _overlapping(texts)
        assert page.locator("#timeline .source-label").count() > 0
        assert page.locator("#timeline .group-label").count() > 0
        _no_horizontal_scroll(page, width)
        page.screenshot(path=str(screenshot_dir / f"room-timeline-night-{width}.png"), full_page=False)

        # The map of the three days: its permanent labels kept apart, the view fitted to them.
        page.goto(f"{base}/map/")
        page.wait_for_selector("#map .place-label")
        shown = page.eval_on_selector_all("#map .place-label", BOXES)
        assert shown and not _overlapping(shown + page.eval_on_selector_all("#map .leaflet-control", BOXES))
        _inside(shown, page.locator("#map").bounding_box())
        if width < 1000:
            _reached_by_keyboard(page, "#map", "", " ")
        _no_horizontal_scroll(page, width)
