"""The reading room as a reader meets it, in headless chromium: no sideways scrolling, search from the box, quotes.

In English, 简体 and 繁體, at a laptop's width (1366 px) and a phone's (390 px):
no page scrolls sideways, the search box finds 唐生智 from 唐司令, 蔣介石
(among passages) and `tang`, and every page prints each quotation once (as many
quotations as citations).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.shipped import load_shipped_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "zh-hans", "zh-hant")
WIDTHS = (1366, 390)
PAGES = ("/", "/search/?q=南京", "/people/tang-shengzhi/", "/events/meeting-1700-12-december/", "/places/nanjing/",
         "/units/74th-army/", "/sources/history-nanjing-retreat/", "/order-of-battle/", "/releases/")
SEARCHES = {"唐司令": "/people/tang-shengzhi/", "tang": "/people/tang-shengzhi/", "蔣介石": "/people/chiang-kai-shek/"}


def _load_collection() -> None:
    from archive import search
    from archive.models import Source
    from archive.search import snapshot

    load_shipped_collection()
    search.reindex(Source.objects.all())
    snapshot.clear()


def _sideways(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def _quotes(page: Any) -> tuple[int, int]:
    return page.evaluate("""() => {
        const quotes = [...document.querySelectorAll('a.quote[data-citation]')];
        return [quotes.length, new Set(quotes.map(q => q.dataset.citation)).size];
    }""")


def test_room_pages_fit_search_finds_and_quotes_are_printed_once(
        live_server: Any, new_page: Any, screenshot_dir: Path) -> None:
    _load_collection()
    from archive.models import Person

    assert Person.objects.filter(slug__in=[path.split("/")[2] for path in SEARCHES.values()]).count() == 2
    base = live_server.url
    page = new_page()
    problems = []
    for language in LANGUAGES:
        page.context.clear_cookies()
        page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for path in PAGES:
                response = page.goto(f"{base}{path}")
                assert response is not None and response.status == 200, path
                if (over := _sideways(page)) > 0:
                    problems.append((language, width, path, f"scrolls {over}px sideways"))
                printed, cited = _quotes(page)
                if printed != cited:
                    problems.append((language, width, path, f"{printed} quotations for {cited} citations"))
            for query, found in SEARCHES.items():
                page.goto(f"{base}/")
                page.fill("#room-search", query)
                page.press("#room-search", "Enter")
                page.wait_for_url("**/search/?q=*")
                if page.locator(f'a[href="{found}"]').count() == 0:
                    problems.append((language, width, query, "not found from the box"))
            if width == 390:
                page.goto(f"{base}/search/?q=蔣介石")
                page.screenshot(path=str(screenshot_dir / f"room-search-{language}-{width}.png"), full_page=True)
                page.goto(f"{base}/events/meeting-1700-12-december/")
                page.screenshot(path=str(screenshot_dir / f"room-event-{language}-{width}.png"), full_page=True)
    assert not problems, problems
