"""Whether a statement's cited quotes say its value: the rules of `archive.text.support`, on the records.

`support_problems(statement)` gathers what the rules need (the cited quotes,
the place's names and aliases, the person's or unit's names, the date's
words and bounds) and returns what is missing; an empty list means the
account is supported. A stated account must be said by one of its quotes;
an inferred one needs its premises (cited passages) and, for a role or a
post, its holder named; a reference account names its work and needs no
quote. `statement_create` refuses a stated account with problems, and the
audit reports them over every published account.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from archive import dating
from archive.models import Citation, Location, Participation, Person, Post, Statement, Unit
from archive.models.statements import Basis, StatementField
from archive.text import support
from archive.text.support import Gap

__all__ = ["SupportProblem", "bounds_problem", "names_of", "support_problems"]


@dataclass(frozen=True)
class SupportProblem:
    """One way a statement's quotes fall short: the citation (None when none is cited), what is missing, why."""

    citation: Citation | None
    quote: str
    missing: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        missing = f" (missing: {', '.join(self.missing)})" if self.missing else ""
        where = f"«{self.quote}»: " if self.quote else ""
        return f"{where}{self.message}{missing}"


def _person_names(person: Person) -> list[str]:
    return [person.name, *person.names.values_list("name", flat=True)]


def _unit_names(unit: Unit) -> list[str]:
    return [unit.name, *unit.aliases.values_list("name", flat=True)]


def names_of(record: Participation | Post | Location) -> list[str]:
    """The names a quote may use for the place, or for the person or unit of a participation or post."""
    if isinstance(record, Location):
        return [record.name, *record.aliases.values_list("name", flat=True)]
    if record.person_id is not None:
        return _person_names(record.person)  # type: ignore[arg-type]  # checked just above
    if isinstance(record, Participation) and record.unit_id is not None:
        return _unit_names(record.unit)  # type: ignore[arg-type]  # checked just above
    return []


def _value_day(statement: Statement) -> dt.date | None:
    try:
        low, _ = dating.bounds(statement.value)
    except dating.BadDate:
        return None
    return low.astimezone(dating.NANJING).date() if low is not None else None


def _bounds(statement: Statement) -> tuple[dt.datetime | None, dt.datetime | None]:
    earliest, latest = statement.earliest, statement.latest
    if earliest is None or latest is None:
        return None, None
    return earliest.astimezone(dating.NANJING), latest.astimezone(dating.NANJING)


def _gaps(statement: Statement, quotes: Sequence[str]) -> list[Gap]:
    field = statement.field
    inferred = statement.basis == Basis.INFERRED
    if field == StatementField.LOCATION:
        place = Location.objects.filter(slug=statement.value).first()
        if inferred:
            return []
        return support.place_gaps(quotes, names_of(place) if place else [statement.value])
    if field == StatementField.ROLE:
        return support.role_gaps(quotes, names_of(statement.participation), statement.value,  # type: ignore[arg-type]
                                 inferred=inferred)
    if field == StatementField.TITLE:
        return support.title_gaps(quotes, names_of(statement.post), statement.value,  # type: ignore[arg-type]
                                  inferred=inferred)
    if inferred:
        return []
    if field == StatementField.COORDINATES:
        return [Gap("", (), "no text of the collection gives coordinates: they are a reference account")]
    if field == StatementField.DATE:
        earliest, latest = _bounds(statement)
        return support.date_gaps(quotes, statement.as_written, value_day=_value_day(statement),
                                 earliest=earliest, latest=latest)
    if not quotes:
        return [Gap("", (), "no quote is cited for this date")]
    return support.words_gaps(quotes, statement.as_written)


def support_problems(statement: Statement, citations: Sequence[Citation] | None = None) -> list[SupportProblem]:
    """What the statement's citations (or `citations`, before they are saved) fail to say; empty: supported."""
    if statement.basis == Basis.REFERENCE:
        if statement.reference.strip():
            return []
        return [SupportProblem(None, "", (), "a reference account names the work that gives its value")]
    cited = list(citations) if citations is not None else list(statement.citations.all())
    if statement.basis == Basis.INFERRED:
        if not cited:
            return [SupportProblem(None, "", (), "an inferred account cites the passages it is inferred from")]
        if not statement.reasoning.strip():
            return [SupportProblem(None, "", (), "an inferred account says how its value follows (reasoning)")]
    by_quote = {citation.quote: citation for citation in cited}
    return [
        SupportProblem(by_quote.get(gap.quote), gap.quote, gap.missing, gap.message)
        for gap in _gaps(statement, [citation.quote for citation in cited])
    ]


def bounds_problem(statement: Statement) -> SupportProblem | None:
    """An event date whose bounds share no moment with the time its own words give."""
    if statement.field != StatementField.DATE or not statement.as_written:
        return None
    earliest, latest = _bounds(statement)
    gap = support.bounds_contradiction(statement.as_written, _value_day(statement), earliest, latest)
    return SupportProblem(None, gap.quote, gap.missing, gap.message) if gap else None
