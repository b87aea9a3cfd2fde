"""Spreadsheets: CSV, XLSX and JSON by slug, all or nothing, review state never read from a file."""

from __future__ import annotations

import io
from typing import Any

import openpyxl
import pytest
import tablib
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from import_export.formats.base_formats import JSON

from archive.importing.spreadsheets import (
    RESOURCES,
    CitationResource,
    PersonNameResource,
    PersonResource,
    PostResource,
    SafeCSV,
    SafeXLSX,
)
from archive.models import Citation, Event, Location, Person, PersonName, Post, Status, Unit
from archive.services import decisions, revisions
from archive.services import review as curation
from tests.admin.helpers import client_for, person, source, unit, user, world

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> User:
    return user("sheet-curator", role="curator")


@pytest.fixture
def reviewer() -> User:
    return user("sheet-reviewer", role="reviewer")


@pytest.fixture(autouse=True)
def _private_throttle(settings: Any, request: pytest.FixtureRequest) -> None:
    # The API's throttle counts per address in the host's shared store; this file's reads count apart.
    from tests.services.conftest import private_throttle_store

    private_throttle_store(settings, request.node.nodeid)


def published(record: Any) -> dict[str, Any]:
    """The record's document as the API serves it."""
    response = Client().get(f"/api/v1/{record._meta.model_name}s/{record.slug}/")
    assert response.status_code == 200
    return response.json()


def dataset(rows: list[dict[str, Any]]) -> tablib.Dataset:
    headers = list(rows[0])
    data = tablib.Dataset(headers=headers)
    for row in rows:
        data.append([row.get(h, "") for h in headers])
    return data


def run(resource_class: type, rows: list[dict[str, Any]], by: User, dry_run: bool = False) -> Any:
    return resource_class().import_data(dataset(rows), dry_run=dry_run, user=by)


def errors_by_row(result: Any) -> dict[int, dict[str, list[str]]]:
    found = {row.number: row.field_specific_errors for row in result.invalid_rows}
    for number, row_errors in result.row_errors():
        found.setdefault(number, {})["__all__"] = [str(error.error) for error in row_errors]
    return found


def test_a_curators_import_enters_drafts_and_ignores_the_status_column(curator: User) -> None:
    result = run(PersonResource, [{"slug": "tang", "name": "唐生智", "side": "chinese", "status": "approved"}], curator)
    assert not result.has_errors() and not result.has_validation_errors()
    tang = Person.objects.get(slug="tang")
    assert tang.status == Status.DRAFT
    assert tang.created_by == curator and tang.modified_by == curator
    assert tang.history.latest().history_user == curator


def test_a_reviewers_import_enters_review_and_needs_another_reviewer(reviewer: User) -> None:
    run(PersonResource, [{"slug": "tang", "name": "唐生智", "side": "chinese", "status": "approved"}], reviewer)
    tang = Person.objects.get(slug="tang")
    assert tang.status == Status.IN_REVIEW and tang.modified_by == reviewer
    with pytest.raises(PermissionDenied, match="contributed"):
        curation.approve(tang, by=reviewer, shown=decisions.record_pin(tang))
    curation.approve(
        tang, by=user(role="reviewer"), without_evidence="imported without citations", shown=decisions.record_pin(tang)
    )


def test_an_import_that_changes_an_approved_record_proposes_a_revision(curator: User, reviewer: User) -> None:
    tang = person(status=Status.APPROVED, slug="tang", name="唐生智")
    result = run(PersonResource, [{"slug": "tang", "name": "唐生智", "side": "chinese", "description": "新"}], curator)
    assert not result.has_errors() and not result.has_validation_errors()
    tang.refresh_from_db()
    # The published row is untouched and served as it was.
    assert tang.status == Status.APPROVED and tang.description == ""
    assert published(tang)["description"] == ""
    revision = revisions.pending_revision(tang)
    assert revision is not None and revision.created_by == curator
    assert revision.changes["fields"] == {"description": "新"}
    # The importer cannot approve it; another reviewer can.
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))
    importing_reviewer = user(role="reviewer")
    run(PersonResource, [{"slug": "tang", "name": "唐生智", "side": "chinese", "description": "新的"}],
        importing_reviewer)
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=importing_reviewer, shown=decisions.revision_pin(revision))
    assert published(tang)["description"] == ""
    # The second import changed the change: the reviewer decides on it as it now reads.
    with pytest.raises(decisions.StaleDecision, match="edited after you read it"):
        revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    revision.refresh_from_db()
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    tang.refresh_from_db()
    assert tang.description == "新的" and tang.status == Status.APPROVED
    assert published(tang)["description"] == "新的"


