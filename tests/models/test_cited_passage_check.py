"""`manage.py check --database default` notices a cited passage changed around the database's trigger."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection

from archive.db.cited_passages import rewriting
from archive.models import Location
from tests.factories import approved, cite, source_with_text

pytestmark = pytest.mark.django_db


def test_check_names_a_passage_changed_under_its_citations() -> None:
    passage = source_with_text("部队从浦口渡江。\n", slug="hist").passages.get(seq=1)
    cite(passage, "浦口", location=approved(Location(slug="pukou", name="浦口", kind="town")))
    call_command("check", "--database", "default")  # silent while the words are those cited
    with rewriting([passage.pk]), connection.cursor() as cursor:  # as if the trigger had been dropped
        cursor.execute("UPDATE archive_passage SET text = %s WHERE id = %s", ["部队从浦江渡江。", passage.pk])
    with pytest.raises(SystemCheckError, match=r"archive\.E003.*hist §1"):
        call_command("check", "--database", "default")
