"""Records published as a fixture publishes them: the audit must find what review would not let through.

Review refuses to approve a record without evidence, so a planted case
(a published record with no citation) is made the way a fixture load makes it:
saved as a draft, then its status set directly.
"""

from __future__ import annotations

import itertools
from typing import Any

from django.db import models

from archive.models import Event, Location, Participation, Person, Post, Status, Unit
from tests.factories import in_status

_counter = itertools.count(1)


def published(record: models.Model, status: str = Status.APPROVED) -> Any:
    in_status(record, Status.DRAFT)
    if status != Status.DRAFT:
        type(record).objects.filter(pk=record.pk).update(status=status)
        record.refresh_from_db()
    return record


def person(status: str = Status.APPROVED, **fields: Any) -> Person:
    n = next(_counter)
    return published(Person(**{"slug": f"person-{n}", "name": f"人物{n}", "side": "chinese", **fields}), status)


def unit(**fields: Any) -> Unit:
    n = next(_counter)
    return published(Unit(**{"slug": f"unit-{n}", "name": f"第{n}师", "echelon": "division", **fields}))


def location(**fields: Any) -> Location:
    n = next(_counter)
    return published(Location(**{"slug": f"place-{n}", "name": f"地点{n}", "kind": "gate", **fields}))


def event(**fields: Any) -> Event:
    n = next(_counter)
    fields = {"slug": f"event-{n}", "title": f"事件{n}", "kind": "retreat", "date": "1937-12-12", **fields}
    return published(Event(**fields))


def post(**fields: Any) -> Post:
    n = next(_counter)
    fields = {"slug": f"post-{n}", "title": "军长", **fields}
    fields.setdefault("person", person())
    fields.setdefault("unit", unit())
    return published(Post(**fields))


def participation(**fields: Any) -> Participation:
    n = next(_counter)
    fields = {"slug": f"part-{n}", "role": "commander", **fields}
    fields.setdefault("event", event())
    if "unit" not in fields:
        fields.setdefault("person", person())
    return published(Participation(**fields))
