"""No lost update: a save over a version someone else has changed is refused.

Covered at every door a change comes through: the model (one guarded UPDATE),
the admin change form (two curators, Django's test client), a spreadsheet
import of an old copy, and two connections racing on PostgreSQL. Fixtures
are raw saves and are not checked.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
import tablib
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from archive.importing.spreadsheets import PersonResource
from archive.locking import ConcurrentEdit
from archive.models import Person, Status
from archive.services import decisions
from tests.admin.helpers import change_url, client_for, form_data, person, user

pytestmark = pytest.mark.django_db


def _copies(record: Person) -> tuple[Person, Person]:
    return Person.objects.get(pk=record.pk), Person.objects.get(pk=record.pk)


def test_the_version_is_checked_and_incremented_in_one_update() -> None:
    tang = person(status=Status.DRAFT, description="卫戍司令长官")
    loaded = tang.version
    with CaptureQueriesContext(connection) as queries:
        tang.description = "南京卫戍司令长官"
        tang.save()
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    # One statement checks the loaded version and increments it; the save then writes the fields.
    claims = [sql for sql in updates if '"version" = ("archive_person"."version" + 1)' in sql]
    assert len(claims) == 1 and updates[0] == claims[0]
    assert '"archive_person"."version" = ' in claims[0].split("WHERE", 1)[1]
    assert tang.version == loaded + 1
    assert Person.objects.get(pk=tang.pk).version == loaded + 1


def test_a_stale_save_is_refused_with_what_changed_and_who_changed_it() -> None:
    alice = user("alice-lock", role="curator")
    tang = person(status=Status.DRAFT, description="卫戍司令长官", side="chinese")
    before = tang.history.count()
    first, second = _copies(tang)
    first.description = "南京卫戍司令长官"
    first.modified_by = alice
    first.save()

    second.name = "唐孟潇"
    # Like any failed write, the refusal spoils the transaction it runs in; a savepoint keeps the test's.
    with pytest.raises(ConcurrentEdit) as refused, transaction.atomic():
        second.save()

    message = " ".join(refused.value.messages)
    assert "alice-lock" in message
    assert "“卫戍司令长官” → “南京卫戍司令长官”" in message
    assert refused.value.changed_by == alice
    assert [change.label for change in refused.value.changes] == ["description"]
    stored = Person.objects.get(pk=tang.pk)
    assert (stored.description, stored.name, stored.version) == ("南京卫戍司令长官", tang.name, first.version)
    # The refused save wrote no history either.
    assert stored.history.count() == before + 1


def test_a_refused_save_is_a_validation_error_and_leaves_the_instance_retryable() -> None:
    from django.core.exceptions import ValidationError

    tang = person(status=Status.DRAFT)
    first, second = _copies(tang)
    first.save()
    second.description = "late"
    with pytest.raises(ValidationError), transaction.atomic():
        second.save()
    second.refresh_from_db()
    second.description = "after reloading"
    second.save()
    assert Person.objects.get(pk=tang.pk).description == "after reloading"


def test_review_transitions_are_locked_too() -> None:
    from archive.services import review as curation

    author, reviewer = user("lock-author", role="curator"), user("lock-reviewer", role="reviewer")
    tang = person(status=Status.DRAFT, created_by=author, modified_by=author)
    curation.submit(Person.objects.get(pk=tang.pk), by=author)
    stale = Person.objects.get(pk=tang.pk)
    editing = Person.objects.get(pk=tang.pk)
    editing.description = "changed while in review"
    editing.modified_by = author
    editing.save()
    with pytest.raises(decisions.StaleDecision):  # pinned to the copy it holds: the pin is stale
        curation.approve(stale, by=reviewer, without_evidence="test", shown=decisions.record_pin(stale))
    # Pinned to the state stored now but handed an older copy, it would save that copy's fields.
    read_now = decisions.record_pin(Person.objects.get(pk=tang.pk))
    with pytest.raises(ConcurrentEdit):
        curation.approve(stale, by=reviewer, without_evidence="test", shown=read_now)  # atomic itself
    stored = Person.objects.get(pk=tang.pk)
    assert stored.status == Status.IN_REVIEW and stored.description == "changed while in review"


def test_loaddata_is_a_raw_save_and_is_not_checked(tmp_path: Path) -> None:
    tang = person(status=Status.DRAFT, description="old")
    live = Person.objects.get(pk=tang.pk)
    live.description = "edited twice"
    live.save()
    live.save()
    assert live.version == 3
    fixture = tmp_path / "people.json"
    fixture.write_text(
        json.dumps(
            [{"model": "archive.person", "fields": {
                "slug": tang.slug, "name": tang.name, "side": "chinese", "description": "from the fixture",
                "status": "draft", "version": 1,
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}}],
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    call_command("loaddata", str(fixture), verbosity=0)
    stored = Person.objects.get(pk=tang.pk)
    assert (stored.description, stored.version) == ("from the fixture", 1)


# -- the admin


def _edit_form(client: object, record: Person) -> dict[str, object]:
    response = client.get(change_url(record))  # type: ignore[attr-defined]
    assert response.status_code == 200
    return form_data(response)


def test_admin_change_form_carries_the_version_hidden() -> None:
    tang = person(status=Status.DRAFT)
    page = client_for(user("lock-viewer", role="curator")).get(change_url(tang))
    html = page.content.decode()
    assert f'<input type="hidden" name="version" value="{tang.version}"' in html


def test_two_curators_in_the_admin_the_second_is_refused_with_the_diff() -> None:
    first_curator, second_curator = user("first-curator", role="curator"), user("second-curator", role="curator")
    tang = person(status=Status.DRAFT, description="卫戍司令长官")
    first, second = client_for(first_curator), client_for(second_curator)
    first_data, second_data = _edit_form(first, tang), _edit_form(second, tang)

    first_data["description"] = "南京卫戍司令长官"
    assert first.post(change_url(tang), first_data).status_code == 302

    second_data["description"] = "卫戍司令长官，兼第一军团"
    response = second.post(change_url(tang), second_data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "first-curator" in html
    assert "卫戍司令长官” → “南京卫戍司令长官" in html
    assert "nothing was saved" in html
    assert response.context["adminform"].form.non_field_errors()
    stored = Person.objects.get(pk=tang.pk)
    assert stored.description == "南京卫戍司令长官"
    assert stored.modified_by == first_curator

    # Reloading gives the current version, and then the change goes through.
    retry = _edit_form(second, tang)
    retry["description"] = "卫戍司令长官，兼第一军团"
    assert second.post(change_url(tang), retry).status_code == 302
    assert Person.objects.get(pk=tang.pk).description == "卫戍司令长官，兼第一军团"


def test_admin_post_that_loses_the_race_after_the_form_check_is_refused_without_a_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from archive.admin import base

    curator = user("racing-curator", role="curator")
    rival = user("rival-curator", role="curator")
    tang = person(status=Status.DRAFT, description="before")
    client = client_for(curator)
    data = _edit_form(client, tang)
    data["description"] = "mine"
    original_clean = base.VersionCheckedForm.clean

    def clean_then_someone_saves(self: base.VersionCheckedForm) -> dict[str, object]:
        cleaned = original_clean(self)
        other = Person.objects.get(pk=tang.pk)
        other.description = "theirs"
        other.modified_by = rival
        other.save()
        return cleaned

    monkeypatch.setattr(base.VersionCheckedForm, "clean", clean_then_someone_saves)
    response = client.post(change_url(tang), data, follow=True)
    assert response.status_code == 200
    assert any("rival-curator" in str(m) for m in response.context["messages"])
    # The view's transaction rolled back both writes: nothing of either is stored.
    assert Person.objects.get(pk=tang.pk).description == "before"


# -- spreadsheets


def test_spreadsheet_row_from_an_older_copy_is_refused_naming_row_and_field() -> None:
    importer = user("sheet-importer", role="curator")
    editor = user("sheet-editor", role="curator")
    untouched = person(status=Status.DRAFT, description="no one edits me")
    tang = person(status=Status.DRAFT, description="卫戍司令长官")
    sheet = PersonResource().export(Person.objects.filter(pk__in=[untouched.pk, tang.pk]).order_by("pk"))
    assert "version" in sheet.headers

    meanwhile = Person.objects.get(pk=tang.pk)
    meanwhile.description = "南京卫戍司令长官"
    meanwhile.modified_by = editor
    meanwhile.save()

    rows = [dict(zip(sheet.headers, row, strict=True)) for row in sheet]
    rows[0]["description"] = "changed from the sheet"
    rows[1]["description"] = "stale change from the sheet"
    edited = tablib.Dataset(headers=sheet.headers)
    for row in rows:
        edited.append([row[h] for h in sheet.headers])
    result = PersonResource().import_data(edited, dry_run=False, user=importer)

    assert result.has_validation_errors()
    (invalid,) = result.invalid_rows
    assert invalid.number == 2
    assert "version" in invalid.error_dict
    message = " ".join(invalid.error_dict["version"])
    assert "sheet-editor" in message and "“卫戍司令长官” → “南京卫戍司令长官”" in message
    # All or nothing: the good first row was rolled back with the stale one.
    assert Person.objects.get(pk=untouched.pk).description == "no one edits me"
    assert Person.objects.get(pk=tang.pk).description == "南京卫戍司令长官"


def test_spreadsheet_with_the_current_version_or_none_imports() -> None:
    importer = user("sheet-importer-2", role="curator")
    tang = person(status=Status.DRAFT, description="v1")
    sheet = PersonResource().export(Person.objects.filter(pk=tang.pk))
    row = dict(zip(sheet.headers, sheet[0], strict=True))
    row["description"] = "v2"
    current = tablib.Dataset(list(row.values()), headers=list(row))
    assert not PersonResource().import_data(current, user=importer).has_validation_errors()
    assert Person.objects.get(pk=tang.pk).description == "v2"

    del row["version"]
    row["description"] = "v3"
    legacy = tablib.Dataset(list(row.values()), headers=list(row))
    assert not PersonResource().import_data(legacy, user=importer).has_validation_errors()
    assert Person.objects.get(pk=tang.pk).description == "v3"


# -- two connections on PostgreSQL


@pytest.mark.django_db(transaction=True)
def test_two_connections_save_the_same_record_exactly_one_succeeds() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers on the whole file, so no two UPDATEs overlap")
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    tang = person(status=Status.DRAFT, description="start")
    loaded = threading.Barrier(2)
    outcome: dict[str, str] = {}

    def edit(name: str, hold: float) -> None:
        try:
            record = Person.objects.get(pk=tang.pk)
            loaded.wait(timeout=10)
            try:
                with transaction.atomic():
                    record.description = f"saved by {name}"
                    record.save()
                    # Hold the row lock so the other UPDATE waits on it, then re-reads the row.
                    time.sleep(hold)
                outcome[name] = "saved"
            except ConcurrentEdit:
                outcome[name] = "refused"
        finally:
            connections.close_all()

    threads = [threading.Thread(target=edit, args=(name, hold)) for name, hold in (("a", 0.5), ("b", 0.0))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcome.values()) == ["refused", "saved"], outcome
    winner = next(name for name, result in outcome.items() if result == "saved")
    stored = Person.objects.get(pk=tang.pk)
    assert (stored.description, stored.version) == (f"saved by {winner}", tang.version + 1)
