"""The stored documents equal the serializers' on the shipped collection and on a synthetic archive.

Apart from `test_stored_documents`, whose module-wide test world would collide with these archives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from archive.models import Citation, Event
from bench import synthetic
from tests.api.test_stored_documents import assert_same_documents, every_path
from tests.shipped import collection_loaded

pytestmark = pytest.mark.django_db

# Lists by default and with fiction included (`only` and `exclude` pick among the same documents);
# details in their default mode, the first 40 of each kind.
MODES: tuple[dict[str, str], ...] = ({}, {"fiction": "include"})

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "sources"


@pytest.fixture(autouse=True)
def _uncached(settings: Any) -> None:
    settings.API_CACHE_SECONDS = 0
    settings.API_STORED_DOCUMENTS = True


def test_every_document_of_the_shipped_collection_is_the_serializers() -> None:
    with collection_loaded():
        assert Event.objects.approved().count() > 10
        for path, params in every_path(MODES, details=({},), each=40):
            assert_same_documents(path, params)


def test_every_document_of_a_synthetic_archive_is_the_serializers(tmp_path: Path) -> None:
    if not list(SEEDS.glob("*.txt")):
        pytest.skip("no seed texts in fixtures/sources")
    synthetic.generate(passages=1500, seed=3, seed_dir=SEEDS)
    assert Citation.objects.exists()
    for path, params in every_path(MODES, details=({},), each=40):
        assert_same_documents(path, params)
