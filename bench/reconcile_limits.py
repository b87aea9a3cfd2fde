"""What one reconciliation request costs at each limit the service documents.

The reconciliation service (`archive/reconcile/`) bounds the whole work of a
request: queries per batch, characters per query, values per property,
candidates × property values per batch (`MAX_COMPARISONS`), ids per data
extension and per draft query. This script loads the shipped collection into a
throwaway SQLite file and posts, through the test client, one request at each
of those limits, as OpenRefine would: its p50 and worst time over a few
rounds, beside the baseline of one plain name query measured in the same run.
Every request at a limit must answer 200 within one second (docs/security.md);
one past it must be refused with a 413.

Usage:
    .venv/bin/python bench/reconcile_limits.py [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- reconcile-limits -->`` and ``<!-- /reconcile-limits -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- reconcile-limits -->", "<!-- /reconcile-limits -->"
ROUNDS = 3
CEILING_MS = 1000.0

Request = tuple[str, str, dict[str, Any] | None, str | None]  # name, path, form, JSON body


def _setup(work: Path) -> None:
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "DEBUG": "1",
            "SECRET_KEY": "bench-reconcile-limits",
            "RECONCILE_RATE": "100000/minute",
            "CACHE_DIR": str(work / "cache"),
            "ENV_FILE": "",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_collection", verbosity=0)


def _form(name: str, param: str, document: Any) -> Request:
    return (name, "/reconcile/", {param: json.dumps(document, ensure_ascii=False)}, None)


def _requests() -> tuple[Request, list[Request], list[Request]]:
    """The baseline, the requests at each limit and one request just past each."""
    from archive.reconcile.batch import MAX_BATCH, MAX_COMPARISONS, MAX_VALUES
    from archive.reconcile.extend import MAX_IDS
    from archive.reconcile.types import PROPERTIES, TYPES
    from archive.search import MAX_QUERY_LENGTH
    from archive.search import candidates as names

    records = {type_id: list(names.records_by_pk(type_id).values()) for type_id in TYPES}
    people = records["person"]
    units = [record.title for record in records["unit"]]
    ids = [f"{type_id}:{record.slug}" for type_id in TYPES for record in records[type_id]]
    ids = (ids + [f"person:missing-{n}" for n in range(MAX_IDS)])[:MAX_IDS]
    # The name that finds the most candidates: the costliest query with properties.
    counts = {record.title[:1]: len(names.find(record.title[:1], ("person",), "include")) for record in people}
    common = max(counts, key=lambda title: counts[title])
    found = counts[common]
    unit_values = (units * MAX_VALUES)[:MAX_VALUES]
    budget_queries = min(MAX_BATCH, MAX_COMPARISONS // (found * MAX_VALUES))
    # Names that find one candidate each: a whole batch of them, each with a property's every value.
    single = [record.title for record in people if len(names.find(record.title, ("person",), "include")) == 1]
    per_query = min(MAX_VALUES, MAX_COMPARISONS // MAX_BATCH)
    long_name = (people[0].title * MAX_QUERY_LENGTH)[:MAX_QUERY_LENGTH]
    extended = sorted({prop.id for props in PROPERTIES.values() for prop in props if prop.extended})

    def with_values(count: int) -> dict[str, Any]:
        return {f"q{n}": {"query": common, "type": "person", "limit": 100,
                          "properties": [{"pid": "unit", "v": unit_values}]} for n in range(count)}

    baseline = _form("one name, no property (baseline)", "queries", {"q0": {"query": people[0].title}})
    at_limits = [
        _form(f"{MAX_BATCH} queries of {MAX_QUERY_LENGTH} characters, every type", "queries",
              {f"q{n}": {"query": long_name, "limit": 100} for n in range(MAX_BATCH)}),
        _form(f"{MAX_BATCH} names of one candidate, each with {per_query} values of a property", "queries",
              {f"q{n}": {"query": single[n % len(single)], "type": "person",
                         "properties": [{"pid": "unit", "v": unit_values[:per_query]}]} for n in range(MAX_BATCH)}),
        _form(f"{budget_queries} × {common!r} ({found} candidates) × {MAX_VALUES} values "
              f"= {budget_queries * found * MAX_VALUES:,} comparisons (limit {MAX_COMPARISONS:,})",
              "queries", with_values(budget_queries)),
        _form(f"extend: {MAX_IDS} ids × all {len(extended)} properties", "extend",
              {"ids": ids, "properties": [{"id": pid} for pid in extended]}),
        ("1.0 match: " f"{MAX_BATCH} queries, each a name, {MAX_IDS} id conditions in all", "/reconcile/1.0/match",
         None, json.dumps({"queries": [{"conditions": [{"matchType": "name", "propertyValue": people[0].title}]
                                        + ([{"matchType": "id", "propertyValue": ids[n]}] if n < MAX_IDS else [])}
                                       for n in range(MAX_BATCH)]})),
        ("suggest: a prefix of " f"{MAX_QUERY_LENGTH} characters", "/reconcile/suggest/entity/",
         {"prefix": long_name}, None),
    ]
    past = [
        _form(f"{MAX_BATCH + 1} queries", "queries", {f"q{n}": {"query": "唐"} for n in range(MAX_BATCH + 1)}),
        _form(f"{MAX_VALUES + 1} values of a property", "queries",
              {"q0": {"query": common, "properties": [{"pid": "unit", "v": [*unit_values, "x"]}]}}),
        _form("comparisons past the limit", "queries", with_values(budget_queries + 1)),
        _form(f"extend: {MAX_IDS + 1} ids", "extend",
              {"ids": [*ids, "person:one-more"], "properties": [{"id": "side"}]}),
        ("1.0 match: " f"{MAX_IDS + 1} id conditions", "/reconcile/1.0/match", None,
         json.dumps({"queries": [{"conditions": [{"matchType": "id", "propertyValue": f"person:p{n}"}]}
                                 for n in range(MAX_IDS + 1)]})),
    ]
    return baseline, at_limits, past


def _post(client: Any, request: Request) -> Any:
    _name, path, form, body = request
    if body is not None:
        return client.post(path, body, content_type="application/json")
    if path == "/reconcile/":
        return client.post(path, form)
    return client.get(path, form)


def _time(client: Any, request: Request) -> tuple[int, float, float, int]:
    """Status, p50 and worst milliseconds over ROUNDS, and the request's size in bytes."""
    _name, _path, form, body = request
    size = len((body or json.dumps(form, ensure_ascii=False)).encode())
    times, status = [], 0
    for _ in range(ROUNDS):
        started = time.perf_counter()
        response = _post(client, request)
        times.append((time.perf_counter() - started) * 1000)
        status = response.status_code
    return status, statistics.median(times), max(times), size


