"""The passages of a source that the reader shows, narrowed by what the curator asks for.

Every choice lives in the URL (`ReaderFilters.from_query`), so a view of the
reader can be shared. Filters on citations (whose, which status, what kind of
record, fictional or not) keep the passages with at least one such citation
and, beside the text, only those citations; `cited=no` keeps the passages no
citation rests on yet (rejected ones do not count); `q` searches the text
after folding, as the admin's search box does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import QueryDict
from django.utils.translation import gettext as _

from archive.models import TARGET_FIELDS, Citation, Passage, Source, Status
from archive.search.index import matching_entries
from archive.search.keys import normalise_query
from archive.search.query import MAX_ADMIN_QUERY_LENGTH, QueryError, clean_query
from archive.search.records import Query
from archive.text.numbers import whole_number

CITED_CHOICES = ("yes", "no")
FICTION_CHOICES = ("yes", "no")
PAGE_SIZES = (10, 20, 50, 100)
DEFAULT_PAGE_SIZE = 20


@dataclass
class ReaderFilters:
    cited: str = ""
    mine: bool = False
    status: str = ""
    kind: str = ""
    fiction: str = ""
    q: str = ""
    page_size: int = DEFAULT_PAGE_SIZE
    errors: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: QueryDict) -> ReaderFilters:
        """The filters of a request; a value it does not know is named in `errors` and left out."""
        found = cls()
        choices: dict[str, tuple[str, ...]] = {
            "cited": CITED_CHOICES,
            "status": tuple(Status.values),
            "kind": TARGET_FIELDS,
            "fiction": FICTION_CHOICES,
        }
        for name, allowed in choices.items():
            value = query.get(name, "")
            if value in allowed:
                setattr(found, name, value)
            elif value:
                found.errors.append(_("Unknown value “%(value)s” of “%(name)s”.") % {"value": value, "name": name})
        found.mine = query.get("mine") == "1"
        try:
            found.q = clean_query(query.get("q", ""), max_length=MAX_ADMIN_QUERY_LENGTH) if query.get("q") else ""
        except QueryError as exc:
            found.errors.append(str(exc))
        size = query.get("page_size", "")
        number = whole_number(size)
        if number in PAGE_SIZES:
            found.page_size = number
        elif size:
            found.errors.append(_("“page_size” must be one of %(sizes)s.") % {"sizes": ", ".join(map(str, PAGE_SIZES))})
        return found

    @property
    def on_citations(self) -> bool:
        """Whether a filter picks citations (and the passages that have one)."""
        return bool(self.mine or self.status or self.kind or self.fiction)

    @property
    def active(self) -> bool:
        return bool(self.on_citations or self.cited or self.q)

    def as_query(self, **changes: Any) -> str:
        """These filters as a query string, with `changes` applied (the links of the reader)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "errors"}
        values.update(changes)
        parts = QueryDict(mutable=True)
        for name, value in values.items():
            if name == "mine":
                if value:
                    parts["mine"] = "1"
            elif name == "page_size":
                if value != DEFAULT_PAGE_SIZE:
                    parts[name] = str(value)
            elif value:
                parts[name] = str(value)
        return parts.urlencode()

    def citation_q(self, user: Any) -> Q:
        """The citations these filters keep."""
        q = Q()
        if self.mine:
            q &= Q(created_by=user)
        if self.status:
            q &= Q(status=self.status)
        if self.kind:
            q &= Q(**{f"{self.kind}__isnull": False})
        if self.fiction:
            fictional = Q()
            for name in TARGET_FIELDS:
                fictional |= Q(**{f"{name}__fictional": True})
            q &= fictional if self.fiction == "yes" else ~fictional
        return q


def reader_passages(source: Source, filters: ReaderFilters, user: Any) -> QuerySet[Passage]:
    """The source's passages in order, narrowed by `filters`."""
    passages = source.passages.order_by("seq")
    if filters.cited:
        live = Citation.objects.filter(passage=OuterRef("pk")).exclude(status=Status.REJECTED)
        passages = passages.filter(Exists(live)) if filters.cited == "yes" else passages.exclude(Exists(live))
    if filters.on_citations:
        chosen = Citation.objects.filter(filters.citation_q(user), passage=OuterRef("pk"))
        passages = passages.filter(Exists(chosen))
    if filters.q and normalise_query(filters.q):
        key = Query.of(filters.q).key
        passages = passages.filter(pk__in=matching_entries(key).filter(source=source).values("passage_id"))
    return passages
