"""Which value of a field a reader sees, and the writes that keep statements honest.

A field may hold several statements (`archive.models.statements`). What a
record shows is chosen here, once, for the API, the admin and the build of
the fixtures alike:

* an account is **fictional** when it has approved citations and all of them
  come from fiction; an account nobody cites is the curator's and is not;
* `fiction=exclude` drops fictional accounts before choosing, so a historical
  event whose only dated account is a novel's has no date in the default view;
* the best rank wins (preferred, then normal; deprecated never), except
  that what a source states always comes before what the archive infers: an
  inferred account is never preferred over a stated one of the same field
  (`preference`); for a single-valued field the first of the best is the
  value, for a multi-valued field (an event's places) every live account is.

The record's own columns (`Event.date`, `earliest`, `latest`, `locations`,
`Participation.role` …) hold the value of its own nature: the historical
choice for a historical record, the fiction's for a fictional one, so that
lists filter and sort without reading statements. `statement_apply` writes them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from archive.models import Citation, Event, Location, Participation, Person, Post, Statement, Status
from archive.models.statements import (
    FIELDS_OF,
    MULTI_VALUED,
    Basis,
    StatementField,
    parse_coordinates,
    preference,
)
from archive.services.support import support_problems


@dataclass
class Account:
    """One statement as a reader sees it in one fiction mode."""

    statement: Statement
    fictional: bool
    citations: list[Citation] = field(default_factory=list)

    @property
    def rank(self) -> str:
        return self.statement.rank

    @property
    def value(self) -> str:
        return self.statement.value

    @property
    def basis(self) -> str:
        return self.statement.basis

    @property
    def premises(self) -> list[Citation]:
        """Of an inferred account: the passages it is inferred from, once each, in the source's order."""
        seen: dict[int, Citation] = {}
        for citation in sorted(self.citations, key=lambda c: (c.passage.source_id, c.passage.seq)):
            seen.setdefault(citation.passage_id, citation)
        return list(seen.values())


def _approved_citations(statement: Statement) -> list[Citation]:
    """Approved citations on approved sources; the selectors prefetch them as `visible_citations`."""
    cited = getattr(statement, "visible_citations", None)
    if cited is None:
        cited = list(
            statement.citations.filter(status=Status.APPROVED, passage__source__status=Status.APPROVED)
            .select_related("passage__source")
        )
    return cited


def account_of(statement: Statement, *, exclude_fiction: bool) -> Account | None:
    """The statement as an account, or None when the mode hides it."""
    cited = _approved_citations(statement)
    fictional = bool(cited) and all(c.passage.source.is_fiction for c in cited)
    if exclude_fiction and fictional:
        return None
    shown = [c for c in cited if not c.passage.source.is_fiction] if exclude_fiction else cited
    return Account(statement=statement, fictional=fictional, citations=shown)


def accounts_by_field(statements: Iterable[Statement], *, exclude_fiction: bool) -> dict[str, list[Account]]:
    """Approved statements as visible accounts, by field, best rank first; fields with none visible map to []."""
    found: dict[str, list[Account]] = {}
    for statement in statements:
        if statement.status != Status.APPROVED:
            continue
        entries = found.setdefault(statement.field, [])
        account = account_of(statement, exclude_fiction=exclude_fiction)
        if account is not None:
            entries.append(account)
    for entries in found.values():
        entries.sort(key=lambda a: preference(a.statement))
    return found


def chosen(accounts: Sequence[Account], field_name: str) -> list[Account]:
    """The accounts a record shows: every live one of a multi-valued field, else the first of the best rank."""
    live = [a for a in accounts if a.rank != "deprecated"]
    if field_name in MULTI_VALUED or not live:
        return live
    return live[:1]


def conflicts(accounts: Sequence[Account]) -> bool:
    """Different values of one single-valued field with no preferred one among them."""
    live = [a for a in accounts if a.rank != "deprecated"]
    values = {a.value for a in live}
    return len(values) > 1 and not any(a.rank == "preferred" for a in live)


# --- the record's own columns -------------------------------------------------------


def own_choice(record: models.Model, statements: Iterable[Statement]) -> dict[str, list[Account]]:
    """What the record's columns hold: the historical choice, or the fiction's for a fictional record."""
    grouped = accounts_by_field(statements, exclude_fiction=not getattr(record, "fictional", False))
    return {name: chosen(entries, name) for name, entries in grouped.items()}


def _columns(record: models.Model, choice: dict[str, list[Account]]) -> dict[str, Any]:
    """The column values `choice` gives `record`; fields without statements are left alone."""
    values: dict[str, Any] = {}
    first = {name: (entries[0].statement if entries else None) for name, entries in choice.items()}
    if isinstance(record, Event) and StatementField.DATE in first:
        best = first[StatementField.DATE]
        values.update(
            date=best.value if best else "",
            date_text=best.as_written if best else "",
            earliest=best.earliest if best else None,
            latest=best.latest if best else None,
        )
    if isinstance(record, Participation) and first.get(StatementField.ROLE):
        values["role"] = first[StatementField.ROLE].value  # type: ignore[union-attr]  # checked for None just before
    if isinstance(record, Post):
        if first.get(StatementField.TITLE):
            values["title"] = first[StatementField.TITLE].value  # type: ignore[union-attr]  # checked for None just before
        for name in (StatementField.DATE_FROM, StatementField.DATE_TO):
            if name in first:
                values[str(name)] = first[name].value if first[name] else ""  # type: ignore[union-attr]  # checked for None in the same expression
    if isinstance(record, Person):
        for name in (StatementField.BIRTH, StatementField.DEATH):
            if name in first:
                values[str(name)] = first[name].value if first[name] else ""  # type: ignore[union-attr]  # checked for None in the same expression
    if isinstance(record, Location) and StatementField.COORDINATES in first:
        best = first[StatementField.COORDINATES]
        latitude, longitude = parse_coordinates(best.value) if best else (None, None)
        values.update(latitude=latitude, longitude=longitude)
    return values


