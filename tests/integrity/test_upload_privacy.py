"""The spreadsheet import's confirm step reads only the file this user's upload made, as the attack was made.

A posted `import_file_name` once read, imported and deleted any file of that
name in the server's temp folder. Now the upload waits in a folder of the
project's own under a random name, and the confirm form carries that name
signed for the uploader and the model: a planted file, a forged or borrowed
name, a path out of the folder are refused, and nothing is read or deleted.
Sheets over the size or row limit are refused at upload, with the limit named.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import tablib
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from archive.importing import uploads
from archive.importing.spreadsheets import SPREADSHEET_FORMATS, SafeXLSX
from archive.models import Person
from tests.admin.helpers import client_for, user
from tests.importing.helpers import snapshot

pytestmark = pytest.mark.django_db

IMPORT = reverse("admin:archive_person_import")
CONFIRM = reverse("admin:archive_person_process_import")
XLSX_FORMAT = SPREADSHEET_FORMATS.index(SafeXLSX)
SHEET = "slug,name,side\ntang-shengzhi,唐生智,chinese\n".encode()


@pytest.fixture(autouse=True)
def _own_upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.IMPORT_UPLOAD_DIR = str(tmp_path / "uploads")
    return tmp_path / "uploads"


@pytest.fixture
def curator() -> Client:
    return client_for(user("upload-curator", role="curator"))


def _upload(client: Client, content: bytes = SHEET, name: str = "people.csv", fmt: int = 0) -> Any:
    return client.post(IMPORT, {"format": str(fmt), "import_file": SimpleUploadedFile(name, content)})


def _confirm_fields(page: Any) -> dict[str, Any]:
    confirm = page.context["confirm_form"]
    assert confirm is not None, page.context["form"].errors
    return {name: confirm[name].value() for name in confirm.fields}


def _refused(response: Any) -> None:
    assert response.status_code == 302 and response["Location"] == IMPORT
    texts = [str(message) for message in get_messages(response.wsgi_request)]
    assert any("cannot be confirmed" in text for text in texts), texts


def _planted() -> Path:
    """A file an attacker left in the server's temp folder, shaped as the import expects."""
    handle, name = tempfile.mkstemp(suffix=".csv", dir=tempfile.gettempdir())
    os.write(handle, "slug,name,side\nplanted,种下的人,chinese\n".encode())
    os.close(handle)
    return Path(name)


def test_a_file_planted_in_the_temp_folder_is_neither_read_nor_deleted(curator: Client) -> None:
    planted = _planted()
    try:
        before = snapshot()
        fields = _confirm_fields(_upload(curator))
        for forged in (planted.name, str(planted), f"../../../{planted.name}", "/etc/passwd"):
            _refused(curator.post(CONFIRM, {**fields, "import_file_name": forged}))
        assert planted.exists() and "种下的人" in planted.read_text()
        assert snapshot() == before
        assert not Person.objects.filter(slug="planted").exists()
    finally:
        planted.unlink(missing_ok=True)


def test_a_name_of_the_right_shape_but_unsigned_is_refused(curator: Client, _own_upload_dir: Path) -> None:
    fields = _confirm_fields(_upload(curator))
    waiting = [entry.name for entry in _own_upload_dir.iterdir()]
    assert len(waiting) == 1
    _refused(curator.post(CONFIRM, {**fields, "import_file_name": waiting[0]}))
    assert (_own_upload_dir / waiting[0]).exists()
    assert not Person.objects.filter(slug="tang-shengzhi").exists()


def test_another_users_upload_cannot_be_confirmed_and_stays_for_its_owner(curator: Client) -> None:
    fields = _confirm_fields(_upload(curator))
    intruder = client_for(user("other-curator", role="curator"))
    _refused(intruder.post(CONFIRM, fields))
    assert not Person.objects.filter(slug="tang-shengzhi").exists()
    assert curator.post(CONFIRM, fields).status_code == 302
    assert Person.objects.get(slug="tang-shengzhi").name == "唐生智"


def test_an_upload_signed_for_another_model_is_refused(curator: Client) -> None:
    fields = _confirm_fields(_upload(curator))
    response = curator.post(reverse("admin:archive_unit_process_import"), fields)
    assert response.status_code == 302 and "unit" in response["Location"]
    assert not Person.objects.filter(slug="tang-shengzhi").exists()


