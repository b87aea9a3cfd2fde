"""The bulk path: passages and their history in a fixed number of statements, inside the caller's transaction."""

from __future__ import annotations

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from archive.importing.bulk import insert_passages
from archive.models import Passage, Source
from archive.text.segment import sha256_text, split_passages

pytestmark = pytest.mark.django_db


def _source(slug: str, lines: int) -> tuple[Source, list]:
    text = "\n".join(f"第{n}行：撤退的命令下达。" for n in range(1, lines + 1))
    source = Source.objects.create(slug=slug, title=slug, kind="history", language="zh-Hans", text=text)
    return source, split_passages(text)


def _queries(slug: str, lines: int) -> int:
    source, segments = _source(slug, lines)
    with CaptureQueriesContext(connection) as queries:
        passages = insert_passages(source, segments, ["body"] * len(segments))
    assert [p.pk for p in passages] == list(
        Passage.objects.filter(source=source).order_by("seq").values_list("pk", flat=True)
    )
    assert all(p.sha256 == sha256_text(p.text) for p in Passage.objects.filter(source=source))
    assert Passage.history.filter(source_id=source.pk, history_type="+").count() == lines
    return len(queries)


def test_statements_do_not_grow_with_passages() -> None:
    small, large = _queries("ten", 10), _queries("two-hundred", 200)
    # Never a statement per row; SQLite caps the parameters of one INSERT, so its batches are smaller.
    assert large <= 200 / 20
    if connection.vendor == "postgresql":
        assert large == small  # two COPYs and one query for the ids, whatever the size


def test_roles_and_quotes_go_with_their_segments() -> None:
    quoted = Source.objects.create(slug="memoir", title="memoir", kind="memoir", language="zh-Hans")
    source, segments = _source("with-roles", 3)
    insert_passages(source, segments, ["body", "quotation", "boilerplate"], quotes=[None, quoted.pk, None])
    rows = list(Passage.objects.filter(source=source).order_by("seq").values_list("role", "quotes__slug"))
    assert rows == [("body", None), ("quotation", "memoir"), ("boilerplate", None)]


def test_mismatched_roles_are_refused() -> None:
    source, segments = _source("bad-roles", 3)
    with pytest.raises(ValueError, match="3 segments"):
        insert_passages(source, segments, ["body"])
    assert not Passage.objects.filter(source=source).exists()


def test_refuses_to_run_outside_a_transaction(monkeypatch: pytest.MonkeyPatch) -> None:
    source, segments = _source("no-transaction", 2)
    monkeypatch.setattr(connections["default"], "in_atomic_block", False)
    with pytest.raises(RuntimeError, match=r"transaction\.atomic"):
        insert_passages(source, segments)
    monkeypatch.undo()
    assert not Passage.objects.filter(source=source).exists()


def test_a_history_row_written_in_bulk_keeps_the_records_links_as_simple_history_does() -> None:
    """An event's places and a statement's citations are kept with each history row; a bulk row keeps them too."""
    from archive.importing.bulk import record_history
    from archive.models import Event, Location

    pier, city = (Location.objects.create(slug=slug, name=slug, kind="site") for slug in ("pier", "city"))
    event = Event.objects.create(slug="crossing", title="渡江")
    event.locations.set([pier, city])
    event.title = "渡江北上"
    Event.objects.filter(pk=event.pk).update(title=event.title)  # a change no signal saw
    record_history(Event, [event], history_type="~", reason="loaded")
    latest = Event.history.filter(id=event.pk).order_by("-history_date", "-history_id").first()
    assert latest is not None and latest.title == "渡江北上"
    links = Event.history.model.locations.model.objects.filter(history_id=latest.history_id)
    assert sorted(links.values_list("location_id", flat=True)) == sorted([pier.pk, city.pk])