@transaction.atomic
def statement_apply(*, record: models.Model) -> dict[str, Any]:
    """Write the record's columns (and an event's places) from its approved statements; returns what changed."""
    statements = list(
        Statement.objects.filter(**{record._meta.model_name: record, "status": Status.APPROVED})
        .prefetch_related("citations__passage__source")
    )
    choice = own_choice(record, statements)
    changed = {name: value for name, value in _columns(record, choice).items() if getattr(record, name) != value}
    if changed:
        type(record)._default_manager.filter(pk=record.pk).update(**changed)
        for name, value in changed.items():
            setattr(record, name, value)
    if isinstance(record, Event) and StatementField.LOCATION in choice:
        slugs = {a.value for a in choice[StatementField.LOCATION]}
        places = list(Location.objects.filter(slug__in=slugs))
        if {p.pk for p in places} != set(record.locations.values_list("pk", flat=True)):
            record.locations.set(places)
            changed["locations"] = sorted(slugs)
    return changed


# --- writes ----------------------------------------------------------------------------


def _target_kwargs(target: models.Model) -> dict[str, models.Model]:
    name = target._meta.model_name
    if name not in FIELDS_OF:
        raise ValidationError(_("A %(kind)s states no fields.") % {"kind": name})
    return {name: target}


def check_support(*, statement: Statement, citations: Sequence[Citation]) -> None:
    """A stated account is said by one of its cited quotes; an inferred one cites its premises.

    The message names each quote that falls short and the words it lacks
    (`archive.services.support`).
    """
    problems = support_problems(statement, citations)
    if problems:
        raise ValidationError(
            {"citations": [_("The cited quotes do not state this value: %(problem)s.") % {"problem": str(problem)}
                           for problem in problems]}
        )


def check_citations(*, statement: Statement, citations: Iterable[Citation]) -> None:
    """A statement rests only on citations of its own record."""
    name = statement.target_field
    wrong = [c for c in citations if name is None or getattr(c, f"{name}_id") != getattr(statement, f"{name}_id")]
    if wrong:
        raise ValidationError(
            {"citations": _("These citations are evidence for another record: %(slugs)s.")
             % {"slugs": ", ".join(c.slug for c in wrong)}}
        )


def check_basis(*, statement: Statement, citations: Sequence[Citation]) -> None:
    """An inference rests on cited premises and is never preferred over what a source states."""
    if statement.basis == Basis.INFERRED and not citations:
        raise ValidationError({"citations": _("An inferred account cites the passages it is inferred from.")})
    if statement.basis != Basis.INFERRED or statement.rank != "preferred" or statement.field in MULTI_VALUED:
        return
    name = statement.target_field
    stated = Statement.objects.filter(**{f"{name}_id": getattr(statement, f"{name}_id")}, field=statement.field)
    stated = stated.exclude(basis=Basis.INFERRED).exclude(rank="deprecated").exclude(status=Status.REJECTED)
    if statement.pk is not None:
        stated = stated.exclude(pk=statement.pk)
    if first := stated.first():
        raise ValidationError(
            {"rank": _("An inferred account is not preferred over the stated “%(value)s” (%(slug)s) of the same "
                       "field; rank it normal.") % {"value": first.value, "slug": first.slug}}
        )


@transaction.atomic
def statement_create(
    *,
    target: models.Model,
    field_name: str,
    value: str,
    citations: Sequence[Citation] = (),
    rank: str = "normal",
    as_written: str = "",
    earliest: dt.datetime | None = None,
    latest: dt.datetime | None = None,
    note: str = "",
    basis: str = Basis.STATED,
    reasoning: str = "",
    reference: str = "",
    slug: str = "",
    by: Any = None,
) -> Statement:
    """A new draft statement of `target`, checked, resting on `citations` (all of `target`) that say its value.

    An inferred account cites its premises and says how the value follows; a
    reference account names the work that gives it.
    """
    statement = Statement(
        **_target_kwargs(target),
        field=field_name,
        value=value,
        rank=rank,
        as_written=as_written,
        earliest=earliest,
        latest=latest,
        note=note,
        basis=basis,
        reasoning=reasoning,
        reference=reference,
        created_by=by,
        modified_by=by,
    )
    statement.slug = slug or _free_slug(statement)
    statement.full_clean()
    check_citations(statement=statement, citations=citations)
    check_basis(statement=statement, citations=citations)
    check_support(statement=statement, citations=list(citations))
    statement.save()
    statement.citations.set(citations)
    return statement


def _free_slug(statement: Statement) -> str:
    target = statement.target
    base = f"{target.slug}--{statement.field.replace('_', '-')}"  # type: ignore[union-attr]  # a statement always has a target
    taken = set(Statement.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    number = 1
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"
