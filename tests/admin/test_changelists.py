"""Every model has an admin whose changelist costs the same queries for 5 rows as for 50."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext

from archive.models import Status
from tests.admin.helpers import changelist, client_for, person, user, world

pytestmark = pytest.mark.django_db

MODELS = [
    "source",
    "passage",
    "person",
    "personname",
    "unit",
    "unitalias",
    "post",
    "location",
    "locationalias",
    "event",
    "participation",
    "citation",
    "slugredirect",
]


def test_every_archive_model_has_an_admin() -> None:
    archive_models = {
        model._meta.model_name
        for model in apps.get_app_config("archive").get_models()
        if not model._meta.model_name.startswith("historical") and not model._meta.auto_created
    }
    registered = {model._meta.model_name for model in admin.site._registry if model._meta.app_label == "archive"}
    assert set(MODELS) <= registered
    # Internal tables (the search index) may stay out of the admin; every curated model is in.
    assert {name for name in archive_models if name in MODELS} == set(MODELS)


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return len(captured)


# Rows per page while the query counts are compared: a query per row shows on any full page, and
# building the records through the review workflow is the slow part (about a second per row of every model).
PAGE = 8


def test_changelist_queries_do_not_grow_with_rows(django_assert_num_queries, monkeypatch) -> None:
    for model_admin in admin.site._registry.values():
        monkeypatch.setattr(model_admin, "list_per_page", PAGE)
    client = client_for(user(role="reviewer"))
    world(2)
    small = {name: _queries(client, changelist(apps.get_model("archive", name))) for name in MODELS}
    world(PAGE - 2)
    for name in MODELS:
        model = apps.get_model("archive", name)
        assert model._default_manager.count() >= PAGE, name
        with django_assert_num_queries(small[name]):
            response = client.get(changelist(model))
        assert response.status_code == 200, name
        assert len(response.context["cl"].result_list) == PAGE, name


@pytest.mark.parametrize("model_name", ["person", "unit", "location", "event", "citation", "post", "participation"])
def test_changelist_filters_answer(model_name: str, admin_client) -> None:
    world(2)
    model = apps.get_model("archive", model_name)
    url = changelist(model)
    for query in ("?status__exact=approved", "?fictional=yes", "?fictional=no", "?q=唐"):
        response = admin_client.get(url + query)
        assert response.status_code == 200, query


def test_fictional_filter_follows_the_evidence(admin_client) -> None:
    from tests.admin.helpers import source
    from tests.factories import cite

    novel = source(kind="novel")
    history = source()
    invented = person(name="孙百里", slug="sun-baili")
    real = person(name="唐生智", slug="tang-shengzhi")
    cite(novel.passages.get(seq=1), "唐生智", person=invented)
    cite(history.passages.get(seq=1), "唐生智", person=real)
    cite(novel.passages.get(seq=1), "离开司令部", person=real)
    listed = admin_client.get(changelist(invented.__class__) + "?fictional=yes").content.decode()
    assert "sun-baili" in listed and "tang-shengzhi" not in listed
    listed = admin_client.get(changelist(invented.__class__) + "?fictional=no").content.decode()
    assert "tang-shengzhi" in listed and "sun-baili" not in listed


def test_search_folds_traditional_and_finds_aliases(admin_client) -> None:
    from archive.models import PersonName

    tang = person(name="唐生智", slug="tang-shengzhi")
    PersonName.objects.create(person=tang, name="唐司令", kind="title")
    person(name="俞济时", slug="yu-jishi")
    for query in ("唐生智", "唐司令"):
        listed = admin_client.get(changelist(tang.__class__), {"q": query}).content.decode()
        assert "tang-shengzhi" in listed, query
        assert "yu-jishi" not in listed, query


def test_change_forms_of_every_model_render(admin_client) -> None:
    from django.urls import reverse

    made = world(1)
    for model_name in MODELS:
        model = apps.get_model("archive", model_name)
        record = model._default_manager.first()
        response = admin_client.get(reverse(f"admin:archive_{model_name}_change", args=[record.pk]))
        assert response.status_code == 200, model_name
    assert made["citation"][0].status == Status.APPROVED


def test_the_status_filter_offers_changes_requested_beside_the_states(admin_client) -> None:
    """A record returned with changes requested is a draft with the request in its thread; the filter finds it."""
    from archive.admin.lists import ReviewStateFilter
    from archive.services import decisions, review

    reviewer = user("changelist-reviewer", role="reviewer")
    returned = person(status=Status.IN_REVIEW, name="退回者")
    plain_draft = person(status=Status.DRAFT, name="草稿者")
    waiting = person(status=Status.IN_REVIEW, name="待审者")
    review.request_changes(returned, by=reviewer, note="Give his courtesy name.", shown=decisions.record_pin(returned))
    url = changelist(returned.__class__)

    offered = admin_client.get(url).content.decode()
    for value in [*Status.values, ReviewStateFilter.CHANGES_REQUESTED]:
        assert f"?status__exact={value}" in offered, value
    with CaptureQueriesContext(connection) as captured:
        response = admin_client.get(url + "?status__exact=changes_requested")
    shown = [record.pk for record in response.context["cl"].result_list]
    assert shown == [returned.pk]
    assert len(captured) == _queries(admin_client, url + "?status__exact=draft")  # one query whatever the filter
    drafts = {record.pk for record in admin_client.get(url + "?status__exact=draft").context["cl"].result_list}
    assert drafts == {returned.pk, plain_draft.pk}
    in_review = admin_client.get(url + "?status__exact=in_review").context["cl"].result_list
    assert [record.pk for record in in_review] == [waiting.pk]
    assert admin_client.get(url + "?status__exact=nonsense").status_code == 200
