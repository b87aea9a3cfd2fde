"""What follows from a publication: columns derived from the evidence just approved.

A record's own date, places, role or coordinates are the values its approved
statements choose (`archive.statements`); when a statement is published, by the
review of a new one or of a revision, its record's columns follow in the same
transaction, so that lists, filters and sorting agree with the documents.
"""

from __future__ import annotations

from django.db import models

from archive.models import Statement


def after_publish(record: models.Model | None) -> None:
    if not isinstance(record, Statement):
        return
    from archive.statements import statement_apply

    target = record.target
    if target is not None:
        statement_apply(record=target)
