"""The snapshot of approved records across committed writes, as requests see it (outside a test's transaction).

Apart from tests/search/test_snapshot.py, whose tests share one world built inside a transaction.
"""

from __future__ import annotations

import pytest
from django.db import connection

from archive import search
from archive.models import Location, Person, Status, Unit
from archive.search import snapshot
from archive.search.records import Query
from tests.factories import approved

from .conftest import keys_of, queries_of_a_search


@pytest.mark.django_db(transaction=True)
def test_a_warm_search_of_records_reads_only_the_generation() -> None:
    # Outside a transaction, as a request runs: the generation is known and the snapshot reused.
    from django.contrib.auth.models import Group, Permission

    from archive.roles import ensure_groups

    ensure_groups(Group, Permission)  # a transactional test starts without the groups the migration made
    approved(Person(slug="tang-shengzhi", name="唐生智"))
    snapshot.clear()
    queries_of_a_search("唐生智")
    assert queries_of_a_search("唐生智") == 1
    Person.objects.filter(slug="tang-shengzhi").update(name="唐孟潇")
    assert keys_of(search.search("孟潇", types=["person"])) == [("person", "tang-shengzhi")]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the fingerprint of a kind's tables is PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_writes_to_other_tables_do_not_rebuild_a_kind() -> None:
    """Committed writes, since inside a transaction nothing is kept."""
    Person.objects.create(slug="tang-shengzhi", name="唐生智", status=Status.DRAFT)
    Location.objects.create(slug="xiaguan", name="下关", kind="district", status=Status.DRAFT)
    snapshot.clear()
    first = snapshot.snapshots(["person", "location"], every_status=True)
    Unit.objects.create(slug="army-74", name="第七十四军", echelon="army", status=Status.DRAFT)
    Location.objects.create(slug="taipingmen", name="太平门", kind="gate", status=Status.DRAFT)
    second = snapshot.snapshots(["person", "location"], every_status=True)
    assert second["person"] is first["person"]
    assert second["location"] is not first["location"]
    assert [record.slug for record, _m, _f in second["location"].matching(Query.of("太平门"))] == ["taipingmen"]
