"""A cited passage keeps its words: raw SQL cannot change them, the re-anchoring path still can."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, InternalError, connection, transaction

from archive.db.cited_passages import CITED_PASSAGE_CHANGED, rewriting
from archive.models import Location, Passage
from archive.text.segment import sha256_text
from tests.factories import approved, cite, source_with_text

pytestmark = pytest.mark.django_db

DB_ERRORS = (IntegrityError, InternalError)
TEXT = "第一段：部队从浦口渡江。\n\n第二段：无人引用。\n"


@pytest.fixture
def cited() -> Passage:
    source = source_with_text(TEXT, slug="hist")
    passage = source.passages.get(seq=1)
    place = approved(Location(slug="pukou", name="浦口", kind="town"))
    cite(passage, "浦口", location=place)
    return passage


def raw_update(sql: str, params: list[object]) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_raw_sql_cannot_change_a_cited_text(cited: Passage) -> None:
    # Same length, so no other rule (the offsets, the source's length) stands in the way: 浦口 → 浦江.
    changed = cited.text.replace("浦口", "浦江")
    with pytest.raises(DB_ERRORS, match="cited passage"):
        raw_update("UPDATE archive_passage SET text = %s, sha256 = %s WHERE id = %s",
                   [changed, sha256_text(changed), cited.pk])
    cited.refresh_from_db()
    assert "浦口" in cited.text


def test_raw_sql_cannot_move_or_rehash_a_cited_passage(cited: Passage) -> None:
    # Moved by one character, inside its source and with offsets that still fit its text: only this rule refuses.
    with pytest.raises(DB_ERRORS, match="cited passage"):
        raw_update('UPDATE archive_passage SET start = start + 1, "end" = "end" + 1 WHERE id = %s', [cited.pk])
    with pytest.raises(DB_ERRORS, match="cited passage"):
        raw_update("UPDATE archive_passage SET sha256 = %s WHERE id = %s", ["0" * 64, cited.pk])


def test_the_message_names_the_rule(cited: Passage) -> None:
    with pytest.raises(DB_ERRORS) as raised:
        raw_update("UPDATE archive_passage SET text = %s WHERE id = %s", [cited.text.replace("浦", "江"), cited.pk])
    assert CITED_PASSAGE_CHANGED in str(raised.value)


def test_an_uncited_passage_and_other_columns_may_change(cited: Passage) -> None:
    uncited = Passage.objects.get(source=cited.source, seq=2)
    changed = uncited.text.replace("无人", "没人")
    raw_update("UPDATE archive_passage SET text = %s, sha256 = %s WHERE id = %s",
               [changed, sha256_text(changed), uncited.pk])
    raw_update("UPDATE archive_passage SET role = %s WHERE id = %s", ["quotation", cited.pk])
    raw_update("UPDATE archive_passage SET text = text WHERE id = %s", [cited.pk])  # the same words
    uncited.refresh_from_db()
    cited.refresh_from_db()
    assert uncited.text == changed and cited.role == "quotation"


def test_leave_is_withdrawn_when_the_rewrite_ends(cited: Passage) -> None:
    with transaction.atomic():
        with rewriting([cited.pk]), connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM archive_passage_rewrite")
            assert cursor.fetchone() == (1,)
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM archive_passage_rewrite")
            assert cursor.fetchone() == (0,)
    with pytest.raises(DB_ERRORS):
        raw_update("UPDATE archive_passage SET text = %s WHERE id = %s", [cited.text.replace("浦", "江"), cited.pk])
