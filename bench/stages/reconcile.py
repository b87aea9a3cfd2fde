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


def _names(seed: int) -> list[tuple[str, str]]:
    """(name, type) pairs: own names, aliases, and other-script forms, a third each."""
    from archive.models import Location, LocationAlias, Person, PersonName, Status, Unit, UnitAlias
    from archive.text.normalize import pinyin_forms

    rng = random.Random(seed)
    people = list(Person.objects.filter(status=Status.APPROVED).values_list("name", flat=True)[:20000])
    units = list(Unit.objects.filter(status=Status.APPROVED).values_list("name", flat=True)[:20000])
    places = list(Location.objects.filter(status=Status.APPROVED).values_list("name", flat=True)[:20000])
    aliases = (
        [(name, "person") for name in PersonName.objects.values_list("name", flat=True)[:20000]]
        + [(name, "unit") for name in UnitAlias.objects.values_list("name", flat=True)[:20000]]
        + [(name, "location") for name in LocationAlias.objects.values_list("name", flat=True)[:20000]]
    )
    own = [(name, "person") for name in people] + [(name, "unit") for name in units] + [
        (name, "location") for name in places]
    def pick(population: list[tuple[str, str]], count: int) -> list[tuple[str, str]]:
        # A small archive (a trial run) repeats names rather than stopping.
        return rng.sample(population, count) if len(population) >= count else rng.choices(population, k=count)

    third = NAMES // 3
    chosen = pick(own, third) + pick(aliases, third)
    for name, type_ in pick([(n, t) for n, t in own if t == "person"], NAMES - len(chosen)):
        chosen.append((pinyin_forms(name)[-1].title() if rng.random() < 0.5 else _traditional(name), type_))
    return chosen


def _traditional(name: str) -> str:
    import opencc

    return str(opencc.OpenCC("s2t.json").convert(name))


def _ours(client: object, names: list[tuple[str, str]]) -> list[bool]:
    matched = []
    for first in range(0, len(names), BATCH):
        batch = {f"q{i}": {"query": name, "type": type_, "type_strict": "should", "limit": 3}
                 for i, (name, type_) in enumerate(names[first : first + BATCH])}
        response = client.post("/reconcile/", {"queries": json.dumps(batch, ensure_ascii=False)},  # type: ignore[attr-defined]
                               HTTP_HOST="127.0.0.1")
        assert response.status_code == 200, response.content[:200]
        answer = json.loads(response.content)
        matched += [bool(answer[key]["result"]) and answer[key]["result"][0]["match"] for key in batch]
    return matched


def _icontains(names: list[tuple[str, str]]) -> list[bool]:
    from django.db.models import Q

    from archive.models import Location, Person, Unit

    tables = {"person": (Person, "names__name"), "unit": (Unit, "aliases__name"),
              "location": (Location, "aliases__name")}
    found = []
    for name, type_ in names:
        model, alias = tables[type_]
        rows = list(model.objects.filter(Q(name__icontains=name) | Q(**{f"{alias}__icontains": name}))
                    .values_list("pk", flat=True).distinct()[:3])
        found.append(bool(rows))
    return found


def reconcile_figures(run: Run) -> None:
    from django.test import Client

    names = [("reconcile: 1,000 names, queries/s", "queries/s", "higher")]
    with stage(run, "reconcile", names):
        chosen = _names(run.args.seed)
        client = Client()
        _ours(client, chosen[:BATCH])  # warm: the snapshots of the names are built once per data version
        started = time.perf_counter()
        matched = _ours(client, chosen)
        ours_seconds = time.perf_counter() - started
        started = time.perf_counter()
        found = _icontains(chosen)
        baseline_seconds = time.perf_counter() - started
        run.add(
            Figure(
                f"reconcile: {len(chosen):,} names in batches of {BATCH}, queries/s",
                len(chosen) / ours_seconds,
                "queries/s",
                "name__icontains over the record and alias tables, one lookup per name",
                len(chosen) / baseline_seconds,
                "higher",
                notes=f"ours matched {sum(matched):,} of {len(chosen):,} (match: true); icontains found a row for "
                f"{sum(found):,}; names: own, aliases, and Traditional or pinyin forms of Simplified names, a third "
                f"each; warm (snapshots built)",
            )
        )
