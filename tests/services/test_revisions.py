"""A published record stays served, unchanged, while an edit of it waits for a second person.

Each test edits an approved record by one path a curator has (the change form,
an inline, the name admin, a spreadsheet, a merge, a passage's role, a
deletion, the history's revert page) and reads the API as a reader would:
200 with the old values while the revision is pending (detail, list, search,
counts), the new values once someone who had no hand in it approves it, the
old values for good when it is rejected. The proposer, and everyone who added
to the same pending revision, cannot approve it.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from archive.models import DocumentVersion, Location, PassageRole, Person, PersonName, Revision, RevisionState, Status
from archive.services import decisions, revisions
from tests.admin.helpers import change_url, client_for, form_data, location, person, post, source, unit, user
from tests.services.helpers import (
    action,
    api_get,
    api_json,
    approve,
    change_form,
    detail_path,
    doc,
    edit,
    found,
    list_count,
    listed,
    pending,
    post_change,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> User:
    return user("rev-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("rev-reviewer", role="reviewer")


@pytest.fixture
def second_reviewer() -> User:
    return user("rev-reviewer-2", role="reviewer")


def names_of(document: dict) -> set[str]:
    return {entry["name"] for entry in document.get("names", document.get("aliases", []))}


# -- the change form


def test_a_change_form_edit_stays_pending_until_another_person_approves(
    curator: User, reviewer: User
) -> None:
    tang = person(slug="tang", name="唐生智", side="chinese", description="卫戍司令长官")
    japanese_before = list_count("person", side="japanese")
    response = edit(curator, tang, name="唐孟潇", side="japanese", description="南京卫戍司令长官")
    assert "went to review" in " ".join(str(m) for m in get_messages(response.wsgi_request))

    # Pending: every reading of the API shows the published version.
    document = doc(tang)
    assert (document["name"], document["side"], document["description"]) == ("唐生智", "chinese", "卫戍司令长官")
    assert [entry["name"] for entry in listed(tang)] == ["唐生智"]
    assert list_count("person", side="japanese") == japanese_before
    assert ("person", "tang") in found("唐生智") and ("person", "tang") not in found("唐孟潇")
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED and tang.name == "唐生智"

    # The proposer cannot approve their own change, even holding the review permission.
    revision = pending(tang)
    assert revision is not None and revision.created_by == curator
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))
    assert doc(tang)["name"] == "唐生智"

    approve(tang, by=reviewer)
    document = doc(tang)
    assert (document["name"], document["side"], document["description"]) == ("唐孟潇", "japanese", "南京卫戍司令长官")
    assert list_count("person", side="japanese") == japanese_before + 1
    assert ("person", "tang") in found("唐孟潇") and ("person", "tang") not in found("唐生智")
    assert pending(tang) is None


def test_a_rejected_revision_leaves_the_published_version_exactly_as_it_was(
    curator: User, reviewer: User
) -> None:
    tang = person(slug="tang", name="唐生智", description="卫戍司令长官")
    before = api_get(detail_path(tang)).content
    edit(curator, tang, description="错误的描述")
    revision = pending(tang)
    assert revision is not None
    with pytest.raises(ValidationError):
        revisions.reject_revision(
            revision=revision, by=reviewer, note="", shown=decisions.revision_pin(revision)
        )  # a rejection says why
    revisions.reject_revision(revision=revision, by=reviewer, note="不见于史料", shown=decisions.revision_pin(revision))
    assert api_get(detail_path(tang)).content == before
    assert pending(tang) is None
    revision.refresh_from_db()
    assert revision.state == RevisionState.REJECTED and revision.review_note == "不见于史料"
    # A rejected revision is decided: nobody approves it afterwards.
    with pytest.raises(ValidationError):
        revisions.approve_revision(revision=revision, by=user(role="reviewer"), shown=decisions.revision_pin(revision))
    assert api_get(detail_path(tang)).content == before


# -- inlines


def test_a_name_added_in_the_person_inline_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    client = client_for(curator)
    data = change_form(client, tang)
    data["names-0-name"] = "唐孟潇"
    data["names-0-kind"] = "courtesy"
    post_change(client, tang, data)
    assert not PersonName.objects.filter(name="唐孟潇").exists()
    assert "唐孟潇" not in names_of(doc(tang))
    assert ("person", "tang") not in found("唐孟潇")
    approve(tang, by=reviewer)
    assert "唐孟潇" in names_of(doc(tang))
    assert ("person", "tang") in found("唐孟潇")


def test_a_post_changed_in_the_unit_inline_is_pending(curator: User, reviewer: User) -> None:
    held = post(title="军长")
    division = held.unit
    client = client_for(curator)
    data = change_form(client, division)
    [prefix] = [key[: -len("-id")] for key, value in data.items() if key.endswith("-id") and value == str(held.pk)]
    data[f"{prefix}-title"] = "副军长"
    post_change(client, division, data)
    assert [entry["title"] for entry in doc(held.person)["posts"]] == ["军长"]
    assert [entry["title"] for entry in doc(division)["posts"]] == ["军长"]
    held.refresh_from_db()
    assert held.title == "军长" and held.status == Status.APPROVED
    approve(held, by=reviewer)
    assert [entry["title"] for entry in doc(held.person)["posts"]] == ["副军长"]


# -- the name and alias admins


def test_a_name_changed_in_the_name_admin_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    name = PersonName.objects.create(person=tang, name="唐孟萧", kind="courtesy")
    client = client_for(curator)
    url = reverse("admin:archive_personname_change", args=[name.pk])
    data = form_data(client.get(url))
    data["name"] = "唐孟潇"
    response = client.post(url, data)
    assert response.status_code == 302
    assert names_of(doc(tang)) == {"唐孟萧"}
    name.refresh_from_db()
    assert name.name == "唐孟萧"
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending(tang), by=curator, shown=decisions.revision_pin(pending(tang)))
    approve(tang, by=reviewer)
    assert names_of(doc(tang)) == {"唐孟潇"}


def test_a_name_reverted_from_its_history_page_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    name = PersonName.objects.create(person=tang, name="唐孟萧", kind="courtesy")
    first = name.history.latest()
    edit_url = reverse("admin:archive_personname_change", args=[name.pk])
    client = client_for(curator)
    data = form_data(client.get(edit_url))
    data["name"] = "唐孟潇"
    client.post(edit_url, data)
    approve(tang, by=reviewer)
    assert names_of(doc(tang)) == {"唐孟潇"}

    # A revert form never "has changed"; it is proposed all the same.
    url = reverse("admin:archive_personname_simple_history", args=[name.pk, first.history_id])
    response = client.post(url, form_data(client.get(url)))
    assert response.status_code == 302
    assert names_of(doc(tang)) == {"唐孟潇"}
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending(tang), by=curator, shown=decisions.revision_pin(pending(tang)))
    approve(tang, by=user(role="reviewer"))
    assert names_of(doc(tang)) == {"唐孟萧"}


def test_deleting_names_by_the_bulk_action_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    names = [PersonName.objects.create(person=tang, name=text) for text in ("唐孟潇", "孟潇")]
    response = action(curator, PersonName, "delete_selected", [name.pk for name in names], post="yes")
    assert response.status_code == 302
    assert PersonName.objects.filter(person=tang).count() == 2
    assert names_of(doc(tang)) == {"唐孟潇", "孟潇"}
    assert ("person", "tang") in found("孟潇")
    approve(tang, by=reviewer)
    assert names_of(doc(tang)) == set()
    assert ("person", "tang") not in found("孟潇")


def test_deleting_a_name_in_its_delete_view_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    name = PersonName.objects.create(person=tang, name="唐孟潇")
    response = client_for(curator).post(reverse("admin:archive_personname_delete", args=[name.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert names_of(doc(tang)) == {"唐孟潇"}
    approve(tang, by=reviewer)
    assert names_of(doc(tang)) == set()


# -- spreadsheets


def test_an_admin_import_that_changes_a_published_record_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智", side="chinese", birth="1889")
    client = client_for(curator)
    content = "slug,name,side,birth\ntang,唐生智,chinese,1890\n".encode()
    page = client.post(
        reverse("admin:archive_person_import"),
        {"format": "0", "import_file": SimpleUploadedFile("people.csv", content)},
    )
    assert page.status_code == 200 and "confirm_form" in page.context, page.content[:2000]
    confirm = page.context["confirm_form"]
    response = client.post(
        reverse("admin:archive_person_process_import"), {name: confirm[name].value() for name in confirm.fields}
    )
    assert response.status_code == 302
    assert doc(tang)["birth"] == "1889"
    tang.refresh_from_db()
    assert tang.birth == "1889" and tang.status == Status.APPROVED
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending(tang), by=curator, shown=decisions.revision_pin(pending(tang)))
    approve(tang, by=reviewer)
    assert doc(tang)["birth"] == "1890"


# -- merges


def test_a_merge_by_the_admin_action_is_pending_and_both_records_stay_served(
    curator: User, reviewer: User
) -> None:
    tang = person(slug="tang", name="唐生智")
    twin = person(slug="tang-twin", name="唐孟潇")
    before = list_count("person")
    response = action(curator, Person, "merge_selected", [tang.pk, twin.pk], apply="1", survivor=str(tang.pk))
    assert response.status_code == 302
    assert Person.objects.filter(pk=twin.pk).exists()
    assert doc(twin)["name"] == "唐孟潇" and doc(tang)["name"] == "唐生智"
    assert "唐孟潇" not in names_of(doc(tang))
    assert list_count("person") == before
    revision = pending(tang)
    assert revision is not None and revision.kind == "merge"
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))

    approve(tang, by=reviewer)
    assert "唐孟潇" in names_of(doc(tang))
    assert list_count("person") == before - 1
    # The duplicate's address now leads to the survivor.
    response = Client().get(detail_path(twin))
    assert response.status_code == 301 and response["Location"].endswith(detail_path(tang))


def test_a_rejected_merge_keeps_both_records(curator: User, reviewer: User) -> None:
    tang, twin = person(slug="tang", name="唐生智"), person(slug="tang-twin", name="唐孟潇")
    action(curator, Person, "merge_selected", [tang.pk, twin.pk], apply="1", survivor=str(tang.pk))
    revisions.reject_revision(
        revision=pending(tang), by=reviewer, note="两个人", shown=decisions.revision_pin(pending(tang))
    )
    assert doc(twin)["name"] == "唐孟潇" and doc(tang)["name"] == "唐生智"
    assert Person.objects.filter(pk=twin.pk, status=Status.APPROVED).exists()


# -- passages


def test_a_passage_role_and_quotes_are_pending(curator: User, reviewer: User) -> None:
    src = source()
    quoted = source()
    passage = src.passages.get(seq=2)
    path = f"/api/v1/passages/{passage.pk}/"
    assert api_json(path)["role"] == PassageRole.BODY
    client = client_for(curator)
    url = reverse("admin:archive_passage_change", args=[passage.pk])
    data = form_data(client.get(url))
    data.update(role=PassageRole.QUOTATION, quotes=str(quoted.pk))
    response = client.post(url, data)
    assert response.status_code == 302
    document = api_json(path)
    assert document["role"] == PassageRole.BODY and document["quotes"] is None
    passage.refresh_from_db()
    assert passage.role == PassageRole.BODY
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending(src), by=curator, shown=decisions.revision_pin(pending(src)))
    approve(src, by=reviewer)
    document = api_json(path)
    assert document["role"] == PassageRole.QUOTATION and document["quotes"] is not None


# -- deletion


def test_deleting_a_published_record_is_pending(reviewer: User, second_reviewer: User) -> None:
    operator = User.objects.create_superuser("rev-operator", password="pw-rev-operator")
    where = location(slug="yijiangmen", name="挹江门")
    gone = location(slug="xiaguan", name="下关")
    before = list_count("location")
    client = client_for(operator)
    response = client.post(reverse("admin:archive_location_delete", args=[where.pk]), {"post": "yes"})
    assert response.status_code == 302
    response = action(operator, Location, "delete_selected", [gone.pk], post="yes")
    assert response.status_code == 302
    assert doc(where)["name"] == "挹江门" and doc(gone)["name"] == "下关"
    assert list_count("location") == before
    assert ("location", "xiaguan") in found("下关")
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending(where), by=operator, shown=decisions.revision_pin(pending(where)))
    approve(where, by=reviewer)
    approve(gone, by=second_reviewer)
    for record in (where, gone):
        assert Client().get(detail_path(record)).status_code == 404
    assert list_count("location") == before - 2
    assert ("location", "xiaguan") not in found("下关")


# -- revert


def test_a_revert_from_the_history_page_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智", description="卫戍司令长官")
    good = tang.history.latest()
    edit(curator, tang, description="错误的描述")
    approve(tang, by=reviewer)
    assert doc(tang)["description"] == "错误的描述"
    client = client_for(curator)
    url = reverse("admin:archive_person_simple_history", args=[tang.pk, good.history_id])
    response = client.post(url, form_data(client.get(url)))
    assert response.status_code == 302
    assert doc(tang)["description"] == "错误的描述"
    revision = pending(tang)
    assert revision is not None and revision.kind == "revert"
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))
    approve(tang, by=user(role="reviewer"))
    assert doc(tang)["description"] == "卫戍司令长官"


def test_editing_back_to_the_published_values_withdraws_the_revision_at_once(curator: User) -> None:
    tang = person(slug="tang", name="唐生智", description="原文")
    edit(curator, tang, description="改过")
    revision = pending(tang)
    assert revision is not None
    edit(user(role="curator"), tang, description="原文")
    assert pending(tang) is None
    revision.refresh_from_db()
    assert revision.state == RevisionState.WITHDRAWN
    assert doc(tang)["description"] == "原文"


# -- four eyes by contribution


def test_whoever_added_to_a_pending_change_cannot_approve_it(reviewer: User, second_reviewer: User) -> None:
    # The attack: reviewer A edits a published place, curator B adds one
    # character to the same pending change, and A tries to approve it.
    where = location(slug="yijiangmen", name="挹江门", description="城门")
    edit(reviewer, where, description="城北的城门")
    other = user("rev-curator-b", role="curator")
    edit(other, where, description="城北的城门。")
    revision = pending(where)
    assert revision is not None
    assert revisions.contributors(revision) == {reviewer.pk, other.pk}
    for contributor in (reviewer, other):
        with pytest.raises(PermissionDenied):
            revisions.approve_revision(revision=revision, by=contributor, shown=decisions.revision_pin(revision))
        with pytest.raises(PermissionDenied):
            revisions.reject_revision(
                revision=revision, by=contributor, note="自己的", shown=decisions.revision_pin(revision)
            )
    assert doc(where)["description"] == "城门"
    approve(where, by=second_reviewer)
    assert doc(where)["description"] == "城北的城门。"


# -- concurrency


def test_a_stale_revision_form_is_refused_with_the_diff(curator: User) -> None:
    where = location(slug="yijiangmen", name="挹江门", description="城门")
    edit(curator, where, description="城北的城门")
    first, second = client_for(curator), client_for(user("rev-curator-2", role="curator"))
    stale = change_form(first, where)
    fresh = change_form(second, where)
    assert stale["revision_version"] == fresh["revision_version"] == str(pending(where).version)
    fresh["description"] = "城北的城门（挹江门）"
    post_change(second, where, fresh)
    stale["description"] = "南京城门"
    response = first.post(change_url(where), stale, follow=True)
    text = " ".join(str(message) for message in response.context["messages"])
    assert "nothing was saved" in text
    assert "城北的城门（挹江门）" in text  # what the pending change now proposes
    revision = pending(where)
    assert revision.changes["fields"] == {"description": "城北的城门（挹江门）"}
    assert doc(where)["description"] == "城门"


def test_a_form_posted_without_its_revision_version_is_refused_as_stale(curator: User) -> None:
    where = location(slug="yijiangmen", name="挹江门", description="城门")
    edit(curator, where, description="城北的城门")
    other = client_for(user("rev-curator-3", role="curator"))
    posted = change_form(other, where)
    del posted["revision_version"]
    posted["description"] = "另一位的改动"
    stale = change_form(other, where)
    stale["revision_version"] = "0"
    stale["description"] = "另一位的改动"
    texts = []
    for data in (posted, stale):
        response = other.post(change_url(where), data, follow=True)
        texts.append(" ".join(str(message) for message in response.context["messages"]))
        assert pending(where).changes["fields"] == {"description": "城北的城门"}
    assert "nothing was saved" in texts[0] and "城北的城门" in texts[0]
    assert texts[0] == texts[1]  # the same message as a stale form's
    assert doc(where)["description"] == "城门"


# -- scripts, HTTP caching, cost


def test_a_scripts_save_of_a_published_record_is_refused_naming_the_service() -> None:
    tang = person(slug="tang", name="唐生智")
    tang.description = "脚本改的"
    with pytest.raises(ValidationError, match=r"archive\.services"):
        tang.save()
    fresh = Person.objects.get(pk=tang.pk)
    fresh.name = "唐孟潇"
    with pytest.raises(ValidationError, match=r"archive\.services"):
        fresh.save()
    assert doc(tang)["name"] == "唐生智" and doc(tang)["description"] == ""


def test_etag_and_last_modified_change_only_when_the_revision_is_approved(
    curator: User, reviewer: User
) -> None:
    tang = person(slug="tang", name="唐生智", description="原文")
    before = api_get(detail_path(tang))
    edit(curator, tang, description="改过")
    during = api_get(detail_path(tang))
    assert (during["ETag"], during["Last-Modified"]) == (before["ETag"], before["Last-Modified"])
    not_modified = Client().get(detail_path(tang), HTTP_IF_NONE_MATCH=before["ETag"])
    assert not_modified.status_code == 304
    Person.objects.filter(pk=tang.pk).update(updated_at=tang.updated_at.replace(year=tang.updated_at.year - 1))
    DocumentVersion.objects.bump_everything()  # as every write around the model signals must
    tang.refresh_from_db()
    before = api_get(detail_path(tang))
    approve(tang, by=reviewer)
    after = api_get(detail_path(tang))
    assert after["ETag"] != before["ETag"] and after["Last-Modified"] != before["Last-Modified"]


def test_a_pending_revision_costs_the_api_no_query(curator: User, django_assert_num_queries) -> None:
    plain = person(slug="plain", name="甲")
    revised = person(slug="revised", name="乙")
    for record in (plain, revised):
        post(person=record, unit=unit())
    edit(curator, revised, description="改过")
    assert pending(revised) is not None and pending(plain) is None
    for record in (plain, revised):
        api_get(detail_path(record))  # warm the per-process caches (content types, translations), store the document
    with CaptureQueriesContext(connection) as plain_queries:
        api_get(detail_path(plain))
    with django_assert_num_queries(len(plain_queries.captured_queries)):
        api_get(detail_path(revised))
    api_get("/api/v1/persons/", side="chinese")  # stores the documents of the page
    with CaptureQueriesContext(connection) as list_with_pending:
        api_get("/api/v1/persons/", side="chinese")
    Revision.objects.filter(state=RevisionState.PENDING).delete()
    with django_assert_num_queries(len(list_with_pending.captured_queries)):
        api_get("/api/v1/persons/", side="chinese")


def test_every_format_of_a_record_serves_the_published_version(curator: User, reviewer: User) -> None:
    where = location(slug="yijiangmen", name="挹江门", latitude="32.090500", longitude="118.752200")
    requests = [
        (detail_path(where), {"format": "geojson"}),
        ("/api/v1/locations/", {"format": "geojson"}),
        ("/api/v1/locations/", {"format": "csv"}),
    ]
    before = [api_get(path, **params).content for path, params in requests]
    edit(curator, where, name="挹江門", latitude="32.091000")
    assert [api_get(path, **params).content for path, params in requests] == before
    approve(where, by=reviewer)
    after = [api_get(path, **params).content for path, params in requests]
    for old, new in zip(before, after, strict=True):
        assert old != new and "挹江門" in new.decode() and "挹江門" not in old.decode()


def test_a_name_deleted_in_the_person_inline_is_pending(curator: User, reviewer: User) -> None:
    tang = person(slug="tang", name="唐生智")
    PersonName.objects.create(person=tang, name="唐孟潇")
    client = client_for(curator)
    data = change_form(client, tang)
    [prefix] = [key[: -len("-name")] for key, value in data.items() if key.endswith("-name") and value == "唐孟潇"]
    data[f"{prefix}-DELETE"] = "on"
    post_change(client, tang, data)
    assert names_of(doc(tang)) == {"唐孟潇"} and PersonName.objects.filter(person=tang).exists()
    approve(tang, by=reviewer)
    assert names_of(doc(tang)) == set()
