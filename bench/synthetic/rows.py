"""The rows of the synthetic archive, record kind by record kind, and the state they share.

Every row built reads and advances the same state: the random streams, the
decks of review states and ranks, the serial numbers of slugs, the bounded
pools of earlier records (links across sources) and the running digest of
every row's content, the checksum that proves a seed gives the same archive.
`RowWriter` holds that state and builds the rows; `writer.Writer` adds the
sources and decides which records each source is evidence for.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import resource
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import models

from archive.dating import NANJING
from archive.importing.bulk import BATCH_SIZE, record_history
from archive.models import (
    Citation,
    Event,
    EventKind,
    Location,
    Participation,
    ParticipationRole,
    Passage,
    Person,
    Post,
    Side,
    Source,
    SourceKind,
    Status,
    Unit,
)

from .corpus import SeedCorpus, random_name
from .vocabulary import (
    ECHELON_NAMES,
    PLACE_SUFFIXES,
    POOL_SIZE,
    RANKS,
    RECORD_DECK,
    RECORD_KINDS,
    STATUS_DECK,
    SURNAMES,
    TITLES,
)

REASON = "synthetic archive"


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Summary:
    """What a run wrote: row counts by model, the content checksum, time and memory."""

    passages: int = 0
    sources: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    checksum: str = ""
    seconds: float = 0.0
    peak_rss_mib: float = 0.0

    def rate(self) -> float:
        return self.passages / self.seconds if self.seconds else 0.0


class Deck:
    """Deal review states (or ranks) from a reshuffled deck, so each stretch of rows has the mix."""

    def __init__(self, rng: random.Random, cards: Sequence[str]) -> None:
        self._rng = rng
        self._cards = list(cards)
        self._hand: list[str] = []

    def deal(self) -> str:
        if not self._hand:
            self._hand = list(self._cards)
            self._rng.shuffle(self._hand)
        return self._hand.pop()


class RowWriter:
    """The state of a run and the rows of each record kind; `writer.Writer` adds the sources.

    Holds only the current source's rows, with bounded pools of earlier ones.
    """

    def __init__(self, *, seed: int, corpus: SeedCorpus, using: str) -> None:
        self.seed = seed
        self.corpus = corpus
        self.using = using
        self.rng = random.Random(seed)
        self.statuses = Deck(random.Random(f"{seed}:status"), STATUS_DECK)
        self.ranks = Deck(random.Random(f"{seed}:rank"), RANKS)
        self.record_kinds = Deck(random.Random(f"{seed}:records"), RECORD_DECK)
        self.digest = hashlib.sha256(f"synthetic:{seed}".encode())
        self.summary = Summary()
        self.prefix = f"syn{seed}"
        self.serial: Counter[str] = Counter()
        # Bounded pools of (id, slug) of earlier records, for links across sources.
        self.pools: dict[str, deque[tuple[int, str]]] = {k: deque(maxlen=POOL_SIZE) for k in RECORD_KINDS}
        self.primary_sources: deque[int] = deque(maxlen=POOL_SIZE)

    # -- helpers

    def _slug(self, kind: str) -> str:
        self.serial[kind] += 1
        return f"{self.prefix}-{kind}-{self.serial[kind]:07d}"

    def _hash(self, *parts: object) -> None:
        self.digest.update("\x1f".join(str(p) for p in parts).encode())
        self.digest.update(b"\x1e")

    def _curation(self, when: dt.datetime) -> dict[str, Any]:
        status = self.statuses.deal()
        reviewed = status in (Status.APPROVED, Status.REJECTED)
        return {
            "status": status,
            "reviewed_at": when if reviewed else None,
            "created_at": when,
        }

    def _bulk(self, model: type[models.Model], objs: list[Any]) -> list[Any]:
        if not objs:
            return objs
        model._default_manager.using(self.using).bulk_create(objs, batch_size=BATCH_SIZE)
        if model is Source:
            # COPY cannot write a generated column (is_fiction), so the few
            # source rows take simple-history's own bulk path.
            Source.history.bulk_history_create(objs, default_change_reason=REASON)  # type: ignore[attr-defined]
        elif hasattr(model, "history"):
            record_history(model, objs, history_type="+", reason=REASON, using=self.using)
        self.summary.counts[model.__name__] += len(objs)
        return objs

    def _person_name(self, rng: random.Random, script: str) -> str:
        return rng.choice(SURNAMES) + random_name(rng, self.corpus, script, rng.choice((1, 2, 2)))

    # -- the rows of each record kind

    def _person(self, rng: random.Random, script: str, side: str, fiction: bool, when: dt.datetime) -> Person:
        name = self._person_name(rng, script)
        slug = self._slug("person")
        born = rng.randint(1880, 1915)
        person = Person(
            slug=slug,
            name=name,
            side=side if rng.random() < 0.8 else Side.UNKNOWN,
            birth=str(born) if rng.random() < 0.6 else "",
            death=str(rng.randint(born + 25, 1990)) if rng.random() < 0.4 else "",
            description=random_name(rng, self.corpus, script, rng.randint(8, 30)),
            marked_historical=fiction and rng.random() < 0.1,
            **self._curation(when),
        )
        self._hash("person", slug, name, person.side, person.birth, person.death, person.status)
        return person

    def _units(self, rng: random.Random, side: str, when: dt.datetime, count: int) -> list[Unit]:
        units: list[Unit] = []
        for _ in range(count):
            echelon = rng.choice(list(ECHELON_NAMES))
            name = ECHELON_NAMES[echelon].format(n=rng.randint(1, 200))
            parent = rng.choice(self.pools["unit"])[0] if self.pools["unit"] and rng.random() < 0.5 else None
            slug = self._slug("unit")
            units.append(
                Unit(slug=slug, name=name, echelon=echelon, side=side, parent_id=parent, **self._curation(when))
            )
            self._hash("unit", slug, name, echelon, side, units[-1].status)
        return self._bulk(Unit, units)

    def _locations(self, rng: random.Random, script: str, when: dt.datetime, count: int) -> list[Location]:
        locations: list[Location] = []
        for _ in range(count):
            kind = rng.choice(list(PLACE_SUFFIXES))
            name = random_name(rng, self.corpus, script, rng.randint(1, 2)) + PLACE_SUFFIXES[kind]
            parent = rng.choice(self.pools["location"])[0] if self.pools["location"] and rng.random() < 0.6 else None
            placed = rng.random() < 0.5
            slug = self._slug("location")
            locations.append(
                Location(
                    slug=slug,
                    name=name,
                    kind=kind,
                    parent_id=parent,
                    latitude=Decimal(f"{rng.uniform(31.5, 32.5):.6f}") if placed else None,
                    longitude=Decimal(f"{rng.uniform(118.3, 119.2):.6f}") if placed else None,
                    coordinate_precision="synthetic, within 1 km" if placed else "",
                    **self._curation(when),
                )
            )
            self._hash("location", slug, name, kind, locations[-1].status)
        return self._bulk(Location, locations)

    def _events(
        self,
        rng: random.Random,
        source: Source,
        script: str,
        when: dt.datetime,
        count: int,
        locations: list[Location],
    ) -> list[Event]:
        events: list[Event] = []
        parents: list[int | None] = []  # index of the parent among this source's events
        kinds = list(EventKind.values)
        for index in range(count):
            slug = self._slug("event")
            if source.kind == SourceKind.ALTERNATE_HISTORY:
                day = rng.randint(1, 28)
                date, date_text, earliest, latest = f"XXXX-01-{day:02d}", f"1月{day}日", None, None
            else:
                day_of = dt.date(1937, 12, 1) + dt.timedelta(days=rng.randint(0, 120))
                date, date_text = day_of.isoformat(), f"{day_of.month}月{day_of.day}日"
                earliest = dt.datetime.combine(day_of, dt.time.min, NANJING)
                latest = dt.datetime.combine(day_of, dt.time.max, NANJING)
                if rng.random() < 0.4:
                    hour = rng.randint(0, 23)
                    date_text += f"{hour}点"
                    earliest = earliest.replace(hour=hour)
                    latest = earliest.replace(minute=59, second=59, microsecond=999999)
            roots = [i for i in range(index) if parents[i] is None]
            parents.append(rng.choice(roots) if roots and rng.random() < 0.2 else None)
            events.append(
                Event(
                    slug=slug,
                    title=random_name(rng, self.corpus, script, rng.randint(4, 12)),
                    description=random_name(rng, self.corpus, script, rng.randint(10, 40)),
                    kind=rng.choice(kinds),
                    date=date,
                    date_text=date_text,
                    earliest=earliest,
                    latest=latest,
                    **self._curation(when),
                )
            )
            parent_slug = events[parents[-1]].slug if parents[-1] is not None else ""
            self._hash(
                "event", slug, events[-1].title, date, date_text, events[-1].kind, parent_slug, events[-1].status
            )
        # Parents first, so that each child is written (and its history recorded) with its parent's id.
        self._bulk(Event, [e for e, p in zip(events, parents, strict=True) if p is None])
        children = []
        for event, parent in zip(events, parents, strict=True):
            if parent is not None:
                event.parent_id = events[parent].pk
                children.append(event)
        self._bulk(Event, children)
        place_ids = [loc.pk for loc in locations] or [pk for pk, _slug in self.pools["location"]]
        through = Event.locations.through
        links = []
        if place_ids:
            for event in events:
                for place in rng.sample(place_ids, k=min(len(place_ids), rng.randint(1, 2))):
                    links.append(through(event_id=event.pk, location_id=place))
        if links:
            through.objects.using(self.using).bulk_create(links, batch_size=BATCH_SIZE)
            self.summary.counts["Event.locations"] += len(links)
        return events

    def _posts(
        self,
        rng: random.Random,
        when: dt.datetime,
        persons: list[tuple[int, str]],
        units: list[tuple[int, str]],
    ) -> list[Post]:
        if not persons or not units:
            return []
        posts = []
        for person_id, person_slug in persons:
            if rng.random() < 0.4:
                unit_id, unit_slug = rng.choice(units)
                slug = self._slug("post")
                title = rng.choice(TITLES)
                posts.append(
                    Post(
                        slug=slug,
                        person_id=person_id,
                        unit_id=unit_id,
                        title=title,
                        date_from="1937-11" if rng.random() < 0.5 else "",
                        acting=rng.random() < 0.1,
                        concurrent=rng.random() < 0.1,
                        **self._curation(when),
                    )
                )
                self._hash("post", slug, person_slug, unit_slug, title, posts[-1].status)
        return self._bulk(Post, posts)

    def _participations(
        self,
        rng: random.Random,
        when: dt.datetime,
        events: list[Event],
        persons: list[tuple[int, str]],
        units: list[tuple[int, str]],
    ) -> list[Participation]:
        participations = []
        roles = list(ParticipationRole.values)
        for event in events:
            for position in range(1, rng.randint(1, 3) + 1):
                by_person = bool(persons) and (not units or rng.random() < 0.6)
                pool = persons if by_person else units
                if not pool:
                    continue
                pk, who = rng.choice(pool)
                slug = self._slug("participation")
                role = rng.choice(roles)
                participations.append(
                    Participation(
                        slug=slug,
                        event=event,
                        person_id=pk if by_person else None,
                        unit_id=None if by_person else pk,
                        role=role,
                        position=position,
                        **self._curation(when),
                    )
                )
                self._hash("participation", slug, event.slug, who, role, participations[-1].status)
        return self._bulk(Participation, participations)

    def _citation(
        self,
        rng: random.Random,
        passages: list[Passage],
        target: str,
        target_id: int,
        target_slug: str,
        when: dt.datetime,
    ) -> Citation:
        passage = rng.choice(passages)
        text = passage.text
        size = min(len(text), rng.randint(4, 30))
        start = rng.randint(0, len(text) - size)
        quote = text[start : start + size]
        slug = self._slug("citation")
        citation = Citation(
            slug=slug,
            passage_id=passage.pk,
            quote=quote,
            start=start,
            end=start + size,
            claim=quote[: rng.randint(4, 12)],
            rank=self.ranks.deal(),
            **{f"{target}_id": target_id},
            **self._curation(when),
        )
        self._hash("citation", slug, passage.seq, start, quote, target, target_slug, citation.rank, citation.status)
        return citation
