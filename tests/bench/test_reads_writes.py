"""The write-cost figures of `bench/stages/reads_writes.py` compare what they say they compare.

With the read machinery off, a published change bumps no freshness tag and stores no document; once
the block ends, the receivers are back and the same write bumps its record's tag again.
"""

from __future__ import annotations

import pytest

from archive.models import DocumentVersion, Person
from bench.stages.reads_writes import _quantiles, machinery
from tests.factories import approved, publish_change

pytestmark = pytest.mark.django_db

TAG = "person:bench-reads-writes"


def _version() -> int:
    return DocumentVersion.objects.versions([TAG]).get(TAG, 0)


def test_the_read_machinery_off_bumps_nothing_and_comes_back_on() -> None:
    person = approved(Person(slug="bench-reads-writes", name="唐生智"))
    before = _version()
    with machinery(on=False):
        publish_change(person, description="一")
    assert _version() == before
    publish_change(person, description="二")
    assert _version() > before
    with machinery(on=True):
        bumped = _version()
        publish_change(person, description="三")
    assert _version() > bumped


def test_quantiles_are_the_median_and_the_95th_percentile() -> None:
    values = [float(n) for n in range(1, 101)]
    assert _quantiles(values) == (50.5, 95.0)
    assert _quantiles([3.0]) == (3.0, 3.0)
