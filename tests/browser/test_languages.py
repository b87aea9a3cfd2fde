"""Screenshots of the admin in each of its languages, with readable Chinese.

The admin index, a changelist and the source reader are opened in English,
Simplified and Traditional Chinese through the header's language switcher,
checked for a label of that language, and photographed into screenshots/.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User

from archive.models import Person
from archive.roles import ensure_groups
from tests.browser.conftest import SCREENSHOTS
from tests.factories import approved, source_with_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "browser-lang-1937"
# A label of each page in each language: the persons changelist's title.
PERSONS_LABEL = {"en": "Select person to change", "zh-hans": "人物", "zh-hant": "人物"}
READER_LABEL = {"en": "Cited spans", "zh-hans": "已引证的文字", "zh-hant": "已引證的文字"}
INDEX_LABEL = {"en": "Archive of the retreat from Nanjing", "zh-hans": "南京撤退档案", "zh-hant": "南京撤退檔案"}


def test_admin_pages_in_each_language(live_server: Any, new_page: Any) -> None:
    # A transactional test before this one may have flushed the groups the migrations made.
    ensure_groups(Group, Permission)
    User.objects.create_superuser("polyglot", password=PASSWORD)
    source_with_text("唐生智于12日傍晚5点召开会议。\n\n部队拥向挹江门。\n", slug="history-text")
    approved(Person(slug="tang-shengzhi", name="唐生智"))
    page = new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "polyglot")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    SCREENSHOTS.mkdir(exist_ok=True)
    for language in ("en", "zh-hans", "zh-hant"):
        page.goto(f"{live_server.url}/admin/")
        with page.expect_navigation():
            page.select_option("#language-select", language)
        assert page.locator("html").get_attribute("lang") == language
        assert INDEX_LABEL[language] in page.content()
        page.screenshot(path=str(SCREENSHOTS / f"admin-index-{language}.png"))

        page.goto(f"{live_server.url}/admin/archive/person/")
        assert PERSONS_LABEL[language] in page.content()
        assert "唐生智" in page.content()
        page.screenshot(path=str(SCREENSHOTS / f"persons-changelist-{language}.png"))

        page.goto(f"{live_server.url}/admin/curate/sources/history-text/read/")
        assert READER_LABEL[language] in page.content()
        page.screenshot(path=str(SCREENSHOTS / f"reader-{language}.png"))
