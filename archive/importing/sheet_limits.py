"""How much of a spreadsheet an import reads: rows and cells, counted as the sheet is read and stopped at the limit.

A file within the upload limits (5 MB, 50 MB unpacked) could still hold a
sheet of 1,000 rows by 1,600 columns: read whole into a dataset and carried
through the import's preview, it held a worker past its timeout. So an XLSX
sheet is read lazily (openpyxl's read-only mode), one row at a time, and the
reading stops at the first row past SPREADSHEET_IMPORT_MAX_ROWS or the first
cell past SPREADSHEET_IMPORT_MAX_CELLS, with a message naming the limit; a
CSV or JSON file (no larger than its few megabytes) is counted once read.
The sheet's own declared size is ignored: each row is as long as its cells.
"""

from __future__ import annotations

import re
import zipfile
from io import BytesIO
from typing import Any

import openpyxl  # type: ignore[import-untyped]  # ships no types; import-export reads it the same way
import tablib
from django.conf import settings
from django.utils.translation import gettext as _

DEFAULT_MAX_ROWS = 1000
DEFAULT_MAX_CELLS = 100_000


class SheetTooLarge(ValueError):
    """A sheet past an import's limit of rows or of cells; the message names the limit and its setting."""


def max_rows() -> int:
    return int(getattr(settings, "SPREADSHEET_IMPORT_MAX_ROWS", DEFAULT_MAX_ROWS))


def max_cells() -> int:
    return int(getattr(settings, "SPREADSHEET_IMPORT_MAX_CELLS", DEFAULT_MAX_CELLS))


def _too_many_rows(count: str) -> SheetTooLarge:
    return SheetTooLarge(_("This sheet holds %(count)s rows; an import takes at most %(limit)s "
                           "(setting SPREADSHEET_IMPORT_MAX_ROWS). Split it into several imports.")
                         % {"count": count, "limit": f"{max_rows():,}"})


def _too_many_cells(count: str) -> SheetTooLarge:
    return SheetTooLarge(_("This sheet holds %(count)s cells; an import takes at most %(limit)s "
                           "(setting SPREADSHEET_IMPORT_MAX_CELLS). Remove the columns the import does not read, "
                           "or split the sheet.") % {"count": count, "limit": f"{max_cells():,}"})


def check(dataset: tablib.Dataset) -> tablib.Dataset:
    """`dataset`, read whole from a small text file, refused past the limits."""
    if len(dataset) > max_rows():
        raise _too_many_rows(f"{len(dataset):,}")
    cells = (len(dataset) + 1) * dataset.width
    if cells > max_cells():
        raise _too_many_cells(f"{cells:,}")
    return dataset


_CELL = re.compile(rb"<(?:\w+:)?c[\s>/]")
_CHUNK = 1 << 20


def _count_cells(data: bytes) -> None:
    """Refuse a workbook whose members hold more cell elements than the limit, counted over the raw XML.

    openpyxl reads each sheet once through when it opens the workbook (to
    learn its size, unless the sheet declares it): with 1.6 million cells that
    alone took 20 s. Counting the cells' tags in the unpacked bytes costs a
    fraction of that and bounds what openpyxl will then read.
    """
    limit, cells = max_cells(), 0
    with zipfile.ZipFile(BytesIO(data)) as archive:
        for member in archive.infolist():
            with archive.open(member) as stream:
                carry = b""
                while chunk := stream.read(_CHUNK):
                    window = carry + chunk
                    # The window's last bytes, where a tag may be cut, are counted with the next chunk.
                    cut = max(0, len(window) - 16)
                    cells += sum(1 for match in _CELL.finditer(window) if match.start() < cut)
                    carry = window[cut:]
                    if cells > limit:
                        raise _too_many_cells(_("more than %(limit)s") % {"limit": f"{limit:,}"})
                cells += len(_CELL.findall(carry))
    if cells > limit:
        raise _too_many_cells(_("more than %(limit)s") % {"limit": f"{limit:,}"})


def read_xlsx(data: bytes) -> tablib.Dataset:
    """The workbook's active sheet, its first row the headers, read lazily and stopped at the limits."""
    _count_cells(data)
    ignore_blanks = getattr(settings, "IMPORT_EXPORT_IMPORT_IGNORE_BLANK_LINES", False)
    book = openpyxl.load_workbook(BytesIO(data), read_only=True, data_only=True)
    try:
        sheet: Any = book.active
        sheet.reset_dimensions()  # a sheet's declared dimensions would pad every row to them
        rows_limit, cells_limit = max_rows(), max_cells()
        dataset = tablib.Dataset()
        cells = 0
        for index, row in enumerate(sheet.iter_rows(values_only=True)):
            cells += max(len(row), 1)  # an empty row costs its reading too
            if cells > cells_limit:
                raise _too_many_cells(_("more than %(limit)s") % {"limit": f"{cells_limit:,}"})
            if index > rows_limit:
                raise _too_many_rows(_("more than %(limit)s") % {"limit": f"{rows_limit:,}"})
            if index == 0:
                dataset.headers = list(row)
                continue
            width = dataset.width
            values = [*row[:width], *[None] * (width - len(row))]
            if not (ignore_blanks and all(value is None for value in values)):
                dataset.append(values)
        return dataset
    finally:
        book.close()