def test_one_bad_row_writes_nothing_and_names_row_and_field(curator: User) -> None:
    tang = person(slug="tang")
    division = unit(slug="u88")
    rows = [
        {"slug": "p-good", "person": "tang", "unit": "u88", "title": "军长", "date_from": "1937-12"},
        {"slug": "p-bad", "person": "nobody", "unit": "u88", "title": "军长", "date_from": "1937-12"},
        {"slug": "p-date", "person": "tang", "unit": "u88", "title": "军长", "date_from": "12月"},
    ]
    result = run(PostResource, rows, curator)
    errors = errors_by_row(result)
    assert 1 not in errors
    assert "person" in errors[2] and "nobody" in " ".join(errors[2]["person"])
    assert "date_from" in errors[3]
    assert not Post.objects.exists()
    assert tang.posts.count() == 0 and division.posts.count() == 0


def test_citation_rows_are_verified_against_their_passage(curator: User) -> None:
    src = source()
    tang = person(slug="tang")
    rows = [
        {
            "slug": "",
            "passage": f"{src.slug}:1",
            "quote": "赶往煤炭港码头",
            "claim": "went to the dock",
            "person": "tang",
        },
        {"slug": "", "passage": f"{src.slug}:1", "quote": "乘船离开", "claim": "left by boat", "person": "tang"},
        {"slug": "", "passage": f"{src.slug}:99", "quote": "x", "claim": "x", "person": "tang"},
    ]
    result = run(CitationResource, rows, curator)
    errors = errors_by_row(result)
    assert "quote" in errors[2] and "Closest match" in " ".join(errors[2]["quote"])
    assert "passage" in errors[3] and "no passage 99" in " ".join(errors[3]["passage"])
    assert not Citation.objects.exists()

    result = run(CitationResource, rows[:1], curator)
    assert not result.has_validation_errors(), errors_by_row(result)
    citation = Citation.objects.get()
    assert citation.person == tang and citation.status == Status.DRAFT
    assert citation.passage.text[citation.start : citation.end] == "赶往煤炭港码头"


def test_an_unknown_record_of_a_name_is_a_field_error(curator: User) -> None:
    result = run(PersonNameResource, [{"person": "nobody", "name": "唐孟潇", "kind": "courtesy"}], curator)
    assert "person" in errors_by_row(result)[1]
    assert not PersonName.objects.exists()


def test_importing_a_name_of_a_published_person_proposes_a_change_of_it(curator: User, reviewer: User) -> None:
    tang = person(status=Status.APPROVED, slug="tang")
    result = run(
        PersonNameResource, [{"person": "tang", "name": "唐孟潇", "kind": "courtesy", "script": "Hans"}], curator
    )
    assert not result.has_validation_errors()
    tang.refresh_from_db()
    # A name of a published person is a change of that person: pending, not published.
    assert not tang.names.filter(name="唐孟潇").exists() and tang.status == Status.APPROVED
    assert [entry["name"] for entry in published(tang)["names"]] == []
    revision = revisions.pending_revision(tang)
    assert revision is not None and revision.created_by == curator
    with pytest.raises(PermissionDenied):
        revisions.approve_revision(revision=revision, by=curator, shown=decisions.revision_pin(revision))
    revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    assert tang.names.filter(name="唐孟潇", kind="courtesy").exists()
    assert [entry["name"] for entry in published(tang)["names"]] == ["唐孟潇"]


@pytest.mark.parametrize("file_format", [SafeCSV, SafeXLSX, JSON], ids=["csv", "xlsx", "json"])
def test_export_then_import_changes_nothing(file_format: type, curator: User) -> None:
    world(2)
    Event.objects.update(date_text="12日傍晚5点")
    Location.objects.filter(pk=Location.objects.first().pk).update(latitude="32.100000", longitude="118.750000")
    Person.objects.filter(pk=Person.objects.first().pk).update(description="-前线 =总司令")
    fmt = file_format()
    for model, resource_class in RESOURCES.items():
        before = model._default_manager.count()
        history_before = model.history.count()  # type: ignore[attr-defined]
        exported = fmt.export_data(resource_class().export())
        data = fmt.create_dataset(exported)
        result = resource_class().import_data(data, user=curator)
        assert not result.has_errors() and not result.has_validation_errors(), (model, errors_by_row(result))
        assert result.totals["new"] == 0 and result.totals["update"] == 0, (model, result.totals)
        assert model._default_manager.count() == before
        assert model.history.count() == history_before, model  # type: ignore[attr-defined]


