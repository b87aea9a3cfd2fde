"""The admin's spreadsheet import, bounded and private.

django-import-export's import has two steps: the upload is read and checked
(a dry run), then a confirm form posts back the name under which the upload
was kept. Two things here close what its defaults leave open:

* **Private**: the upload is kept by `archive.importing.uploads` under a
  random name, and the confirm form carries that name signed for the user
  and the model. A posted `import_file_name` that this user's upload did not
  produce (another user's, a forged one, a file in /tmp) is refused before
  anything is read or deleted.
* **Bounded**: a file larger than SPREADSHEET_IMPORT_MAX_BYTES, an XLSX
  (a zip) that unpacks to more than SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES,
  or one with more rows than SPREADSHEET_IMPORT_MAX_ROWS or more cells than
  SPREADSHEET_IMPORT_MAX_CELLS (counted as the sheet is read, which stops
  there), is refused at upload with a message that names the limit, which the import page states beforehand; so an
  import never holds a worker past its timeout and never ends in a 500.
"""

from __future__ import annotations

import functools
import zipfile
from typing import Any

import tablib
from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from import_export.admin import ImportExportMixin
from import_export.forms import ImportForm

from archive.importing import sheet_limits, uploads

DEFAULT_MAX_BYTES = 5 * 1024 * 1024
DEFAULT_MAX_UNPACKED_BYTES = 50 * 1024 * 1024


def max_bytes() -> int:
    return int(getattr(settings, "SPREADSHEET_IMPORT_MAX_BYTES", DEFAULT_MAX_BYTES))


def max_unpacked_bytes() -> int:
    return int(getattr(settings, "SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES", DEFAULT_MAX_UNPACKED_BYTES))


max_rows = sheet_limits.max_rows
max_cells = sheet_limits.max_cells


def limits_text() -> str:
    return _(
        "An import takes a file of at most %(bytes)s bytes (%(unpacked)s bytes unpacked, for XLSX), "
        "%(rows)s rows and %(cells)s cells (settings SPREADSHEET_IMPORT_MAX_BYTES, "
        "SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES, SPREADSHEET_IMPORT_MAX_ROWS and SPREADSHEET_IMPORT_MAX_CELLS); "
        "split a larger sheet into several imports."
    ) % {"bytes": f"{max_bytes():,}", "unpacked": f"{max_unpacked_bytes():,}", "rows": f"{max_rows():,}",
         "cells": f"{max_cells():,}"}


class BoundedImportForm(ImportForm):
    """The upload form, refusing a file over the size limit before it is read."""

    def clean_import_file(self) -> Any:
        upload = self.cleaned_data["import_file"]
        if upload is not None and upload.size > max_bytes():
            raise forms.ValidationError(
                _("This file holds %(size)s bytes; an import takes at most %(limit)s bytes "
                  "(setting SPREADSHEET_IMPORT_MAX_BYTES).")
                % {"size": f"{upload.size:,}", "limit": f"{max_bytes():,}"}
            )
        if upload is not None:
            _refuse_zip_bomb(upload)
        return upload


def _refuse_zip_bomb(upload: Any) -> None:
    """An XLSX file is a zip: refuse one whose members unpack to more than the limit.

    A few megabytes of zip can unpack to gigabytes of sheet XML; the reader
    would hold them in memory long before the row limit is counted.
    """
    limit = max_unpacked_bytes()
    try:
        upload.seek(0)
        # Declared sizes suffice: zipfile never unpacks a member past its declared size.
        with zipfile.ZipFile(upload) as archive:
            unpacked = sum(member.file_size for member in archive.infolist())
    except zipfile.BadZipFile:
        return  # no zipped sheet (CSV, JSON, or a broken file the format's reader names)
    finally:
        upload.seek(0)
    if unpacked > limit:
        raise forms.ValidationError(
            _("This file unpacks to %(size)s bytes; an import takes at most %(limit)s bytes unpacked "
              "(setting SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES).")
            % {"size": f"{unpacked:,}", "limit": f"{limit:,}"}
        )


@functools.cache
def bounded_format(format_class: type[Any]) -> type:
    """The format with its reader refusing a sheet of more than `max_rows()` rows or `max_cells()` cells.

    An XLSX sheet is counted as it is read and stopped at the limit (`archive.importing.sheet_limits`);
    a text format, no larger than the upload limit, is counted once read.
    """

    def create_dataset(self: Any, *args: Any, **kwargs: Any) -> tablib.Dataset:
        return sheet_limits.check(format_class.create_dataset(self, *args, **kwargs))

    return type(format_class.__name__, (format_class,), {"create_dataset": create_dataset})


class SpreadsheetImportMixin(ImportExportMixin):
    """ImportExportMixin with a private, signed upload and stated limits."""

    import_form_class = BoundedImportForm
    tmp_storage_class = uploads.SignedUploadStorage
    import_template_name = "admin/archive/spreadsheet_import.html"

    def get_import_formats(self) -> list[type]:
        return [bounded_format(format_class) for format_class in super().get_import_formats()]

    def get_import_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_import_context_data(**kwargs), "import_limits": limits_text()}

    def add_data_read_fail_error_to_form(self, form: forms.Form, e: Exception) -> None:
        if isinstance(e, sheet_limits.SheetTooLarge):
            form.add_error("import_file", str(e))
        else:
            super().add_data_read_fail_error_to_form(form, e)

    def get_confirm_form_initial(self, request: HttpRequest, import_form: Any) -> dict[str, Any]:
        initial = super().get_confirm_form_initial(request, import_form)
        if import_form is not None:
            initial["import_file_name"] = uploads.sign(
                initial["import_file_name"], user_id=request.user.pk, model=self.opts.label
            )
        return initial

    @method_decorator(require_POST)
    def process_import(self, request: HttpRequest, **kwargs: Any) -> HttpResponse:
        if not self.has_import_permission(request):
            raise PermissionDenied
        name = uploads.unsign(request.POST.get("import_file_name", ""), user_id=request.user.pk,
                              model=self.opts.label)
        if name is None:
            messages.error(request, _("This import cannot be confirmed: its file was not uploaded by you for this "
                                      "import, or it waited too long. Nothing was imported; upload the file again."))
            return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_import"))
        posted = request.POST.copy()
        posted["import_file_name"] = name
        request.POST = posted  # type: ignore[assignment]  # a mutable copy, as the import view reads it
        try:
            return super().process_import(request, **kwargs)
        except FileNotFoundError:
            # Confirmed twice (the first confirmation removed the file), or removed as stale.
            messages.error(request, _("This import was already confirmed or has expired. Nothing more was "
                                      "imported; upload the file again if it is still needed."))
            return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_import"))
