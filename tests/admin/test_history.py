"""History: who changed what and when, with a field diff, and a revert that is itself reviewed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from archive.models import Event, Source, Status
from archive.services import decisions, records, revisions
from tests.admin.helpers import change_url, client_for, event, form_data, location, person, source, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer() -> User:
    return user("hist-reviewer", role="reviewer")


@pytest.fixture
def curator() -> User:
    return user("hist-curator", role="curator")


def edit(client, record, **changes: str) -> None:
    data = form_data(client.get(change_url(record)))
    data.update(changes)
    response = client.post(change_url(record), data)
    assert response.status_code == 302, response.context["errors"] if response.context else response


def approve_pending(record, by: User) -> None:
    pending = revisions.pending_revision(record)
    assert pending is not None, "the edit is pending review"
    revisions.approve_revision(revision=pending, by=by, shown=decisions.revision_pin(pending))


def test_history_shows_who_when_and_a_field_diff(curator: User, reviewer: User) -> None:
    tang = person(status=Status.APPROVED, description="卫戍司令长官")
    edit(client_for(curator), tang, description="南京卫戍司令长官")
    approve_pending(tang, reviewer)
    page = client_for(reviewer).get(reverse("admin:archive_person_history", args=[tang.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    # The proposer is named in the change, the approver is its author.
    assert curator.username in html and reviewer.username in html
    assert "卫戍司令长官" in html and "南京卫戍司令长官" in html
    assert "&rarr;" in html or "→" in html
    # The diff carries the field that changed.
    latest = tang.history.first()
    delta = latest.diff_against(latest.prev_record)
    assert "description" in delta.changed_fields


def test_a_revert_proposes_the_old_version_and_the_published_one_stays(curator: User, reviewer: User) -> None:
    other = user("hist-reviewer-2", role="reviewer")
    tang = person(status=Status.APPROVED, description="卫戍司令长官")
    good = tang.history.latest()
    assert good.status == Status.APPROVED
    edit(client_for(curator), tang, description="错误的描述")
    approve_pending(tang, reviewer)

    client = client_for(curator)
    url = reverse("admin:archive_person_simple_history", args=[tang.pk, good.history_id])
    page = client.get(url)
    assert page.status_code == 200
    response = client.post(url, form_data(page))
    assert response.status_code == 302

    tang.refresh_from_db()
    # Still published as approved, with the edited text, until the revert is reviewed.
    assert tang.description == "错误的描述" and tang.status == Status.APPROVED
    pending = revisions.pending_revision(tang)
    assert pending is not None and pending.kind == "revert"
    assert pending.changes["fields"] == {"description": "卫戍司令长官"}
    # The revert is reviewed by someone other than the one who reverted.
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=pending, by=curator, shown=decisions.revision_pin(pending))
    revisions.approve_revision(revision=pending, by=other, shown=decisions.revision_pin(pending))
    tang.refresh_from_db()
    assert tang.description == "卫戍司令长官" and tang.status == Status.APPROVED
    latest = tang.history.latest()
    assert latest.history_user == other and curator.username in latest.history_change_reason


def test_a_reviewer_reverting_cannot_approve_the_revert(reviewer: User) -> None:
    tang = person(status=Status.APPROVED, description="原文")
    first = tang.history.latest()
    edit(client_for(user(role="curator")), tang, description="改过")
    approve_pending(tang, user(role="reviewer"))
    client = client_for(reviewer)
    url = reverse("admin:archive_person_simple_history", args=[tang.pk, first.history_id])
    client.post(url, form_data(client.get(url)))
    pending = revisions.pending_revision(tang)
    assert pending is not None and pending.changes["fields"] == {"description": "原文"}
    assert not revisions.can_decide(pending, reviewer)


def test_reverting_a_pending_change_away_withdraws_it_at_once(curator: User) -> None:
    tang = person(status=Status.APPROVED, description="原文")
    edit(client_for(curator), tang, description="改过")
    assert revisions.pending_revision(tang) is not None
    edit(client_for(curator), tang, description="原文")
    assert revisions.pending_revision(tang) is None
    tang.refresh_from_db()
    assert tang.description == "原文" and tang.status == Status.APPROVED


def test_reverting_a_source_keeps_its_full_text(reviewer: User) -> None:
    src = source(status=Status.APPROVED)
    text = src.text
    first = src.history.latest()
    edit(client_for(user(role="curator")), src, title="新标题")
    approve_pending(src, user(role="reviewer"))
    client = client_for(reviewer)
    url = reverse("admin:archive_source_simple_history", args=[src.pk, first.history_id])
    response = client.post(url, form_data(client.get(url)))
    assert response.status_code == 302
    approve_pending(src, user(role="reviewer"))
    src = Source.objects.get(pk=src.pk)
    assert src.title == first.title and src.text == text and src.length == len(text)
    assert src.status == Status.APPROVED


def test_a_revert_proposes_the_old_links_and_writes_none(curator: User, reviewer: User) -> None:
    nanjing = location(slug="nanjing", name="南京", parent=None)
    shanghai = location(slug="shanghai", name="上海", parent=None)
    happening = event(slug="leave")
    to_shanghai = _propose_links(happening, [shanghai], curator)
    revisions.approve_revision(revision=to_shanghai, by=reviewer, shown=decisions.revision_pin(to_shanghai))
    old = happening.history.order_by("history_date", "history_id").last()  # at 上海
    to_nanjing = _propose_links(happening, [nanjing], curator)
    revisions.approve_revision(revision=to_nanjing, by=reviewer, shown=decisions.revision_pin(to_nanjing))
    assert list(Event.objects.get(pk=happening.pk).locations.all()) == [nanjing]

    client = client_for(curator)
    url = reverse("admin:archive_event_simple_history", args=[happening.pk, old.history_id])
    data = form_data(client.get(url))
    data["locations"] = [str(shanghai.pk)]  # the revert form states links as well as fields
    response = client.post(url, data)
    assert response.status_code == 302

    # Published as approved, links included; the old link waits in the revert.
    assert list(Event.objects.get(pk=happening.pk).locations.all()) == [nanjing]
    assert Client().get(f"/api/v1/events/{happening.slug}/").json()["locations"][0]["slug"] == "nanjing"
    pending = revisions.pending_revision(happening)
    assert pending is not None and pending.kind == "revert"
    assert pending.changes["m2m"] == {"locations": [shanghai.pk]}
    revisions.approve_revision(
        revision=pending, by=user("hist-reviewer-3", role="reviewer"), shown=decisions.revision_pin(pending)
    )
    assert list(Event.objects.get(pk=happening.pk).locations.all()) == [shanghai]


def test_a_revert_of_a_draft_sets_its_links_in_place(curator: User) -> None:
    nanjing = location(slug="nanjing", name="南京", parent=None)
    shanghai = location(slug="shanghai", name="上海", parent=None)
    draft = event(status=Status.DRAFT, slug="draft-leave", description="初稿")
    records.record_update(record=Event.objects.get(pk=draft.pk), by=curator, m2m={"locations": [nanjing]})
    old = draft.history.order_by("history_date", "history_id").first()
    client = client_for(curator)
    url = reverse("admin:archive_event_simple_history", args=[draft.pk, old.history_id])
    data = form_data(client.get(url))
    data["locations"] = [str(shanghai.pk)]
    assert client.post(url, data).status_code == 302
    draft.refresh_from_db()
    assert list(draft.locations.all()) == [shanghai] and draft.status == Status.DRAFT
    assert revisions.pending_revision(draft) is None


def _propose_links(record: Event, places: list, by: User):
    live = Event.objects.get(pk=record.pk)
    revision = records.record_update(record=live, by=by, m2m={"locations": places})
    assert revision is not None
    return revision
