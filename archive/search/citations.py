"""The admin's search of citations: by quote, by claim, or by the name of the cited record.

Each citation stores its folded quote and claim (`Citation.folded`, written
on every insert and save), so a quote or claim match is one `LIKE` in the
database instead of folding every citation in Python. Rows whose key is
NULL (written around Django, or changed by an `update()`; see
`FoldedQuoteAndClaim`) are folded here, so they are never missed; a partial
index keeps finding them cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import models
from django.db.models import Q

from archive.models.registry import cited_model

from .keys import search_key
from .records import Query

# The ids of the records of a model whose names match a query (`archive.search.admin_filter.matching_record_ids`).
RecordMatcher = Callable[[type[models.Model], models.QuerySet, Query], list[int]]

# The targets whose names the search compares (posts and participations have no name of their own).
NAMED_TARGETS = ("person", "unit", "location", "event")


def _unfolded_matches(queryset: models.QuerySet, key: str) -> list[int]:
    rows = queryset.filter(folded__isnull=True).values_list("pk", "quote", "claim")
    return [pk for pk, quote, claim in rows if key in search_key(quote) or key in search_key(claim)]


def matching_citations(queryset: models.QuerySet, query: Query, matching_ids: RecordMatcher) -> models.QuerySet:
    """The ids (a subquery) of citations whose quote or claim contains the query, or whose record's name matches it."""
    condition = Q(folded__contains=query.key)
    unfolded = _unfolded_matches(queryset, query.key)
    if unfolded:
        condition |= Q(pk__in=unfolded)
    for field in NAMED_TARGETS:
        model = cited_model(field)
        # Every record, not only the cited ones: the condition below keeps only citations of
        # `queryset`, and joining 200k citations to find the cited records took most of the time.
        ids = matching_ids(model, model._default_manager.all(), query)
        if ids:
            condition |= Q(**{f"{field}_id__in": ids})
    return queryset.filter(condition).values("pk")
