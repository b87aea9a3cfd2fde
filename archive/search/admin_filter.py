"""The admin's search boxes: a queryset narrowed to the records whose folded names or text match.

Curators must find drafts, so unlike the public search nothing is filtered
by status here; the records of every status are looked up in the snapshot
(`snapshot.snapshots(every_status=True)`), passages in the index, citations
by quote, claim or the name of what they cite (`citations`).
"""

from __future__ import annotations

from django.db import models

from archive.models import Citation, Event, Location, Passage, Person, Source, Unit

from .citations import matching_citations
from .index import matching_entries
from .keys import normalise_query
from .query import MAX_ADMIN_QUERY_LENGTH, clean_query
from .records import KINDS, Query
from .snapshot import snapshots

_ADMIN_KINDS: dict[type[models.Model], str] = {
    Person: "person",
    Unit: "unit",
    Location: "location",
    Event: "event",
    Source: "source",
}


def matching_record_ids(model: type[models.Model], queryset: models.QuerySet, query: Query) -> list[int]:
    """The ids of the records of `model`, of any status, whose names match; callers keep those of `queryset`.

    Looked up in the snapshot of every status, not by reading `queryset`:
    a filter by `pk__in` gives the same records without a scan of the names.
    """
    kind = KINDS[_ADMIN_KINDS[model]]
    found = snapshots([kind.type], every_status=True)[kind.type].matching(query)
    return [record.pk for record, _match, _fictional in found]


def filter_queryset(queryset: models.QuerySet, query: str) -> models.QuerySet:
    """Restrict `queryset` to records whose folded names, aliases, pinyin or text match `query`.

    For the admin's search boxes: every status is kept, since curators look
    for drafts. An empty query leaves the queryset as it is.
    """
    if not normalise_query(query if isinstance(query, str) else ""):
        return queryset
    parsed = Query.of(clean_query(query, max_length=MAX_ADMIN_QUERY_LENGTH))
    model = queryset.model
    if model in _ADMIN_KINDS:
        return queryset.filter(pk__in=matching_record_ids(model, queryset, parsed))
    if model is Passage:
        return queryset.filter(pk__in=matching_entries(parsed.key).values("passage_id"))
    if model is Citation:
        return queryset.filter(pk__in=matching_citations(queryset, parsed, matching_record_ids))
    raise TypeError(f"filter_queryset does not know how to search {model.__name__}")