def test_formulae_are_escaped_in_csv_and_xlsx(curator: User) -> None:
    person(slug="evil", description='=HYPERLINK("http://example.invalid","x")', birth="")
    person(slug="plus", description="+1", birth="")
    person(slug="at", description="@SUM(A1)", birth="")
    exported = SafeCSV().export_data(PersonResource().export())
    assert "'=HYPERLINK" in exported and "'+1" in exported and "'@SUM" in exported
    assert "\n=HYPERLINK" not in exported and ",=HYPERLINK" not in exported

    workbook = openpyxl.load_workbook(io.BytesIO(SafeXLSX().export_data(PersonResource().export())))
    values = [cell.value for row in workbook.active.iter_rows() for cell in row if isinstance(cell.value, str)]
    assert not any(value.startswith(("=", "+", "@")) for value in values)
    assert '\'=HYPERLINK("http://example.invalid","x")' in values
    assert all(cell.data_type != "f" for row in workbook.active.iter_rows() for cell in row)

    data = SafeCSV().create_dataset(exported)
    assert '=HYPERLINK("http://example.invalid","x")' in data["description"]


# -- through the admin


def upload(client, model: type, name: str, content: bytes, fmt: int = 0):
    url = reverse(f"admin:archive_{model._meta.model_name}_import")
    return client.post(url, {"format": str(fmt), "import_file": SimpleUploadedFile(name, content)})


def test_admin_preview_lists_errors_and_confirm_imports(curator: User) -> None:
    client = client_for(curator)
    person(slug="tang")
    bad = "slug,person,unit,title,status\np1,tang,nowhere,军长,approved\n".encode()
    page = upload(client, Post, "posts.csv", bad)
    assert page.status_code == 200
    result = page.context["result"]
    assert result.has_validation_errors()
    html = page.content.decode()
    assert "nowhere" in html and "confirm_form" not in page.context

    unit(slug="u88")
    good = "slug,person,unit,title,status\np1,tang,u88,军长,approved\n".encode()
    page = upload(client, Post, "posts.csv", good)
    assert page.status_code == 200 and page.context["confirm_form"] is not None
    assert not Post.objects.exists()  # the preview is a dry run
    confirm = page.context["confirm_form"]
    response = client.post(
        reverse("admin:archive_post_process_import"), {name: confirm[name].value() for name in confirm.fields}
    )
    assert response.status_code == 302
    post = Post.objects.get(slug="p1")
    assert post.status == Status.DRAFT and post.created_by == curator


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("broken.xlsx", b"this is not a workbook", 1),
        ("broken.json", b"{not json", 2),
        ("noslug.csv", "name,side\n唐生智,chinese\n".encode(), 0),
        ("ragged.csv", b'slug,name\n"tang,\xe5\x94\x90\n', 0),
        ("latin1.csv", "slug,name\nt,caf\xe9\n".encode("latin-1"), 0),
    ],
)
def test_bad_files_give_errors_not_500(curator: User, name: str, content: bytes, fmt: int) -> None:
    page = upload(client_for(curator), Person, name, content, fmt)
    assert page.status_code == 200
    assert "confirm_form" not in page.context or page.context["confirm_form"] is None
    assert not Person.objects.exists()


def test_bad_edtf_and_unknown_parent_name_their_fields(curator: User) -> None:
    result = run(PersonResource, [{"slug": "tang", "name": "唐生智", "side": "chinese", "birth": "1889年"}], curator)
    assert "birth" in errors_by_row(result)[1]
    from archive.importing.spreadsheets import LocationResource

    result = run(LocationResource, [{"slug": "yjm", "name": "挹江门", "kind": "gate", "parent": "nanjing"}], curator)
    assert "parent" in errors_by_row(result)[1]
    assert not Person.objects.exists() and not Location.objects.exists() and not Unit.objects.exists()
