"""The interface speaks English, Simplified and Traditional Chinese; the data is never translated."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from archive.models import Echelon, Event, Person, Status
from tests.factories import approved, user

pytestmark = pytest.mark.django_db

LABELS = {
    "en": {"unit": "unit", "army": "army", "division": "division", "regiment": "regiment", "approved": "approved"},
    "zh-hans": {"unit": "部队", "army": "军", "division": "师", "regiment": "团", "approved": "已批准"},
    "zh-hant": {"unit": "部隊", "army": "軍", "division": "師", "regiment": "團", "approved": "已批准"},
}


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_verbose_names_and_choices_follow_the_language(language: str) -> None:
    expected = LABELS[language]
    with translation.override(language):
        from archive.models import Unit

        assert str(Unit._meta.verbose_name) == expected["unit"]
        assert str(Echelon.ARMY.label) == expected["army"]
        assert str(Echelon.DIVISION.label) == expected["division"]
        assert str(Echelon.REGIMENT.label) == expected["regiment"]
        assert str(Status.APPROVED.label) == expected["approved"]


@pytest.mark.parametrize(
    ("language", "fragment"),
    [("en", "is not a valid EDTF date"), ("zh-hans", "上下界"), ("zh-hant", "上下界")],
)
def test_validation_messages_follow_the_language(language: str, fragment: str) -> None:
    import datetime as dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Shanghai")
    with translation.override(language):
        if language == "en":
            event = Event(slug="e", title="会议", kind="meeting", date="12日傍晚")
        else:
            event = Event(
                slug="e",
                title="会议",
                kind="meeting",
                date="1937-12-12",
                earliest=dt.datetime(1937, 12, 13, 17, tzinfo=tz),
                latest=dt.datetime(1937, 12, 13, 18, tzinfo=tz),
            )
        with pytest.raises(ValidationError) as caught:
            event.full_clean()
        assert fragment in " ".join(str(m) for messages in caught.value.message_dict.values() for m in messages)


def test_a_duplicate_slug_is_reported_in_chinese() -> None:
    approved(Person(slug="tang", name="唐生智"))
    with translation.override("zh-hans"):
        with pytest.raises(ValidationError) as caught:
            Person(slug="tang", name="另一人").full_clean()
        message = " ".join(caught.value.message_dict["slug"])
    assert "标识" in message, message


@pytest.mark.parametrize(("language", "heading"), [("en", "Persons"), ("zh-hans", "人物"), ("zh-hant", "人物")])
def test_admin_index_speaks_the_chosen_language(client, language: str, heading: str) -> None:
    client.force_login(user("polyglot", is_superuser=True))
    response = client.get("/admin/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    page = response.content.decode()
    assert heading in page
    if language != "en":
        # Django's own admin strings come from its shipped catalogues.
        assert ("站点管理" in page) or ("網站管理" in page) or ("站點管理" in page)


def test_the_language_switcher_remembers_the_choice(client) -> None:
    client.force_login(user("switcher", is_superuser=True))
    response = client.post("/i18n/setlang/", {"language": "zh-hant", "next": "/admin/"})
    assert response.status_code == 302
    page = client.get("/admin/").content.decode()
    assert "南京撤退檔案" in page
    assert 'lang="zh-hant"' in page


def test_data_is_never_translated(client) -> None:
    approved(Person(slug="sun-baili", name="孫百里", description="invented commander"))
    english = client.get("/api/v1/persons/sun-baili/?fiction=include", HTTP_ACCEPT_LANGUAGE="en").json()
    chinese = client.get("/api/v1/persons/sun-baili/?fiction=include", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert english["name"] == chinese["name"] == "孫百里"
    assert english["description"] == chinese["description"]


@pytest.mark.parametrize(("language", "fragment"), [("en", "Not found"), ("zh-hans", "未找到")])
def test_api_error_bodies_follow_accept_language(client, language: str, fragment: str) -> None:
    response = client.get("/api/v1/persons/nobody/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    assert fragment in response.content.decode()


def test_event_changelist_shows_the_date_as_written_beside_its_bounds(client) -> None:
    import datetime as dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Shanghai")
    approved(
        Event(
            slug="meeting-17",
            title="17时会议",
            kind="meeting",
            date_text="12日傍晚5点",
            date="1937-12-12",
            earliest=dt.datetime(1937, 12, 12, 17, tzinfo=tz),
            latest=dt.datetime(1937, 12, 12, 17, 59, 59, tzinfo=tz),
        )
    )
    client.force_login(user("dates", is_superuser=True))
    page = client.get("/admin/archive/event/").content.decode()
    assert "12日傍晚5点 (1937-12-12 17:00–17:59)" in page
