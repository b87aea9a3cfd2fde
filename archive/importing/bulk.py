"""Write many passages, and their history, in a few statements.

A source of a million passages must not be saved row by row (2.3k rows/s
with `objects.create`): PostgreSQL takes them through COPY (about 50k rows/s
with psycopg 3), other databases through batched `bulk_create`. Either way
simple-history sees nothing of a bulk write, so the historical rows are
written in bulk too, in the same transaction, which the caller owns.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connections, models, router
from django.utils import timezone

from archive.models import DocumentVersion, Passage, PassageRole, Source
from archive.text.segment import Segment, sha256_text

__all__ = ["BATCH_SIZE", "insert_passages", "record_history"]

BATCH_SIZE = 2000


def _history_model(model: type[models.Model]) -> type[models.Model]:
    return model.history.model  # type: ignore[attr-defined]  # simple-history adds it and ships no types


def _historical_rows(
    model: type[models.Model],
    objs: Iterable[models.Model],
    *,
    history_type: str,
    reason: str,
    when: dt.datetime,
    user: Any = None,
) -> list[models.Model]:
    """The historical records simple-history would write, built in memory."""
    history_model = _history_model(model)
    tracked = history_model.tracked_fields  # type: ignore[attr-defined]  # simple-history adds it and ships no types
    return [
        history_model(
            history_date=when,
            history_user=user,
            history_change_reason=reason,
            history_type=history_type,
            **{field.attname: getattr(obj, field.attname) for field in tracked},
        )
        for obj in objs
    ]


def _copy(using: str, model: type[models.Model], objs: Sequence[models.Model]) -> None:
    """COPY ``objs`` into ``model``'s table; the auto primary key and generated columns are left to the database."""
    connection = connections[using]
    fields = [
        f
        for f in model._meta.concrete_fields
        if not (f.primary_key and isinstance(f, models.AutoField)) and not getattr(f, "generated", False)
    ]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    sql = f"COPY {quote(model._meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.copy(sql) as copy:
        for obj in objs:
            copy.write_row([f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields])


def record_history(
    model: type[models.Model],
    objs: Sequence[models.Model],
    *,
    history_type: str,
    reason: str,
    using: str | None = None,
    when: dt.datetime | None = None,
    user: Any = None,
) -> int:
    """Write one historical record per object in bulk ('+' created, '~' changed, '-' deleted), by `user`."""
    if not objs:
        return 0
    using = using or router.db_for_write(model)
    rows = _historical_rows(
        model, objs, history_type=history_type, reason=reason, when=when or timezone.now(), user=user
    )
    history_model = _history_model(model)
    if connections[using].vendor == "postgresql":
        _copy(using, history_model, rows)
    else:
        history_model._default_manager.using(using).bulk_create(rows, batch_size=BATCH_SIZE)
    _record_links(model, rows, using)
    return len(rows)


def _record_links(model: type[models.Model], rows: Sequence[models.Model], using: str) -> None:
    """Each history row's snapshot of the record's kept links (an event's places, a statement's citations).

    simple-history writes them beside each row it writes itself; a row written
    here without them would read as a record that linked nothing then.
    """
    history_model = _history_model(model)
    fields = history_model._history_m2m_fields  # type: ignore[attr-defined]  # simple-history adds it
    if not fields or not rows:
        return
    when = rows[0].history_date  # type: ignore[attr-defined]  # one moment for the whole call
    ids = [row.id for row in rows]  # type: ignore[attr-defined]  # the record's id, kept in its history row
    kept = history_model._default_manager.using(using).filter(history_date=when)
    written = {pk: history_id for start in range(0, len(ids), 1000)
               for pk, history_id in kept.filter(id__in=ids[start:start + 1000]).values_list("id", "history_id")}
    for field in fields:
        through = field.remote_field.through
        own = next(f for f in through._meta.concrete_fields if f.is_relation and f.related_model is model)
        snapshot = getattr(history_model, field.name).model
        linked = list(written)
        for start in range(0, len(linked), 1000):
            links = through._default_manager.using(using).filter(**{f"{own.attname}__in": linked[start:start + 1000]})
            snapshot._default_manager.using(using).bulk_create([
                snapshot(history_id=written[getattr(link, own.attname)],
                         **{f.attname: getattr(link, f.attname) for f in through._meta.concrete_fields})
                for link in links
            ], batch_size=BATCH_SIZE)


def insert_passages(
    source: Source,
    segments: Sequence[Segment],
    roles: Sequence[str] | None = None,
    *,
    quotes: Sequence[int | None] | None = None,
    reason: str = "imported",
) -> list[Passage]:
    """Insert ``segments`` as passages of ``source`` and record their history.

    Runs inside the caller's transaction (and refuses to run outside one, so
    that a failure never leaves half a source behind). ``roles`` and
    ``quotes`` (ids of quoted sources) go with the segments, one each.
    Returns the passages with their ids.
    """
    using = router.db_for_write(Passage)
    connection = connections[using]
    if not connection.in_atomic_block:
        raise RuntimeError("insert_passages() writes many rows and must run inside transaction.atomic().")
    roles = list(roles) if roles is not None else [PassageRole.BODY] * len(segments)
    quoted = list(quotes) if quotes is not None else [None] * len(segments)
    if not len(roles) == len(quoted) == len(segments):
        raise ValueError(f"{len(segments)} segments need as many roles and quotes, got {len(roles)} and {len(quoted)}")
    passages = [
        Passage(
            source=source,
            seq=seg.seq,
            text=seg.text,
            start=seg.start,
            end=seg.end,
            sha256=sha256_text(seg.text),
            role=role,
            quotes_id=quotes_id,
        )
        for seg, role, quotes_id in zip(segments, roles, quoted, strict=True)
    ]
    if not passages:
        return []
    if connection.vendor == "postgresql":
        _copy(using, Passage, passages)
        ids: dict[int, Any] = dict(
            Passage.objects.using(using)
            .filter(source=source, seq__gte=min(p.seq for p in passages), seq__lte=max(p.seq for p in passages))
            .values_list("seq", "id")
        )
        for passage in passages:
            passage.pk = ids[passage.seq]
    else:
        Passage.objects.using(using).bulk_create(passages, batch_size=BATCH_SIZE)
    record_history(Passage, passages, history_type="+", reason=reason, using=using)
    DocumentVersion.objects.bump_everything(using=using)  # COPY and bulk_create send no signal
    return passages
