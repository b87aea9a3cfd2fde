"""Reconciliation: 1,000 names answered by the service against a plain `icontains` lookup of the same names.

The names are drawn from the archive as a spreadsheet would hold them: a
third the records' own names, a third their aliases (romanisations, Traditional
forms, titles), a third the names written in the other script (Traditional
for a Simplified name, or the toneless pinyin). Ours is the service itself:
batches of 50 posted to `/reconcile/` as OpenRefine posts them (through the
test client, in this process). The baseline looks each name up with
`name__icontains` (and the alias tables' `name__icontains`) over the four
record tables, the first thing a plain Django service would do; it finds
no Traditional, pinyin or Wade–Giles form of a Simplified name, which the
figure's notes count.
"""

from __future__ import annotations

import json
import random
import time

from bench.figures import Figure, Run, stage

NAMES = 1000
BATCH = 50


Name = tuple[str, str, str]  # the name, its type, the slug of the record it was drawn from


def _names(seed: int) -> list[Name]:
    """(name, type, slug): own names, aliases, and other-script forms, a third each."""
    from archive.models import Location, LocationAlias, Person, PersonName, Status, Unit, UnitAlias
    from archive.text.normalize import pinyin_forms

    rng = random.Random(seed)
    def own_of(model: type, type_: str) -> list[Name]:
        rows = model.objects.filter(status=Status.APPROVED).values_list("name", "slug")[:20000]
        return [(name, type_, slug) for name, slug in rows]

    def aliases_of(model: type, owner: str, type_: str) -> list[Name]:
        rows = model.objects.filter(**{f"{owner}__status": Status.APPROVED}).values_list("name", f"{owner}__slug")
        return [(name, type_, slug) for name, slug in rows[:20000]]

    own = own_of(Person, "person") + own_of(Unit, "unit") + own_of(Location, "location")
    aliases = (aliases_of(PersonName, "person", "person") + aliases_of(UnitAlias, "unit", "unit")
               + aliases_of(LocationAlias, "location", "location"))
    def pick(population: list[Name], count: int) -> list[Name]:
        # A small archive (a trial run) repeats names rather than stopping.
        return rng.sample(population, count) if len(population) >= count else rng.choices(population, k=count)

    third = NAMES // 3
    chosen = pick(own, third) + pick(aliases, third)
    for name, type_, slug in pick([row for row in own if row[1] == "person"], NAMES - len(chosen)):
        chosen.append((pinyin_forms(name)[-1].title() if rng.random() < 0.5 else _traditional(name), type_, slug))
    return chosen


def _traditional(name: str) -> str:
    import opencc

    return str(opencc.OpenCC("s2t.json").convert(name))


def _ours(client: object, names: list[Name]) -> list[tuple[bool, list[str]]]:
    """For each name: whether the first candidate is a match, and the slugs of the first three."""
    answers = []
    for first in range(0, len(names), BATCH):
        batch = {f"q{i}": {"query": name, "type": type_, "type_strict": "should", "limit": 3}
                 for i, (name, type_, _slug) in enumerate(names[first : first + BATCH])}
        response = client.post("/reconcile/", {"queries": json.dumps(batch, ensure_ascii=False)},  # type: ignore[attr-defined]
                               HTTP_HOST="127.0.0.1")
        assert response.status_code == 200, response.content[:200]
        answer = json.loads(response.content)
        for key in batch:
            results = answer[key]["result"]
            answers.append((bool(results) and results[0]["match"],
                            [result["id"].split(":", 1)[1] for result in results]))
    return answers


def _icontains(names: list[Name]) -> list[list[str]]:
    """For each name, the slugs of the first three records whose name or alias contains it."""
    from django.db.models import Q

    from archive.models import Location, Person, Unit

    tables = {"person": (Person, "names__name"), "unit": (Unit, "aliases__name"),
              "location": (Location, "aliases__name")}
    found = []
    for name, type_, _slug in names:
        model, alias = tables[type_]
        rows = model.objects.filter(Q(name__icontains=name) | Q(**{f"{alias}__icontains": name}))
        found.append(list(rows.values_list("slug", flat=True).distinct()[:3]))
    return found


def reconcile_figures(run: Run) -> None:
    from django.test import Client

    names = [("reconcile: 1,000 names, queries/s", "queries/s", "higher")]
    with stage(run, "reconcile", names):
        chosen = _names(run.args.seed)
        client = Client()
        _ours(client, chosen[:BATCH])  # warm: the snapshots of the names are built once per data version
        started = time.perf_counter()
        answers = _ours(client, chosen)
        ours_seconds = time.perf_counter() - started
        started = time.perf_counter()
        found = _icontains(chosen)
        baseline_seconds = time.perf_counter() - started
        origin = [slug for _name, _type, slug in chosen]
        matched = sum(1 for match, _slugs in answers if match)
        pairs = list(zip(answers, origin, strict=True))
        matched_right = sum(1 for (match, slugs), slug in pairs if match and slugs[0] == slug)
        ours_top = sum(1 for (_match, slugs), slug in pairs if slug in slugs)
        theirs_top = sum(1 for slugs, slug in zip(found, origin, strict=True) if slug in slugs)
        run.add(
            Figure(
                f"reconcile: {len(chosen):,} names in batches of {BATCH}, queries/s",
                len(chosen) / ours_seconds,
                "queries/s",
                "name__icontains over the record and alias tables, one lookup per name",
                len(chosen) / baseline_seconds,
                "higher",
                notes=f"the record a name was drawn from is among the first 3 candidates for {ours_top:,} of "
                f"{len(chosen):,} names (icontains: {theirs_top:,}); match: true for {matched:,}, of which "
                f"{matched_right:,} name that record (the synthetic archive repeats names, and a name several "
                f"records share is never matched); names: own, aliases, and Traditional or pinyin forms of "
                f"Simplified names, a third each; warm (the name snapshots built)",
            )
        )
