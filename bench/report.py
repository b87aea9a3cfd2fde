"""The report of a run: BENCHMARKS.md for people and bench/results.json for programs.

Both are rewritten after each stage, so a run stopped late still has the
figures measured. A section of BENCHMARKS.md between `<!-- name -->` and
`<!-- /name -->` belongs to another script (a standalone benchmark that
writes its own figures there) and is carried over unchanged.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
import os
import platform
import re
import time
from pathlib import Path

from bench.figures import DEFAULT_SCALE, Figure, Run, say

# A section another script writes into BENCHMARKS.md: `<!-- name -->` … `<!-- /name -->`.
_MARKED = re.compile(r"<!-- ([\w.-]+) -->.*?<!-- /\1 -->", re.DOTALL)


def marked_sections(text: str) -> list[str]:
    """The sections of a report between `<!-- name -->` and `<!-- /name -->`, markers included, in order."""
    return [found.group(0) for found in _MARKED.finditer(text)]


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:,.1f} ms"
    if unit == "queries":
        return f"{value:,.0f} {unit}"
    if value < 100:
        return f"{value:,.2f} {unit}"
    return f"{value:,.0f} {unit}"


def _supplement(run: Run) -> list[Figure]:
    """Figures of an earlier run (`--supplement`) that this run has not (yet) measured."""
    if not run.args.supplement:
        return []
    measured = {f.name for f in run.figures}
    carried = []
    for item in json.loads(Path(run.args.supplement).read_text(encoding="utf-8")):
        if item["name"] in measured:
            continue
        known = {k: item.get(k) for k in ("value", "baseline_value", "ratio", "met")}
        carried.append(
            Figure(
                item["name"],
                unit=item["unit"],
                baseline=item.get("baseline") or "",
                better=item["better"],
                target=item.get("target") or "",
                notes=item.get("notes") or "",
                error=item.get("error") or "",
                scale=int(item.get("scale") or 0),
                earlier=True,
                **known,
            )
        )
    return carried


# What bounds each group of figures, as profiling on this kind of machine showed (2 cores
# shared by the servers, the load generator and PostgreSQL). A prefix ending in ":" names
# the figures as served, not those of the same name with the cache off; a "*" in it stands
# for any kind of document.
LIMITS = [
    ("import", "the database's write path: COPY into the passage, search and history tables and their "
     "indexes; on the Python side, building the rows. The baseline is bound by a save() and a history "
     "row per record."),
    ("API events page (page_size=50), response cache off", "the stored documents: a page as first shown (no "
     "filter, the default size) is stored whole under its list's tag by the view that first builds it, and read "
     "back in one statement by a middleware before URL resolution and DRF until a write touches the list "
     "(`archive/api/stored_answers.py`); the view counts, orders and cuts the page in SQL on the records' own "
     "table and reads its fifty documents from their stored copies in one statement (`archive/api/stored.py`), "
     "so no model instance is built for the events or what they nest. What is left is the fixed cost of "
     "gunicorn, the middleware before it and the throttle, and the size of the answer. The baseline builds the "
     "whole document in PostgreSQL in one statement."),
    ("API person detail, response cache off", "as above for one document: one statement reads its stored "
     "document with the facts its answer needs (its Last-Modified, whether it is fiction), without reading the "
     "record, and a middleware answers with it before URL resolution and DRF are reached "
     "(`archive/api/stored_answers.py`); the fixed cost of gunicorn, the middleware before it and the throttle "
     "beside the baseline's single statement. The throttle rewrites one number "
     "per request in a table every worker maps (`archive/rate_table.py`); under this load from one address every "
     "worker writes the same slot."),
    ("API events page (page_size=50):", "as served, the stored page is answered before the response cache is "
     "consulted, as with the cache off (middleware, throttling, one statement: its time in one process is "
     "below), so gunicorn's sync workers, the loopback network stack and the load generator on the same 2 "
     "cores bound it."),
    ("API person detail:", "as served, a plain detail whose stored document is current is answered from it "
     "before the response cache is consulted (one statement, as with the cache off: the cache would spend one on "
     "the versions of its tags too); every worker has been asked for every person (eight times per worker each, "
     "before measuring). What is left is the fixed cost of gunicorn, the middleware and the throttle beside the "
     "baseline's tiny app."),
    ("API * page (page_size=50), response cache off", "the pages of the other kinds, with a quarter of the "
     "requests each, stored whole and read back as the page of events is. A source's passages are not stored "
     "whole (the page shows its source too): the view reads their fifty stored documents in one statement. The "
     "first build of the page of citations is bound by its SQL: its count and its page test the visibility of "
     "the record each citation is evidence for through a dozen joins, where the baseline looks each citation up "
     "in the visible records of each kind, read once into a hash."),
    ("API * detail, response cache off", "the details of the other kinds, with a quarter of the requests each: "
     "one statement for its stored document, answered before DRF, and the fixed cost of gunicorn, the middleware "
     "and the throttle, beside "
     "the baseline's single statement, which for the smallest documents (a source, a passage, a citation) is a "
     "lookup by key answered about as fast as gunicorn answers anything."),
    ("API * page (page_size=50):", "as served, the pages of the other kinds are answered from their stored "
     "pages, and a source's passages from the response cache, after a warm-up of eight requests per worker and "
     "path (within half the endpoint's time budget): the limits of the page of events as served bound them."),
    ("API * detail:", "as served, the details of the other kinds: the limits of the person details as served."),
    ("API stack floor", "the part of every API answer that no read path can save, measured apart "
     "(`bench/stages/floor.py`): gunicorn and Django's middleware (the request log, security headers, sessions, "
     "locale, CORS, CSRF, authentication, messages, history, the login lockout) and, for the DRF view, its content "
     "negotiation, the throttle and rendering; neither view reads the database. A plain detail, and a page as first "
     "shown, is answered by a middleware before CSRF, authentication, messages, history, the login lockout, URL "
     "resolution and DRF (`archive/api/stored_answers.py`): it pays the middleware before it, one resolution of its "
     "path, the throttle, one statement for its document (prepared, as the baseline's is) and its ETag and "
     "Last-Modified; the check of the persistent connection reads its socket and sends nothing. The baseline's tiny "
     "app pays none of the stack."),
    ("API with curators writing", "a curator publishes a change of a random event each second (a revision "
     "approved at once, through the services the admin calls); each change invalidates that event, the "
     "event lists and the records that nest it, and rebuilds their stored documents once it commits, so the "
     "stored events page is built again by its first reader after each write and the person details "
     "are answered from their stored documents, current again once the write commits; an answer from the "
     "response cache or a stored document counts as not built. The writer shares the 2 cores with the "
     "readers and the server, which weighs on the p95."),
    ("API in one process", "one request at a time in the bench's own process through django.test.Client, "
     "with no HTTP and no load: what a request costs, and where; its SQL is each statement's execute, "
     "results included, and its Python the rest; \"built by the serializers\" is the same request with the "
     "stored documents off (`API_STORED_DOCUMENTS=0`), the cost of a document not yet stored. The baseline is "
     "the baseline app's statement with its cached plan, run from the same process."),
    ("baseline check", "the baseline's statements run prepared with a cached plan (`bench/baseline_app.py`: the "
     "faster of PostgreSQL's generic plan and a plan per run, timed on a statement's first use), so that its time "
     "is its execution and not the planning of a statement of tens of kilobytes; the check sets the statement's "
     "time, run from this process, beside its execution time by EXPLAIN ANALYZE."),
    ("store size", "what the stored documents hold: every record's document in both fiction modes, the pages "
     "and documents the API stages read, and, after a `*` cycle, the same built again beside the dead rows the "
     "pruning left to VACUUM. Passages and citations are stored only as they are read."),
    ("cold read after", "a document made stale by a write is built by its first reader in one prepared SQL "
     "statement (`archive/api/sql_built.py`, the baseline's own SQL with the origin mark in its links), written "
     "again by the renderer, stored and served by the stored answers, in a transaction that takes the document's "
     "builder lock; a page of a list as first shown is built whole the same way when every document on it is "
     "stale (a source's edit or `*`), and by the view from its records' documents when only the list moved (a "
     "record published). What is left over the baseline is Django's request around the statement, the lock's "
     "transaction and the store's write: about 2 ms, which is most of a source's document or page, whose "
     "statement takes well under 1 ms. The baseline's one statement with its cached plan builds the same "
     "document in PostgreSQL, with no Python around it."),
    ("events page ?", "a filtered page is never stored whole: the view runs the filter's query, counts and pages "
     "the records' keys, and reads their stored documents in one statement, through Django's middleware and "
     "DRF's view and filter set; the baseline builds the page in one statement."),
    ("write cost", "the writer's transaction with the read machinery on pays the freshness tags: before and "
     "after each saved row, the tags of the documents that show it, and one bump of their versions; the "
     "rebuild of the documents it touched runs after the response (timed apart in the notes)."),
    ("bulk review", "one transaction for all the citations (`archive.services.bulk`): their rows, history and "
     "freshness tags in a few statements per model."),
    ("search", "passage hits come from the index in PostgreSQL (the first page walks an index in archive "
     "order, the count stops past 5,000); names are matched in an in-memory snapshot of the records, which a "
     "new process builds once from the records and the stored keys of their names, and rebuilds when a record "
     "kind changes. The "
     "baseline reads every passage's text."),
    ("first request of a new worker", "a new worker's first search reads the approved records and the stored "
     "keys of their names and builds its snapshot from them (the baseline computes every name's keys: folding "
     "and pinyin in Python); its first page of events pays what the warm-up did not load, chiefly the new "
     "connection's first statements. Each is one request, so one slowed by the shared machine shows."),
    ("admin", "template rendering in Python for a page of 50 rows; with ?q=, the name snapshot of every "
     "status and a LIKE over the citations' stored folded quote and claim. The p95 of a few renders is the "
     "slowest of them, so one render slowed by the shared machine can miss the target alone."),
    ("API queries per request", "constant by construction when a page is built (at 40 and 200 rows, sizes "
     "that are never stored whole): one query counts the list with its latest change, one reads the page's "
     "keys and one their stored documents; a page at the default size, once stored, is one statement."),
]


def write_report(run: Run) -> None:
    figures = run.figures + _supplement(run)
    results = [
        {
            "name": f.name,
            "value": None if f.value is None else round(f.value, 3),
            "unit": f.unit,
            "baseline": f.baseline or None,
            "baseline_value": None if f.baseline_value is None else round(f.baseline_value, 3),
            "ratio": None if f.ratio is None else round(f.ratio, 3),
            "better": f.better,
            "target": f.target or None,
            "met": f.met,
            "notes": f.notes or None,
            "error": f.error or None,
            "scale": f.scale,
            **({"from_earlier_run": True} if f.earlier else {}),
        }
        for f in figures
    ]
    Path(run.args.json).write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    minutes = (time.perf_counter() - run.started) / 60
    lines = [
        "# Benchmarks",
        "",
        "Written by `bench/run` (see the README); do not edit by hand, run it again.",
        "Each figure is measured side by side with its baseline in the same run, on the same database.",
        "",
        f"- scale: **{run.args.scale:,} passages** (seed {run.args.seed})"
        + ("" if run.args.scale == DEFAULT_SCALE else f" — smaller than the default {DEFAULT_SCALE:,}"),
        f"- date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}; whole run {minutes:.1f} min",
        f"- machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"PostgreSQL {run.context.get('PostgreSQL', '?')} (throwaway cluster, fsync off)",
    ]
    for key, value in run.context.items():
        if key != "PostgreSQL":
            lines.append(f"- {key}: {value}")
    only = getattr(run.args, "only", None)
    if run.finished and only:
        carried = sorted({f.scale for f in figures if f.earlier})
        lines.append(
            f"- state: **partial: this run measured only {', '.join(only)}** (`--only`)"
            + (
                f"; the figures marked so in the table are from an earlier run at "
                f"{', '.join(f'{n:,}' for n in carried)} passages"
                if carried
                else ""
            )
            + "."
        )
    elif run.finished:
        lines.append("- state: **complete**, every stage ran")
    else:
        carried = sorted({f.scale for f in figures if f.earlier})
        lines.append(
            f"- state: **incomplete: this run at {run.args.scale:,} passages did not finish** — the stages done "
            f"are: {', '.join(run.done) or 'none'}."
            + (
                f" The figures of the other stages are from an earlier run at {', '.join(f'{n:,}' for n in carried)} "
                "passages, marked so in the table."
                if carried
                else ""
            )
        )
    lines += [
        "",
        "| name | ours | baseline | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for f in figures:
        ratio = "—" if f.ratio is None else f"{f.ratio:.2f}×"
        met = {True: "yes", False: "**no**", None: ""}[f.met]
        ours = f"error: {f.error}" if f.error else _fmt(f.value, f.unit)
        name = f"{f.name} *(at {f.scale:,} passages, from an earlier run)*" if f.earlier else f.name
        lines.append(f"| {name} | {ours} | {_fmt(f.baseline_value, f.unit)} | {ratio} | {f.target or ''} | {met} |")
    lines += [
        "",
        "`ratio` is ours ÷ baseline: higher is better for rates, lower for latencies.",
        "",
        "## What limits each figure",
        "",
    ]
    lines += [
        f"- **{prefix.rstrip(':').replace('*', '…')}**: {why}"
        for prefix, why in LIMITS
        if any(fnmatch.fnmatchcase(f.name, f"{prefix}*") for f in figures)
    ]
    lines += [
        "",
        "## Baselines",
        "",
    ]
    seen = set()
    for f in figures:
        if f.baseline and f.baseline not in seen:
            seen.add(f.baseline)
            lines.append(f"- {f.baseline}")
    lines += ["", "## Notes", ""]
    for f in figures:
        if f.notes:
            lines.append(f"- **{f.name}**: {f.notes}")
    if run.plans:
        lines += ["", "## Plans of the search query (`archive.search.explain`)", ""]
        for term, plan in run.plans.items():
            lines += [f"### {term}", "", "```", plan, "```", ""]
    markdown = Path(run.args.markdown)
    kept = marked_sections(markdown.read_text(encoding="utf-8")) if markdown.exists() else []
    text = "\n".join(lines).rstrip() + "\n"
    for section in kept:  # the figures of other scripts, carried over as they are, at the end
        text += "\n" + section + "\n"
    markdown.write_text(text, encoding="utf-8")
    say(f"Wrote {run.args.markdown} and {run.args.json}")
