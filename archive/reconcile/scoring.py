"""A batch of queries answered: candidates by name, properties compared, scores and the match decision.

A candidate's score is its name score (`names`, 0 to 100). When the query
gives properties, the name weighs 70% and the properties 30%: a property
that agrees counts fully, one the archive cannot tell for that record half,
one that disagrees not at all; each comparison is reported as a feature.
So of two namesakes the one whose unit, date or place agrees leads. `match` is true for the best candidate
only when it names the query whole (score >= 90) and leads the next one by
at least 10: two people called 唐 are never matched, whoever comes first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from archive.search import candidates as names
from archive.search import snapshots
from archive.search.records import Candidate

from . import evidence
from .batch import ReconQuery, Value, check_work
from .evidence import Evidence, date_span
from .types import TYPES, entity_id

MATCH_SCORE = 90.0
MATCH_LEAD = 10.0
NAME_WEIGHT = 0.7
AGREEMENT = {True: 1.0, None: 0.5, False: 0.0}


@dataclass
class Scored:
    found: names.Found
    score: float
    features: list[dict[str, Any]]


def _related_agrees(values: list[Value], pks: set[int], records: dict[int, Candidate], type_id: str) -> bool:
    for value in values:
        for pk in pks:
            record = records.get(pk)
            if record is None:
                continue
            if value.entity is not None:
                if value.entity == (type_id, record.slug):
                    return True
            elif names.names_equal(record, value.text):
                return True
    return False


def _date_agrees(values: list[Value], spans: list[Any]) -> bool:
    for value in values:
        wanted = date_span(value.text)
        if wanted is None:
            continue
        for start, end in spans:
            low, high = start or end, end or start
            if low is not None and high is not None and low <= wanted[1] and wanted[0] <= high:
                return True
    return False


def compare(type_id: str, pid: str, values: list[Value], known: Evidence,
            related: dict[str, dict[int, Candidate]]) -> bool | None:
    """Whether the record agrees with the query's values of `pid`; None when the archive cannot tell."""
    if pid == "date":
        return _date_agrees(values, known.spans) if known.spans else None
    if pid in known.fields:
        wanted = {value.text.strip().casefold() for value in values}
        return known.fields[pid].casefold() in wanted if known.fields[pid] else None
    target = evidence.RELATED_TYPE.get((type_id, pid))
    if target is None:
        return None
    pks = known.related.get(pid, set())
    return _related_agrees(values, pks, related[target], target) if pks else None


Known = dict[tuple[Any, ...], Evidence]


def _evidence_for(queries: list[ReconQuery], candidates: dict[str, list[names.Found]]) -> Known:
    """The evidence of every candidate of a query with properties, one read per type and fiction mode."""
    wanted: dict[tuple[str, Any], set[int]] = defaultdict(set)
    for query in queries:
        if query.properties:
            for found in candidates[query.key]:
                wanted[(found.type, query.fiction)].add(found.record.pk)
    read: Known = {}
    for (type_id, mode), pks in wanted.items():
        for pk, known in evidence.READERS[type_id](pks, mode).items():
            read[(type_id, mode, pk)] = known
    return read


def decide(scored: list[Scored]) -> bool:
    if not scored or scored[0].score < MATCH_SCORE:
        return False
    return len(scored) == 1 or scored[0].score - scored[1].score >= MATCH_LEAD


def _result(item: Scored, match: bool, type_names: dict[str, str]) -> dict[str, Any]:
    found = item.found
    result: dict[str, Any] = {
        "id": entity_id(found.type, found.record.slug),
        "name": found.record.title,
        "score": item.score,
        "match": match,
        "type": [{"id": found.type, "name": type_names[found.type]}],
        "features": [{"id": "name", "value": found.name_score}, *item.features],
    }
    if found.record.aliases:
        result["description"] = " / ".join(found.record.aliases[:5])
    if found.fictional:
        result["features"].append({"id": "fictional", "value": True})
    return result


def answer(queries: list[ReconQuery]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The result batch: for each query key, its candidates best first."""
    related_types = {"unit", "location", "event"} if any(query.properties for query in queries) else set()
    shots = snapshots({type_id for query in queries for type_id in query.types} | related_types)
    candidates = {query.key: names.find(query.text, query.types, query.fiction.value, shots) for query in queries}
    check_work(queries, {key: len(found) for key, found in candidates.items()})
    known = _evidence_for(queries, candidates)
    related = {type_id: names.records_by_pk(type_id, shots) for type_id in related_types}
    type_names = {type_id: str(entity_type.name) for type_id, entity_type in TYPES.items()}
    batch: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for query in queries:
        scored = []
        for found in candidates[query.key]:
            score, features = found.name_score, []
            record_known = known.get((found.type, query.fiction, found.record.pk), Evidence())
            agreement = []
            for pid, values in query.properties.items():
                agrees = compare(found.type, pid, values, record_known, related)
                agreement.append(AGREEMENT[agrees])
                if agrees is not None:
                    features.append({"id": pid, "value": agrees})
            if agreement:
                score = NAME_WEIGHT * score + (100 - 100 * NAME_WEIGHT) * sum(agreement) / len(agreement)
            scored.append(Scored(found, round(score, 1), features))
        scored.sort(key=lambda item: -item.score)
        # Decided before the limit cuts the list: a close second beyond it still makes the first uncertain.
        matched = decide(scored)
        scored = scored[: query.limit]
        batch[query.key] = {
            "result": [_result(item, matched and index == 0, type_names) for index, item in enumerate(scored)]
        }
    return batch
