"""The admin's search of citations: by quote, by claim, or by the name of the cited record."""

from __future__ import annotations

from collections.abc import Callable

from django.db import models

from archive.models import Citation

from .keys import search_key
from .records import Query

# The ids of the records of a queryset whose names match a query (`archive.search._matching_ids`).
RecordMatcher = Callable[[type[models.Model], models.QuerySet, Query], list[int]]


def matching_citations(queryset: models.QuerySet, query: Query, matching_ids: RecordMatcher) -> list[int]:
    """Citations whose quote or claim contains the query, or whose record's name matches it."""
    targets = {}
    for field in ("person", "unit", "location", "event"):
        model = Citation._meta.get_field(field).related_model
        cited = model._default_manager.filter(citations__in=queryset).distinct()  # type: ignore[union-attr]
        targets[field] = set(matching_ids(model, cited, query))  # type: ignore[arg-type]
    ids = []
    rows = queryset.values_list("pk", "quote", "claim", "person_id", "unit_id", "location_id", "event_id")
    for pk, quote, claim, *target_ids in rows:
        if query.key in search_key(quote) or query.key in search_key(claim) or any(
            target_id in targets[field] for field, target_id in zip(targets, target_ids, strict=True)
        ):
            ids.append(pk)
    return ids