def measure() -> tuple[list[tuple[str, int, float, float, int]], list[tuple[str, int]]]:
    from django.test import Client

    client = Client()
    baseline, at_limits, past = _requests()
    _post(client, baseline)  # warm: the names' snapshots are built once per data version
    rows = [(request[0], *_time(client, request)) for request in [baseline, *at_limits]]
    refused = [(request[0], _post(client, request).status_code) for request in past]
    return rows, refused


def section(rows: list[tuple[str, int, float, float, int]], refused: list[tuple[str, int]]) -> str:
    lines = [
        BEGIN,
        "## Reconciliation at its limits",
        "",
        "`bench/reconcile_limits.py`: the shipped collection on SQLite, one request at each documented limit of "
        f"the reconciliation service (docs/security.md), {ROUNDS} rounds each, through the test client in one "
        f"process; the baseline is one plain name query in the same run. Each must answer within {CEILING_MS:.0f} ms.",
        "",
        "| request | status | bytes | p50 ms | worst ms |",
        "|---|---|---|---|---|",
    ]
    for name, status, p50, worst, size in rows:
        lines.append(f"| {name} | {status} | {size:,} | {p50:.1f} | {worst:.1f} |")
    lines += ["", "Just past each limit:", "", "| request | status |", "|---|---|"]
    lines += [f"| {name} | {status} |" for name, status in refused]
    lines += ["", END]
    return "\n".join(lines)


def write_report(text: str) -> None:
    current = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        current = head + text + tail
    else:
        current = current.rstrip() + "\n\n" + text + "\n"
    REPORT.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reconcile-limits-") as tmp:
        _setup(Path(tmp))
        rows, refused = measure()
    text = section(rows, refused)
    print(text)
    failed = [name for name, status, _p50, worst, _size in rows if status != 200 or worst > CEILING_MS]
    failed += [name for name, status in refused if status != 413]
    if failed:
        print(f"not within the limits' promise: {'; '.join(failed)}", file=sys.stderr)
    if not args.no_write:
        write_report(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
