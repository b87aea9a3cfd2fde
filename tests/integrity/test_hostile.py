"""Hostile input: malformed, huge or mis-encoded files give a clear error, write nothing, never a 500.

Fills the gaps left by tests/importing/test_import_source.py (short bad files)
and tests/admin/test_spreadsheets.py (broken XLSX/JSON, ragged and Latin-1
CSV, = + @ escaping): files of ten megabytes on one line, a cell beyond the
CSV reader's field limit, NUL bytes in a CSV, a ZIP that is no workbook, and
exports of cells that start with - or a tab or a carriage return.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from archive.importing.spreadsheets import PersonResource, SafeCSV, SafeXLSX
from archive.models import Person, Status
from tests.admin.helpers import client_for, person, user
from tests.importing.helpers import run, snapshot

pytestmark = pytest.mark.django_db

TEN_MB = 10 * 1024 * 1024


def test_a_ten_megabyte_line_with_one_bad_byte_is_refused_naming_the_offset(tmp_path: Path) -> None:
    path = tmp_path / "one-line.txt"
    good = "南京挹江门".encode() * (TEN_MB // 15)
    path.write_bytes(good + b"\xff" + "码头".encode())
    before = snapshot()
    with pytest.raises(CommandError, match=rf"one-line\.txt is not valid UTF-8: byte offset {len(good)}"):
        run("import_source", str(path), "--slug", "one-line", "--title", "t", "--kind", "history",
            "--language", "zh-Hans")
    assert snapshot() == before


def test_a_spreadsheet_given_to_import_source_is_refused_as_binary(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    workbook.active.append(["slug", "name"])
    path = tmp_path / "people.xlsx"
    workbook.save(path)
    before = snapshot()
    with pytest.raises(CommandError, match=r"people\.xlsx is a binary file"):
        run("import_source", str(path), "--slug", "sheet", "--title", "t", "--kind", "history",
            "--language", "zh-Hans")
    assert snapshot() == before


@pytest.fixture
def curator_client() -> Client:
    return client_for(user("hostile-curator", role="curator"))


def _upload(client: Client, name: str, content: bytes, fmt: int) -> object:
    url = reverse("admin:archive_person_import")
    return client.post(url, {"format": str(fmt), "import_file": SimpleUploadedFile(name, content)})


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("one-line.csv", b"slug" + b"y" * TEN_MB, 0),
        ("huge-cell.csv", b"slug,name,side\ntang," + "唐".encode() * (TEN_MB // 3) + b",chinese\n", 0),
        ("nul.csv", b"slug,name,side\nta\x00ng,\xe5\x94\x90,chinese\n", 0),
        ("bad-utf8.csv", b"slug,name,side\ntang,\xe5\x94,chinese\n", 0),
        ("zip-not-workbook.xlsx", b"PK\x03\x04" + b"\x00" * 4096, 1),
        ("csv-as-xlsx.xlsx", b"slug,name\ntang,x\n", 1),
    ],
    ids=["10MB-one-line", "10MB-cell", "nul-byte", "bad-utf8", "zip-not-workbook", "csv-named-xlsx"],
)
def test_hostile_spreadsheets_in_the_admin_give_an_error_page_and_write_nothing(
    curator_client: Client, name: str, content: bytes, fmt: int
) -> None:
    person(slug="existing", status=Status.DRAFT)
    before = snapshot()
    page = _upload(curator_client, name, content, fmt)
    assert page.status_code == 200  # type: ignore[attr-defined]
    context = page.context  # type: ignore[attr-defined]
    result = context.get("result")
    refused = (result is not None and (result.has_errors() or result.has_validation_errors())) or bool(
        context["form"].errors
    )
    assert refused
    assert context.get("confirm_form") is None
    assert snapshot() == before


def test_a_large_but_sane_cell_imports_whole(curator_client: Client) -> None:
    description = "唐生智于12日傍晚离开司令部。" * 5000  # 75k characters, under the CSV field limit
    content = f"slug,name,side,description\ntang,唐生智,chinese,{description}\n".encode()
    page = _upload(curator_client, "big-cell.csv", content, 0)
    confirm = page.context["confirm_form"]  # type: ignore[attr-defined]
    response = curator_client.post(
        reverse("admin:archive_person_process_import"), {name: confirm[name].value() for name in confirm.fields}
    )
    assert response.status_code == 302
    assert Person.objects.get(slug="tang").description == description


DANGEROUS = ["-2+3", "\t=1+1", "\r=1+1", "=cmd|' /C calc'!A0", "+SUM(A1)", "@SUM(A1)", "'quoted"]


def test_exported_csv_and_xlsx_run_no_formula_and_import_back_unchanged() -> None:
    for n, value in enumerate(DANGEROUS):
        person(slug=f"evil-{n}", description=value, name=value, status=Status.DRAFT)
    dataset = PersonResource().export(Person.objects.order_by("slug"))

    exported = SafeCSV().export_data(dataset)
    raw = [cell for row in csv.reader(io.StringIO(exported)) for cell in row]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in raw)
    back = SafeCSV().create_dataset(exported)
    assert sorted(back["description"]) == sorted(DANGEROUS)

    workbook = openpyxl.load_workbook(io.BytesIO(SafeXLSX().export_data(dataset)))
    sheet_cells = [cell for row in workbook.active.iter_rows() for cell in row]
    assert all(cell.data_type != "f" for cell in sheet_cells)
    texts = [cell.value for cell in sheet_cells if isinstance(cell.value, str)]
    assert not any(text.startswith(("=", "+", "-", "@", "\t", "\r")) for text in texts)
    back = SafeXLSX().create_dataset(SafeXLSX().export_data(dataset))
    assert sorted(back["description"]) == sorted(DANGEROUS)
