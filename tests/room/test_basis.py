"""The reading room says what an account rests on: "inferred from §9 and §74: …", or the reference it is from."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from archive.models import Statement, Status

pytestmark = pytest.mark.usefixtures("shipped")


def _cited(field: str, count: int = 1) -> Statement:
    """An approved account of `field` of an approved record, resting on `count` passages or more."""
    for statement in Statement.objects.filter(status=Status.APPROVED, field=field).order_by("slug"):
        target = statement.target
        passages = {c.passage_id for c in statement.citations.filter(status=Status.APPROVED,
                                                                    passage__source__is_fiction=False)}
        if target.status == Status.APPROVED and not target.fictional and len(passages) >= count:
            return statement
    raise LookupError(field)


def test_an_inferred_account_names_its_premises_and_its_reasoning() -> None:
    statement = _cited("location", count=2)
    Statement.objects.filter(pk=statement.pk).update(basis="inferred", reasoning="两段合看可知其地")
    seqs = sorted({c.passage.seq for c in statement.citations.filter(passage__source__is_fiction=False)})
    html = Client().get(f"/events/{statement.event.slug}/").content.decode()
    # The shipped collection has inferred accounts of its own; this one is told by its reasoning.
    (said,) = [p for p in re.findall(r'<p class="basis inferred">(.*?)</p>', html, re.S) if "两段合看可知其地" in p]
    assert re.findall(r"§(\d+)</a>", said) == [str(seq) for seq in seqs]
    assert said.startswith("inferred from ") and " and <a" in said
    assert said.endswith('<span class="reasoning">两段合看可知其地</span>')


def test_a_reference_account_is_shown_as_such() -> None:
    statement = Statement.objects.filter(status=Status.APPROVED, field="coordinates", location__status=Status.APPROVED,
                                         location__fictional=False).order_by("slug").first()
    assert statement is not None
    Statement.objects.filter(pk=statement.pk).update(basis="reference", reference="南京市地图，1937年，第3页")
    html = Client().get(f"/places/{statement.location.slug}/").content.decode()
    assert "not in the sources; from a reference: <cite>南京市地图，1937年，第3页</cite>" in html
    assert 'class="basis inferred"' not in html
