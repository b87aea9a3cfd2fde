"""A spreadsheet inside every stated file limit cannot hold a worker: cells are counted as the sheet is read.

An XLSX of 1,000 rows by 1,600 columns is small on the wire and within the
unpacked limit, but read whole and carried through the preview it held a
worker past its timeout and ended in a 500. The sheet is now read lazily and
the reading stops at SPREADSHEET_IMPORT_MAX_CELLS, with the limit named and
nothing kept. A NUL in a cell is refused by the model's validation, as on
every other path.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
import tablib
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from archive.importing.sheet_limits import max_cells, max_rows
from archive.importing.spreadsheets import SPREADSHEET_FORMATS, SafeXLSX
from archive.models import Person
from tests.admin.helpers import client_for, user
from tests.importing.helpers import snapshot

pytestmark = pytest.mark.django_db

IMPORT = reverse("admin:archive_person_import")
XLSX_FORMAT = SPREADSHEET_FORMATS.index(SafeXLSX)
SHEET = "xl/worksheets/sheet1.xml"


@pytest.fixture(autouse=True)
def _own_upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.IMPORT_UPLOAD_DIR = str(tmp_path / "uploads")
    return tmp_path / "uploads"


@pytest.fixture
def curator() -> Client:
    return client_for(user("wide-curator", role="curator"))


def _text(value: str) -> str:
    return f'<c t="inlineStr"><is><t>{value}</t></is></c>'


def _workbook(rows: int, columns: int, dimension: str | None = None) -> bytes:
    """A real workbook whose sheet is `rows` persons by `columns` columns, written as XML (cheap at any size)."""
    template = io.BytesIO(SafeXLSX().export_data(tablib.Dataset(headers=["slug", "name", "side"])))
    filler = columns - 3
    header = "<row>" + "".join(map(_text, ("slug", "name", "side"))) + _text("x") * filler + "</row>"
    body = "".join("<row>" + _text(f"wide-{n}") + _text(f"人物{n}") + _text("chinese") + "<c><v>1</v></c>" * filler
                   + "</row>" for n in range(rows))
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    xml = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
           f'spreadsheetml/2006/main">{declared}<sheetData>{header}{body}</sheetData></worksheet>')
    out = io.BytesIO()
    with zipfile.ZipFile(template) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            target.writestr(member, xml.encode() if member.filename == SHEET else source.read(member))
    return out.getvalue()


def _upload(client: Client, content: bytes, name: str, fmt: int) -> Any:
    return client.post(IMPORT, {"format": str(fmt), "import_file": SimpleUploadedFile(name, content)})


def _errors(page: Any) -> str:
    assert page.status_code == 200
    return " ".join(page.context["form"].errors.get("import_file", []))


def test_a_wide_workbook_within_the_file_limits_is_refused_naming_the_cell_limit(
    curator: Client, settings: Any, _own_upload_dir: Path
) -> None:
    wide = _workbook(rows=max_rows(), columns=1600)
    with zipfile.ZipFile(io.BytesIO(wide)) as archive:
        unpacked = sum(member.file_size for member in archive.infolist())
    assert len(wide) < settings.SPREADSHEET_IMPORT_MAX_BYTES
    assert unpacked < settings.SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES
    assert max_rows() * 1600 > max_cells()
    before = snapshot()
    page = _upload(curator, wide, "wide.xlsx", XLSX_FORMAT)
    errors = _errors(page)
    assert f"more than {max_cells():,} cells" in errors and "SPREADSHEET_IMPORT_MAX_CELLS" in errors, errors
    assert page.context.get("confirm_form") is None
    assert snapshot() == before


def test_a_sheet_past_the_row_limit_stops_being_read_there(curator: Client, settings: Any) -> None:
    settings.SPREADSHEET_IMPORT_MAX_ROWS = 5
    errors = _errors(_upload(curator, _workbook(rows=50, columns=3), "long.xlsx", XLSX_FORMAT))
    assert "more than 5 rows" in errors and "SPREADSHEET_IMPORT_MAX_ROWS" in errors, errors


def test_a_sheet_declaring_huge_dimensions_is_read_as_it_is(curator: Client) -> None:
    page = _upload(curator, _workbook(rows=2, columns=3, dimension="A1:XFD1048576"), "small.xlsx", XLSX_FORMAT)
    assert page.context["confirm_form"] is not None, page.context["form"].errors
    assert page.context["result"].totals["new"] == 2


def test_a_wide_csv_is_refused_naming_the_cell_limit(curator: Client, settings: Any) -> None:
    settings.SPREADSHEET_IMPORT_MAX_CELLS = 1000
    header = "slug,name,side," + ",".join(f"x{n}" for n in range(100))
    rows = "".join(f"wide-{n},人物{n},chinese" + ",1" * 100 + "\n" for n in range(10))
    before = snapshot()
    errors = _errors(_upload(curator, f"{header}\n{rows}".encode(), "wide.csv", 0))
    assert "1,000" in errors and "SPREADSHEET_IMPORT_MAX_CELLS" in errors, errors
    assert snapshot() == before


def test_a_nul_in_a_cell_is_refused_by_the_models_validation(curator: Client) -> None:
    before = snapshot()
    page = _upload(curator, "slug,name,side\nnul-person,唐\x00生智,chinese\n".encode(), "nul.csv", 0)
    assert page.status_code == 200
    result = page.context["result"]
    assert result.has_validation_errors()
    assert page.context.get("confirm_form") is None
    assert snapshot() == before
    assert not Person.objects.filter(slug="nul-person").exists()
