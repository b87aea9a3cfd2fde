"""Every change has an author: who made each history row, by every path a change comes through.

| path                       | history_user          | change reason                     |
|----------------------------|-----------------------|-----------------------------------|
| admin change form          | the curator           | (none: a plain edit)              |
| admin inline / alias       | the curator           | "changed in an inline" …          |
| admin spreadsheet import   | the importing curator | "imported from a spreadsheet"     |
| review transitions         | the reviewer          | "approved" / "rejected: …"        |
| revert in the admin        | the one who reverted  | "reverted to an earlier version"  |
| `import_source` command    | none (a shell)        | "imported from <file>"            |
| bulk passage writes        | none                  | one row per passage, not zero     |
| `import_source --replace`  | none                  | "replaced by <file>" per changed  |
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from archive.models import Passage, Person, Source, Status
from archive.services import decisions, revisions
from archive.services import review as curation
from tests.admin.helpers import change_url, client_for, form_data, person, user
from tests.importing.helpers import run

pytestmark = pytest.mark.django_db


def _import(path: Path, slug: str, *extra: str) -> str:
    return run("import_source", str(path), "--slug", slug, "--title", f"Title {slug}", "--kind", "history",
               "--language", "zh-Hans", *extra)


def test_admin_edit_is_authored_by_the_curator() -> None:
    curator = user("author-admin", role="curator")
    tang = person(status=Status.DRAFT, description="before")
    client = client_for(curator)
    data = form_data(client.get(change_url(tang)))
    data["description"] = "after"
    assert client.post(change_url(tang), data).status_code == 302
    latest = Person.objects.get(pk=tang.pk).history.latest()
    assert latest.history_user == curator
    assert latest.description == "after" and latest.history_type == "~"


def test_admin_spreadsheet_import_is_authored_by_the_importer() -> None:
    curator = user("author-sheet", role="curator")
    client = client_for(curator)
    upload = SimpleUploadedFile("people.csv", "slug,name,side\ntang,唐生智,chinese\n".encode())
    page = client.post(reverse("admin:archive_person_import"), {"format": "0", "import_file": upload})
    confirm = page.context["confirm_form"]
    response = client.post(
        reverse("admin:archive_person_process_import"), {name: confirm[name].value() for name in confirm.fields}
    )
    assert response.status_code == 302
    (row,) = Person.objects.get(slug="tang").history.all()
    assert row.history_user == curator
    assert row.history_change_reason == "imported from a spreadsheet"


def test_review_transitions_are_authored_by_the_reviewer() -> None:
    author, reviewer = user("author-r1", role="curator"), user("author-r2", role="reviewer")
    tang = person(status=Status.DRAFT, created_by=author, modified_by=author)
    tang._history_user = author
    curation.submit(tang, by=author)
    tang._history_user = reviewer
    curation.approve(
        tang, by=reviewer, note="checked against the history", without_evidence="no source yet",
        shown=decisions.record_pin(tang),
    )
    approved_row = tang.history.latest()
    assert approved_row.history_user == reviewer
    assert approved_row.history_change_reason == "approved without evidence: no source yet"


def test_admin_revert_is_proposed_by_the_reverter_and_authored_by_the_approver() -> None:
    curator = user("author-revert", role="curator")
    tang = person(status=Status.APPROVED, description="good")
    good = tang.history.latest()
    client = client_for(curator)
    data = form_data(client.get(change_url(tang)))
    data["description"] = "bad"
    assert client.post(change_url(tang), data).status_code == 302
    bad = revisions.pending_revision(tang)
    assert bad is not None
    revisions.approve_revision(revision=bad, by=user("author-r3", role="reviewer"), shown=decisions.revision_pin(bad))
    url = reverse("admin:archive_person_simple_history", args=[tang.pk, good.history_id])
    response = client.post(url, form_data(client.get(url)))
    assert response.status_code == 302
    # The published version stays; the revert waits for review, proposed by the curator.
    assert Person.objects.get(pk=tang.pk).description == "bad"
    pending = revisions.pending_revision(tang)
    assert pending is not None and pending.kind == "revert" and pending.created_by == curator
    approver = user("author-r4", role="reviewer")
    revisions.approve_revision(revision=pending, by=approver, shown=decisions.revision_pin(pending))
    reverted = Person.objects.get(pk=tang.pk)
    assert reverted.description == "good" and reverted.status == Status.APPROVED
    row = reverted.history.latest()
    assert row.history_user == approver
    assert row.history_change_reason.startswith(f"revision {pending.pk} by author-revert approved by author-r4")


def test_import_source_has_no_user_but_a_reason_and_one_bulk_row_per_passage(tmp_path: Path) -> None:
    path = tmp_path / "memoir.txt"
    path.write_text("".join(f"第{n}段：部队向挹江门撤退。\n\n" for n in range(1, 301)), encoding="utf-8")
    _import(path, "memoir")
    source = Source.objects.get(slug="memoir")
    (row,) = source.history.all()
    assert row.history_user is None
    assert row.history_change_reason == "imported from memoir.txt"
    passages = Passage.objects.filter(source=source)
    assert passages.count() == 300
    history = Passage.history.filter(source_id=source.pk)
    assert history.count() == 300
    assert set(history.values_list("history_type", "history_change_reason", "history_user")) == {
        ("+", "imported from memoir.txt", None)
    }
    assert set(history.values_list("id", flat=True)) == set(passages.values_list("id", flat=True))


def test_import_source_replace_records_a_change_per_changed_passage(tmp_path: Path) -> None:
    first = tmp_path / "v1.txt"
    first.write_text("甲段。\n\n乙段。\n\n丙段。\n", encoding="utf-8")
    _import(first, "three")
    source = Source.objects.get(slug="three")
    before = {p.seq: (p.text, p.start, p.end) for p in source.passages.all()}
    second = tmp_path / "v2.txt"
    second.write_text("甲段。\n\n乙段改。\n\n丙段。\n\n丁段。\n", encoding="utf-8")
    _import(second, "three", "--replace")
    after = {p.seq: (p.text, p.start, p.end) for p in source.passages.all()}
    changed = {seq for seq in before if before[seq] != after[seq]}
    assert 1 not in changed and 2 in changed
    rows = Passage.history.filter(source_id=source.pk, history_change_reason="replaced by v2.txt")
    assert sorted(rows.values_list("seq", "history_type")) == sorted(
        [(seq, "~") for seq in changed] + [(4, "+")]
    )
    assert set(rows.values_list("history_user", flat=True)) == {None}
    assert source.history.latest().history_change_reason == "replaced by v2.txt"
