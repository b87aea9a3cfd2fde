"""Review workflow in the admin: drafts, submission, approval and rejection with four eyes.

Nobody approves a record they created or last changed, by any path: a forged
status in the change form, the admin actions, an inline change, or a call in
the shell. (The spreadsheet path is tested in test_spreadsheets.)
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from archive.models import Person, PersonName, Status
from archive.services import decisions, records, revisions
from archive.services import review as curation
from tests.admin.helpers import (
    change_url,
    changelist,
    client_for,
    form_data,
    person,
    pins,
    review_action,
    user,
)

pytestmark = pytest.mark.django_db

ADD_PERSON = {
    "slug": "tang-shengzhi",
    "name": "唐生智",
    "side": "chinese",
    "birth": "1889",
    "death": "",
    "description": "",
    "names-TOTAL_FORMS": "0",
    "names-INITIAL_FORMS": "0",
    "names-MIN_NUM_FORMS": "0",
    "names-MAX_NUM_FORMS": "1000",
}


@pytest.fixture
def curator() -> User:
    return user("curator-a", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("reviewer-a", role="reviewer")


@pytest.fixture
def other_reviewer() -> User:
    return user("reviewer-b", role="reviewer")


def act(client, model: type, action: str, records: list, **extra: str):
    return review_action(client, model, action, [r.pk for r in records], **extra)


def test_a_curator_creates_a_draft_whatever_status_is_posted(curator: User) -> None:
    client = client_for(curator)
    response = client.post(reverse("admin:archive_person_add"), {**ADD_PERSON, "status": "approved"})
    assert response.status_code == 302, response.content[:2000]
    tang = Person.objects.get(slug="tang-shengzhi")
    assert tang.status == Status.DRAFT
    assert tang.created_by == curator and tang.modified_by == curator
    record = tang.history.latest()
    assert record.history_user == curator


def test_status_is_read_only_in_the_change_form(curator: User) -> None:
    tang = person(status=Status.IN_REVIEW, name="唐生智")
    client = client_for(curator)
    page = client.get(change_url(tang))
    assert "status" not in page.context["adminform"].form.fields
    data = {**form_data(page), "status": "approved", "reviewed_by": str(curator.pk)}
    data["description"] = "南京卫戍司令长官"
    response = client.post(change_url(tang), data)
    assert response.status_code == 302
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW
    assert tang.description == "南京卫戍司令长官"
    assert tang.modified_by == curator
    assert tang.reviewed_by is None


def test_submit_then_approve_by_another_reviewer(curator: User, reviewer: User) -> None:
    tang = person(status=Status.DRAFT)
    response = act(client_for(curator), Person, "submit_selected", [tang])
    assert response.status_code == 302
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW and tang.modified_by == curator

    client = client_for(reviewer)
    page = act(client, Person, "approve_selected", [tang])
    assert page.status_code == 200
    assert "review_note" in page.content.decode()
    # A person with no approved citation is published only with a reason.
    act(client, Person, "approve_selected", [tang], apply="1", review_note="见《南京保卫战》")
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW
    act(
        client, Person, "approve_selected", [tang], apply="1", review_note="见《南京保卫战》",
        without_evidence="引文待补",
    )
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED
    assert tang.reviewed_by == reviewer and tang.review_note.startswith("见《南京保卫战》")
    assert tang.history.latest().history_change_reason == "approved without evidence: 引文待补"


def test_a_reviewer_cannot_approve_their_own_record_by_the_action(reviewer: User) -> None:
    client = client_for(reviewer)
    client.post(reverse("admin:archive_person_add"), ADD_PERSON)
    tang = Person.objects.get(slug="tang-shengzhi")
    act(client, Person, "submit_selected", [tang])
    response = act(client, Person, "approve_selected", [tang], apply="1")
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("you contributed to it" in text for text in texts), texts


def test_a_curator_has_no_approve_action(curator: User) -> None:
    tang = person(status=Status.IN_REVIEW)
    client = client_for(curator)
    page = client.get(changelist(Person))
    actions = dict(page.context["action_form"].fields["action"].choices)
    assert "submit_selected" in actions
    assert "approve_selected" not in actions and "reject_selected" not in actions
    act(client, Person, "approve_selected", [tang], apply="1")
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW


def test_reject_needs_a_note(reviewer: User) -> None:
    tang = person(status=Status.IN_REVIEW)
    client = client_for(reviewer)
    page = act(client, Person, "reject_selected", [tang], apply="1", review_note="  ")
    assert page.status_code == 200
    assert "A rejection says why." in page.content.decode()
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW
    act(client, Person, "reject_selected", [tang], apply="1", review_note="源文未提及")
    tang.refresh_from_db()
    assert tang.status == Status.REJECTED and tang.review_note == "源文未提及"
    assert tang.reviewed_by == reviewer


def test_editing_an_approved_record_proposes_a_revision_and_keeps_it_published(reviewer: User) -> None:
    tang = person(status=Status.APPROVED)
    client = client_for(reviewer)
    data = form_data(client.get(change_url(tang)))
    data["description"] = "changed"
    response = client.post(change_url(tang), data)
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("went to review" in text and "stays live" in text for text in texts), texts
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED and tang.description != "changed"
    pending = revisions.pending_revision(tang)
    assert pending is not None and pending.changes["fields"] == {"description": "changed"}
    # Having proposed it, this reviewer may not approve it.
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending, by=reviewer, shown=decisions.revision_pin(pending))
    # The form shows the pending change to the next editor.
    again = client.get(change_url(tang))
    assert again.context["adminform"].form.initial["description"] == "changed"


def test_saving_an_unchanged_form_changes_nothing(reviewer: User) -> None:
    tang = person(status=Status.APPROVED)
    author = tang.modified_by
    client = client_for(reviewer)
    client.post(change_url(tang), form_data(client.get(change_url(tang))))
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED and tang.modified_by == author


def test_an_inline_change_of_a_published_record_is_part_of_its_revision(
    reviewer: User, other_reviewer: User
) -> None:
    tang = person(status=Status.APPROVED, name="唐生智")
    client = client_for(reviewer)
    data = form_data(client.get(change_url(tang)))
    data.update({"names-0-name": "唐孟潇", "names-0-kind": "courtesy", "names-0-script": "Hans", "names-0-note": ""})
    response = client.post(change_url(tang), data)
    assert response.status_code == 302, response.context["errors"] if response.context else response
    # Not published yet: the name waits in the person's pending revision.
    assert not PersonName.objects.filter(person=tang, name="唐孟潇").exists()
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED
    pending = revisions.pending_revision(tang)
    assert pending is not None
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending, by=reviewer, shown=decisions.revision_pin(pending))
    revisions.approve_revision(revision=pending, by=other_reviewer, shown=decisions.revision_pin(pending))
    assert PersonName.objects.filter(person=tang, name="唐孟潇").exists()
    tang.refresh_from_db()
    assert tang.status == Status.APPROVED


def test_a_shell_call_cannot_approve_ones_own_record(reviewer: User) -> None:
    tang = Person(slug="tang", name="唐生智", created_by=reviewer, modified_by=reviewer)
    tang.save()
    curation.submit(tang, by=reviewer)
    with pytest.raises(PermissionDenied):
        curation.approve(tang, by=reviewer, shown=decisions.record_pin(tang))
    tang.status = Status.APPROVED
    with pytest.raises(ValidationError):
        tang.save()
    assert Person.objects.get(pk=tang.pk).status == Status.IN_REVIEW


def test_a_script_cannot_change_a_published_record_in_place(reviewer: User) -> None:
    tang = person(status=Status.APPROVED, description="原文")
    tang.description = "改过"
    with pytest.raises(ValidationError, match=r"archive\.services"):
        tang.save()
    assert Person.objects.get(pk=tang.pk).description == "原文"


def test_actions_report_records_in_the_wrong_state(curator: User) -> None:
    tang = person(status=Status.APPROVED)
    response = act(client_for(curator), Person, "submit_selected", [tang])
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("Only a draft or a rejected record" in text for text in texts)


def test_every_change_form_offers_submit_for_review_and_it_submits_a_draft(curator: User) -> None:
    tang = person(status=Status.DRAFT)
    client = client_for(curator)
    page = client.get(change_url(tang))
    assert 'name="_submit_for_review"' in page.content.decode()
    data = {**form_data(page), "description": "南京卫戍司令长官", "_submit_for_review": "1"}
    response = client.post(change_url(tang), data)
    assert response.status_code == 302
    tang.refresh_from_db()
    assert tang.status == Status.IN_REVIEW and tang.description == "南京卫戍司令长官"
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("submitted for review" in text for text in texts), texts


def test_an_edit_of_an_event_proposes_only_what_the_curator_changed(curator: User) -> None:
    from archive.models import Event
    from tests.factories import approved

    event = Event(slug="meeting", title="会议", kind="meeting", date="1937-12-12")
    event.full_clean()  # derives the bounds: the day, its last moment ending at .999999
    event = approved(event)
    assert event.latest.microsecond == 999999
    client = client_for(curator)
    data = {**form_data(client.get(change_url(event))), "title": "撤退会议"}
    assert client.post(change_url(event), data).status_code == 302
    pending = revisions.pending_revision(event)
    assert pending is not None and pending.changes == {"fields": {"title": "撤退会议"}}


def test_the_approve_action_is_pinned_to_what_its_page_showed(curator: User, reviewer: User) -> None:
    tang = person(status=Status.IN_REVIEW)
    client = client_for(reviewer)
    page = act(client, Person, "approve_selected", [tang])
    shown = pins(page.content.decode())
    assert set(shown) == {f"pin-{tang.pk}"}
    edited = Person.objects.get(pk=tang.pk)
    edited.name = "读者从未见过的名字"
    records.record_update(record=edited, by=curator)
    response = client.post(changelist(Person), {"action": "approve_selected", "_selected_action": [str(tang.pk)],
                                                "apply": "1", "without_evidence": "见档案", **shown})
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("after you read it" in text for text in texts), texts
    assert Person.objects.get(pk=tang.pk).status == Status.IN_REVIEW
    act(client, Person, "approve_selected", [tang], apply="1", without_evidence="见档案")  # read again
    assert Person.objects.get(pk=tang.pk).status == Status.APPROVED