def test_the_upload_waits_in_a_private_folder_and_is_gone_once_confirmed(curator: Client,
                                                                         _own_upload_dir: Path) -> None:
    fields = _confirm_fields(_upload(curator))
    assert stat.S_IMODE(_own_upload_dir.stat().st_mode) == 0o700
    (waiting,) = list(_own_upload_dir.iterdir())
    assert stat.S_IMODE(waiting.stat().st_mode) == 0o600
    assert curator.post(CONFIRM, fields).status_code == 302
    assert list(_own_upload_dir.iterdir()) == []
    # Confirming twice imports nothing more and is no error.
    again = curator.post(CONFIRM, fields)
    assert again.status_code == 302 and Person.objects.filter(slug="tang-shengzhi").count() == 1


def test_a_stale_upload_is_removed_by_the_next_one(curator: Client, _own_upload_dir: Path) -> None:
    _upload(curator)
    (old,) = list(_own_upload_dir.iterdir())
    stale = time.time() - uploads.UPLOAD_MAX_AGE - 60
    os.utime(old, (stale, stale))
    _upload(curator)
    assert not old.exists() and len(list(_own_upload_dir.iterdir())) == 1


def test_an_expired_signature_is_refused() -> None:
    token = uploads.sign("0" * 32, user_id=1, model="archive.Person")
    assert uploads.unsign(token, user_id=1, model="archive.Person") == "0" * 32
    assert uploads.unsign(token, user_id=2, model="archive.Person") is None
    assert uploads.unsign(token + "x", user_id=1, model="archive.Person") is None


def test_the_import_page_states_its_limits(curator: Client, settings: Any) -> None:
    settings.SPREADSHEET_IMPORT_MAX_ROWS = 1234
    page = curator.get(IMPORT)
    assert page.status_code == 200
    html = page.content.decode()
    assert "1,234 rows" in html and "SPREADSHEET_IMPORT_MAX_BYTES" in html


def test_sixteen_thousand_rows_are_refused_at_upload_naming_the_limit(curator: Client) -> None:
    rows = "".join(f"person-{n},人物{n},chinese\n" for n in range(16_000))
    before = snapshot()
    started = time.monotonic()
    page = _upload(curator, ("slug,name,side\n" + rows).encode())
    assert time.monotonic() - started < 20
    assert page.status_code == 200
    errors = " ".join(page.context["form"].errors["import_file"])
    assert "16,000 rows" in errors and "SPREADSHEET_IMPORT_MAX_ROWS" in errors
    assert page.context.get("confirm_form") is None
    assert snapshot() == before


def test_a_file_over_the_size_limit_is_refused_at_upload_naming_the_limit(curator: Client, settings: Any,
                                                                          _own_upload_dir: Path) -> None:
    settings.SPREADSHEET_IMPORT_MAX_BYTES = 1000
    page = _upload(curator, SHEET + b"x" * 1000)
    assert page.status_code == 200
    errors = " ".join(page.context["form"].errors["import_file"])
    assert "1,000 bytes" in errors and "SPREADSHEET_IMPORT_MAX_BYTES" in errors
    assert not _own_upload_dir.exists() or list(_own_upload_dir.iterdir()) == []


def _xlsx(padding: int = 0) -> bytes:
    """A real one-person XLSX sheet, with `padding` zero bytes in an extra member (they zip to almost nothing)."""
    dataset = tablib.Dataset(["tang-shengzhi", "唐生智", "chinese"], headers=["slug", "name", "side"])
    sheet = io.BytesIO(SafeXLSX().export_data(dataset))
    if padding:
        with zipfile.ZipFile(sheet, "a", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("xl/padding.bin", b"\0" * padding)
    return sheet.getvalue()


def test_a_zipped_sheet_that_unpacks_past_the_limit_is_refused_at_upload(
    curator: Client, settings: Any, _own_upload_dir: Path
) -> None:
    settings.SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES = 1_000_000
    bomb = _xlsx(padding=5_000_000)
    assert len(bomb) < 50_000  # small on the wire, under the upload limit
    before = snapshot()
    page = _upload(curator, bomb, name="people.xlsx", fmt=XLSX_FORMAT)
    assert page.status_code == 200
    errors = " ".join(page.context["form"].errors["import_file"])
    assert "1,000,000 bytes unpacked" in errors and "SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES" in errors
    assert page.context.get("confirm_form") is None
    assert snapshot() == before
    assert not _own_upload_dir.exists() or list(_own_upload_dir.iterdir()) == []


def test_a_zipped_sheet_within_the_limit_reaches_the_preview(curator: Client, settings: Any) -> None:
    settings.SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES = 1_000_000
    page = _upload(curator, _xlsx(), name="people.xlsx", fmt=XLSX_FORMAT)
    assert page.status_code == 200
    assert page.context["confirm_form"] is not None, page.context["form"].errors
    assert page.context["result"].totals["new"] == 1  # the one person, previewed as new
