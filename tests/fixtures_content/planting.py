"""Defects planted in a copy of the shipped collection, as the issue's historian planted them.

The tests of `test_planted_defects*.py` load the shipped collection (the
`collection` fixture: a transaction rolled back after the module) and plant
one defect each, the way it would arrive: a record's column or a passage's
text changed behind the services' back, by a fixture edit or by SQL. Then the
audit must find it. Each planter returns what it planted, so that a test can
look for exactly that finding.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connection, models

from archive.audit import Finding, run_audit
from archive.db.cited_passages import rewriting
from archive.models import Citation, Passage, Statement
from archive.text.normalize import fold

HISTORY = "history-nanjing-retreat"
WEB_NOVEL = "webnovel-zhutian-changjinhu"
_RUN = re.compile(r"[\u3400-\u9fff]{8,}")


def open_findings(code: str) -> list[Finding]:
    """The findings of one check that no curator's note explains."""
    return run_audit(codes=[code]).open


def update_columns(record: models.Model, **values: Any) -> models.Model:
    """Change a record's columns as a fixture edit or SQL would: no service, no review, no signal."""
    type(record)._default_manager.filter(pk=record.pk).update(**values)
    record.refresh_from_db()
    return record


def update_statement(slug: str, **values: Any) -> Statement:
    """Change one account (its value, bounds, `as_written` …) behind the services' back."""
    statement = Statement.objects.get(slug=slug)
    update_columns(statement, **values)
    return statement


def fiction_phrase_nobody_cites(source: str = WEB_NOVEL, size: int = 8) -> tuple[Passage, str]:
    """Words of a fiction passage that no citation rests on and that no non-fiction passage has."""
    history = [fold(t) for t in Passage.objects.filter(source__is_fiction=False).values_list("text", flat=True)]
    cited = Citation.objects.values("passage_id")
    for passage in Passage.objects.filter(source__slug=source).exclude(pk__in=cited).order_by("seq"):
        for run in _RUN.findall(passage.text):
            phrase = run[:size]
            if not any(fold(phrase) in text for text in history):
                return passage, phrase
    raise LookupError(f"no uncited passage of {source} has {size} characters of its own")


def append_to_text(record: models.Model, field: str, words: str) -> models.Model:
    """Words added to a record's free text (a description, a date text, a note)."""
    return update_columns(record, **{field: getattr(record, field) + words})


def cited_passage_with(words: str, source: str = HISTORY) -> Passage:
    """A passage of `source` that holds `words` and that a citation rests on."""
    return Passage.objects.filter(source__slug=source, text__contains=words, citations__isnull=False).distinct()[0]


def change_text_by_sql(passage: Passage, old: str, new: str, *, around_the_trigger: bool = False) -> None:
    """`UPDATE archive_passage SET text = …` by raw SQL, replacing `old` by `new` (same length keeps the offsets).

    `around_the_trigger=True` takes the leave the re-anchoring path takes, as if
    the trigger had been dropped, so that the audit can be shown to notice.
    """
    text = passage.text.replace(old, new)
    with connection.cursor() as cursor:
        if around_the_trigger:
            with rewriting([passage.pk]):
                cursor.execute("UPDATE archive_passage SET text = %s WHERE id = %s", [text, passage.pk])
        else:
            cursor.execute("UPDATE archive_passage SET text = %s WHERE id = %s", [text, passage.pk])
