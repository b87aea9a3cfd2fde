"""No NUL in the archive's text: one validator on every text field of the archive's models, whatever the path.

PostgreSQL refuses a NUL in text, SQLite stores it; a NUL in a name was then
served by the API as part of its JSON, and documents that mark the request's
origin with one (`archive.api.stored`) could not tell it from the mark. Django's
form fields refuse NUL, but a spreadsheet row, a fixture or a TEI file reach
the models without a form. Each of those paths validates with `full_clean()`,
so the validator is added here, once, to every `CharField` and `TextField` of
the app's models (`ArchiveConfig.ready`), rather than field by field: a field
added later is covered too. It is added to the field's validators as Django
reads them, not to its definition, so migrations are not concerned.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.validators import ProhibitNullCharactersValidator
from django.db import models

NO_NUL = ProhibitNullCharactersValidator()


def refuse_nul(model_classes: Iterable[type[models.Model]]) -> None:
    """Give every text field of `model_classes` the NUL validator (once)."""
    for model in model_classes:
        for field in model._meta.concrete_fields:
            if isinstance(field, models.CharField | models.TextField) and NO_NUL not in field.validators:
                field.validators.append(NO_NUL)
