"""Merging duplicates: everything moves to the survivor, the old slug redirects, a second person approves.

A merge of published records is proposed as the survivor's revision: both
records stay served as they are until a reviewer who had no hand in it
approves, and only then does anything move. Two drafts merge at once and the
survivor goes to review.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from archive.models import (
    Citation,
    Location,
    LocationAlias,
    Participation,
    Person,
    PersonName,
    Post,
    Revision,
    SlugRedirect,
    Status,
    Unit,
    UnitAlias,
)
from archive.services import decisions, revisions
from archive.services import review as curation
from archive.services.merges import merge
from tests.admin.helpers import changelist, client_for, event, location, participation, person, post, source, unit, user
from tests.factories import cite

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> User:
    return user("merge-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("merge-reviewer", role="reviewer")


def merged(survivor: Any, duplicate: Any, *, by: User, reviewer: User) -> Any:
    """Propose the merge of two published records, check that nothing moved yet, approve it."""
    revision = merge(survivor=survivor, duplicate=duplicate, by=by)
    assert isinstance(revision, Revision) and revision.kind == "merge"
    assert type(duplicate).objects.filter(pk=duplicate.pk, status=Status.APPROVED).exists()
    assert not SlugRedirect.objects.filter(old_slug=duplicate.slug).exists()
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=by, shown=decisions.revision_pin(revision))
    return revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))


def test_merging_people_moves_names_posts_participations_and_citations(curator: User, reviewer: User) -> None:
    passage = source().passages.get(seq=1)
    tang = person(slug="tang-shengzhi", name="唐生智")
    PersonName.objects.create(person=tang, name="Tang Shengzhi", kind="romanisation", script="Latn")
    twin = person(slug="tang-mengxiao", name="唐孟潇")
    PersonName.objects.create(person=twin, name="Tang Shengzhi", kind="romanisation", script="Latn")
    PersonName.objects.create(person=twin, name="唐司令", kind="title")
    held = post(person=twin)
    took_part = participation(person=twin)
    evidence = cite(passage, "唐生智", person=twin)
    assert evidence.status == Status.APPROVED

    revision = merge(survivor=tang, duplicate=twin, by=curator)

    # Proposed: nothing moved, both people published as they were.
    assert isinstance(revision, Revision) and revisions.pending_revision(tang) == revision
    assert Person.objects.get(pk=twin.pk).status == Status.APPROVED
    assert set(twin.names.values_list("name", flat=True)) == {"Tang Shengzhi", "唐司令"}
    assert Post.objects.get(pk=held.pk).person == twin
    assert Participation.objects.get(pk=took_part.pk).person == twin
    assert Citation.objects.get(pk=evidence.pk).person == twin
    assert SlugRedirect.objects.resolve("person", "tang-mengxiao") is None
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))

    survivor = revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))

    assert not Person.objects.filter(slug="tang-mengxiao").exists()
    names = dict(tang.names.values_list("name", "kind"))
    assert names == {"Tang Shengzhi": "romanisation", "唐司令": "title", "唐孟潇": "alias"}
    assert Post.objects.get(pk=held.pk).person == tang
    assert Participation.objects.get(pk=took_part.pk).person == tang
    moved = Citation.objects.get(pk=evidence.pk)
    assert moved.person == tang and moved.status == Status.APPROVED
    reason = moved.history.latest().history_change_reason
    assert curator.username in reason and reviewer.username in reason  # who proposed, who approved
    assert SlugRedirect.objects.resolve("person", "tang-mengxiao") == "tang-shengzhi"
    survivor.refresh_from_db()
    assert survivor.status == Status.APPROVED and survivor.reviewed_by == reviewer
    assert survivor.history.latest().history_user == reviewer


def test_two_drafts_merge_at_once_and_the_survivor_goes_to_review(curator: User) -> None:
    tang = person(status=Status.DRAFT, slug="tang-shengzhi", name="唐生智")
    twin = person(status=Status.DRAFT, slug="tang-mengxiao", name="唐孟潇")
    PersonName.objects.create(person=twin, name="唐司令", kind="title")
    survivor = merge(survivor=tang, duplicate=twin, by=curator)
    assert not isinstance(survivor, Revision)
    assert not Person.objects.filter(slug="tang-mengxiao").exists()
    assert set(tang.names.values_list("name", flat=True)) == {"唐司令", "唐孟潇"}
    survivor.refresh_from_db()
    assert survivor.status == Status.IN_REVIEW and survivor.modified_by == curator and survivor.reviewed_by is None
    assert survivor.history.latest().history_user == curator
    with pytest.raises(PermissionDenied):
        curation.approve(
            survivor, by=curator, without_evidence="a test without citations", shown=decisions.record_pin(survivor)
        )


def test_a_published_record_is_not_merged_into_a_draft(curator: User) -> None:
    draft, published = person(status=Status.DRAFT), person()
    with pytest.raises(ValidationError):
        merge(survivor=draft, duplicate=published, by=curator)
    assert Person.objects.filter(pk=published.pk, status=Status.APPROVED).exists()
    assert revisions.pending_revision(draft) is None and revisions.pending_revision(published) is None


def test_merging_units_moves_aliases_children_and_posts(curator: User, reviewer: User) -> None:
    army = unit(slug="a74", name="第74军", echelon="army")
    copy = unit(slug="a74-copy", name="七十四军", echelon="army", parent=None)
    UnitAlias.objects.create(unit=copy, name="74A", script="Latn")
    child = unit(slug="d51", name="第51师", parent=copy)
    held = post(unit=copy)
    merged(army, copy, by=curator, reviewer=reviewer)
    assert Unit.objects.get(pk=child.pk).parent == army
    assert set(army.aliases.values_list("name", flat=True)) == {"74A", "七十四军"}
    assert Post.objects.get(pk=held.pk).unit == army
    assert SlugRedirect.objects.resolve("unit", "a74-copy") == "a74"


def test_merging_a_unit_into_its_own_child_keeps_the_tree(curator: User, reviewer: User) -> None:
    top = unit(slug="top", name="卫戍司令部", echelon="garrison")
    dup = unit(slug="dup", name="第一军", parent=top)
    keep = unit(slug="keep", name="第1军", parent=dup)
    merged(keep, dup, by=curator, reviewer=reviewer)
    keep.refresh_from_db()
    assert keep.parent == top


def test_merging_places_moves_aliases_children_events_and_citations(curator: User, reviewer: User) -> None:
    passage = source().passages.get(seq=2)
    nanjing = location(slug="nanjing", name="南京", kind="city")
    jinling = location(slug="jinling", name="金陵", kind="city")
    gate = location(slug="yijiangmen", name="挹江门", parent=jinling)
    LocationAlias.objects.create(location=jinling, name="Nanking", language="en")
    happening = event()
    happening.locations.add(jinling)
    evidence = cite(passage, "挹江门", location=jinling)
    merged(nanjing, jinling, by=curator, reviewer=reviewer)
    assert Location.objects.get(pk=gate.pk).parent == nanjing
    assert set(nanjing.aliases.values_list("name", flat=True)) == {"Nanking", "金陵"}
    assert list(happening.locations.all()) == [nanjing]
    assert happening.history.latest().history_user == reviewer
    assert Citation.objects.get(pk=evidence.pk).location == nanjing
    assert SlugRedirect.objects.resolve("location", "jinling") == "nanjing"


def test_redirects_are_flattened_by_a_later_merge(curator: User, reviewer: User) -> None:
    a, b, c = person(slug="a"), person(slug="b"), person(slug="c")
    merged(b, a, by=curator, reviewer=reviewer)
    merged(c, b, by=curator, reviewer=reviewer)
    assert SlugRedirect.objects.resolve("person", "a") == "c"
    assert SlugRedirect.objects.resolve("person", "b") == "c"


def test_a_failed_merge_changes_nothing(curator: User, reviewer: User, monkeypatch: pytest.MonkeyPatch) -> None:
    tang, twin = person(slug="tang"), person(slug="twin")
    PersonName.objects.create(person=twin, name="唐司令")
    import archive.services.merges as merging

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(merging, "_redirect", broken)
    revision = merge(survivor=tang, duplicate=twin, by=curator)
    with pytest.raises(RuntimeError):
        revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert Person.objects.filter(slug="twin").exists()
    assert PersonName.objects.get(name="唐司令").person_id == twin.pk
    assert Person.objects.get(pk=tang.pk).status == Status.APPROVED
    # The failed approval left the proposal pending, to be decided again.
    assert revisions.pending_revision(tang) == revision


def test_merge_refuses_mixed_or_identical_records(curator: User) -> None:
    tang = person()
    with pytest.raises(ValidationError):
        merge(survivor=tang, duplicate=tang, by=curator)
    with pytest.raises(ValidationError):
        merge(survivor=tang, duplicate=unit(), by=curator)
    with pytest.raises(PermissionDenied):
        merge(survivor=tang, duplicate=person(), by=user("no-role"))
    assert revisions.pending_revision(tang) is None


def test_the_admin_action_merges_into_the_chosen_survivor(curator: User, reviewer: User) -> None:
    tang, twin = person(slug="tang", name="唐生智"), person(slug="twin", name="唐孟潇")
    client = client_for(curator)
    selected = {"action": "merge_selected", "_selected_action": [str(tang.pk), str(twin.pk)]}
    page = client.post(changelist(Person), selected)
    assert page.status_code == 200 and 'name="survivor"' in page.content.decode()
    response = client.post(changelist(Person), {**selected, "apply": "1", "survivor": str(twin.pk)})
    assert response.status_code == 302
    # Proposed as a change of the survivor: both stay published as they are.
    assert Person.objects.filter(slug="tang", status=Status.APPROVED).exists()
    revision = revisions.pending_revision(twin)
    assert revision is not None and revision.kind == "merge" and revision.created_by == curator
    assert not twin.names.filter(name="唐生智").exists()
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert not Person.objects.filter(slug="tang").exists()
    twin.refresh_from_db()
    assert twin.status == Status.APPROVED and twin.names.filter(name="唐生智").exists()
    assert SlugRedirect.objects.resolve("person", "tang") == "twin"
    redirects = client.get(reverse("admin:archive_slugredirect_changelist")).content.decode()
    assert "twin" in redirects


def test_the_admin_action_needs_exactly_two(curator: User) -> None:
    people = [person(), person(), person()]
    client = client_for(curator)
    client.post(
        changelist(Person),
        {"action": "merge_selected", "_selected_action": [str(p.pk) for p in people], "apply": "1"},
    )
    assert Person.objects.filter(pk__in=[p.pk for p in people]).count() == 3


def test_the_queue_shows_everything_a_merge_publishes(curator: User, reviewer: User) -> None:
    passage = source().passages.get(seq=1)
    tang = person(slug="tang-shengzhi", name="唐生智")
    twin = person(slug="tang-mengxiao", name="唐孟潇")
    PersonName.objects.create(person=twin, name="唐司令", kind="title")
    post(person=twin, title="卫戍司令长官")
    participation(person=twin)
    cite(passage, "唐生智", person=twin, claim="他下令撤退")
    revision = merge(survivor=tang, duplicate=twin, by=curator)
    html = client_for(reviewer).get(reverse("archive_curate:review")).content.decode()
    article = html.split(f'id="revision-{revision.pk}"', 1)[1].split("</article>", 1)[0]
    for label in ("Name", "Post", "Participation", "Citation"):
        assert f'<th scope="row">{label}</th>' in article, label
    assert "唐司令" in article and "卫戍司令长官" in article and "唐孟潇" in article


def test_an_unreviewed_duplicate_with_content_is_not_merged_into_a_published_record(
    curator: User, reviewer: User
) -> None:
    tang = person(slug="tang-shengzhi", name="唐生智")
    draft = person(status=Status.DRAFT, slug="tang-draft", name="唐孟潇")
    PersonName.objects.create(person=draft, name="未经审核的别名", kind="alias")
    with pytest.raises(ValidationError, match="not reviewed"):
        merge(survivor=tang, duplicate=draft, by=curator)
    assert revisions.pending_revision(tang) is None
    # An empty draft (its name already the survivor's) has nothing to publish: it may go.
    empty = person(status=Status.DRAFT, slug="tang-empty", name="唐生智")
    assert isinstance(merge(survivor=tang, duplicate=empty, by=curator), Revision)
    # Reviewed, the draft's content may be merged.
    revisions.withdraw_revision(revision=revisions.pending_revision(tang), by=curator)
    curation.submit(draft, by=curator)
    curation.approve(draft, by=reviewer, without_evidence="见档案", shown=decisions.record_pin(draft))
    merged(tang, Person.objects.get(pk=draft.pk), by=curator, reviewer=reviewer)
    assert set(tang.names.values_list("name", flat=True)) >= {"未经审核的别名", "唐孟潇"}
