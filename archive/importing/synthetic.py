"""A deterministic synthetic archive, for measuring the real one at scale.

The shipped archive holds three short texts; the questions that matter for
performance (a COPY of a million passages, a page of events over a large
citation table, a one-character search over every passage) need millions of
rows of the same shape. This module makes them:

* text is spliced from short runs of the seed texts themselves, so the
  character frequencies, the common two- and three-character words (撤退,
  下关, 挹江门) and the passage lengths are those of the seeds; the seeds are
  read at run time, never copied into code;
* sources come in every `SourceKind`, fiction included, each a few hundred to
  a few thousand passages, with `text` the passages joined by "\\n" so that
  the usual invariants (`length`, `sha256`, passages tiling the text) hold;
* people, units, places and events come at about one record per twenty
  passages, with posts, participations, names and aliases, and 1–5 citations
  per record whose quotes are slices of their passages (the database's
  triggers check it);
* review states are dealt from a fixed deck (mostly approved, some draft,
  in review and rejected) so that every mix of a few dozen rows has each.

Rows are written with `bulk_create` and `archive.importing.bulk` (COPY on
PostgreSQL) plus bulk history, source by source: only one source's rows are
held in memory at a time, with small bounded pools of earlier ids for links
across sources, so memory stays flat as the archive grows. `bulk_create`
bypasses `Curated.save()` and its guard on status transitions, which is what
a generator of already-reviewed data wants. The whole run is one transaction:
all or nothing, as every import.

The same seed gives the same archive (same `checksum`, computed over every
row's content in the order it is written, ids and timestamps excluded).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import resource
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import models, router, transaction

from archive import fiction
from archive.dating import NANJING
from archive.models import (
    FICTION_KINDS,
    Citation,
    Echelon,
    Event,
    EventKind,
    Language,
    Location,
    LocationAlias,
    LocationKind,
    NameKind,
    Participation,
    ParticipationRole,
    Passage,
    PassageRole,
    Person,
    PersonName,
    Post,
    Rank,
    Script,
    Side,
    Source,
    SourceKind,
    Status,
    Unit,
    UnitAlias,
)
from archive.models.sources import PRIMARY_KINDS, SECONDARY_KINDS
from archive.text.normalize import is_han, to_simplified
from archive.text.segment import Segment

from .bulk import BATCH_SIZE, insert_passages, record_history

__all__ = [
    "DEFAULT_SOURCE_SIZES",
    "SeedCorpus",
    "Summary",
    "default_seed_dir",
    "generate",
    "load_corpus",
    "passage_texts",
    "peak_rss_mib",
]

DEFAULT_SOURCE_SIZES = (300, 3000)
PASSAGES_PER_RECORD = 20
REASON = "synthetic archive"

# One review state per card; a shuffled deck of twenty gives 80 % approved and
# at least one of each other state in every twenty rows.
_STATUS_DECK = [Status.APPROVED] * 16 + [Status.IN_REVIEW] * 2 + [Status.DRAFT] * 1 + [Status.REJECTED] * 1
_RANKS = [Rank.NORMAL] * 17 + [Rank.PREFERRED] * 2 + [Rank.DEPRECATED]
_KIND_WEIGHTS: dict[str, int] = {
    SourceKind.DIARY: 10,
    SourceKind.MEMOIR: 12,
    SourceKind.ORDER: 6,
    SourceKind.REPORT: 8,
    SourceKind.NEWSPAPER: 9,
    SourceKind.HISTORY: 18,
    SourceKind.REFERENCE: 7,
    SourceKind.NOVEL: 12,
    SourceKind.WEB_NOVEL: 12,
    SourceKind.ALTERNATE_HISTORY: 6,
}
_KIND_TITLES = {
    SourceKind.DIARY: "日记",
    SourceKind.MEMOIR: "回忆录",
    SourceKind.ORDER: "命令",
    SourceKind.REPORT: "战斗详报",
    SourceKind.NEWSPAPER: "报",
    SourceKind.HISTORY: "史",
    SourceKind.REFERENCE: "辞典",
    SourceKind.NOVEL: "小说",
    SourceKind.WEB_NOVEL: "网络小说",
    SourceKind.ALTERNATE_HISTORY: "架空历史",
}
_RECORD_KINDS = ("person", "unit", "location", "event")
# Dealt like the review states, so that even a small archive has every kind.
_RECORD_DECK = ["person"] * 7 + ["unit"] * 4 + ["location"] * 4 + ["event"] * 5
_POOL_SIZE = 256  # earlier records kept for links across sources
_SURNAMES = (
    "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎"
    "余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文"
)
_TITLES = ("司令长官", "司令", "军长", "副军长", "师长", "代师长", "旅长", "团长", "营长", "参谋长", "副官", "处长")
_PLACE_SUFFIXES = {
    LocationKind.CITY: "城",
    LocationKind.COUNTY: "县",
    LocationKind.TOWN: "镇",
    LocationKind.VILLAGE: "村",
    LocationKind.GATE: "门",
    LocationKind.HILL: "山",
    LocationKind.PIER: "码头",
    LocationKind.RIVER: "河",
    LocationKind.ROAD: "路",
    LocationKind.BUILDING: "楼",
    LocationKind.FORT: "炮台",
    LocationKind.ISLAND: "洲",
}
_ECHELON_NAMES = {
    Echelon.ARMY_GROUP: "第{n}集团军",
    Echelon.ARMY: "第{n}军",
    Echelon.CORPS: "第{n}军团",
    Echelon.DIVISION: "第{n}师",
    Echelon.BRIGADE: "第{n}旅",
    Echelon.REGIMENT: "第{n}团",
    Echelon.BATTALION: "第{n}营",
    Echelon.DETACHMENT: "第{n}支队",
}
_BASE_TIME = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---------------------------------------------------------------- the seeds


@dataclass(frozen=True)
class SeedCorpus:
    """What the generator learns from the seed texts.

    `runs` holds the seed passages of one script joined without separators:
    text is spliced from random short runs of it, which keeps the character
    and word frequencies. `lengths` is every seed passage's length, drawn
    from as the empirical distribution. `han` is the Han characters of each
    script with their repetitions, for names.
    """

    runs: dict[str, str]
    han: dict[str, str]
    lengths: tuple[int, ...]
    files: tuple[str, ...]


def default_seed_dir() -> Path:
    """`fixtures/sources/`, where the shipped collection keeps its source texts."""
    return Path(settings.BASE_DIR) / "fixtures" / "sources"


def _is_traditional(text: str) -> bool:
    """A text is Traditional when folding it to Simplified changes many of its Han characters."""
    han = [ch for ch in text if is_han(ch)]
    if not han:
        return False
    changed = sum(1 for a, b in zip(han, to_simplified("".join(han)), strict=False) if a != b)
    return changed / len(han) > 0.05


def load_corpus(seed_dir: Path | str | None = None) -> SeedCorpus:
    """Read the seed texts (`*.txt` in `seed_dir`) and build the distributions."""
    directory = Path(seed_dir) if seed_dir is not None else default_seed_dir()
    files = sorted(directory.glob("*.txt"))
    if not files:
        raise FileNotFoundError(f"No seed texts (*.txt) in {directory}.")
    lines: dict[str, list[str]] = {Language.ZH_HANS: [], Language.ZH_HANT: []}
    lengths: list[int] = []
    for path in files:
        text = path.read_text(encoding="utf-8").lstrip("\ufeff")
        passages = [line.strip() for line in text.splitlines() if line.strip()]
        script = Language.ZH_HANT if _is_traditional(text) else Language.ZH_HANS
        lines[script].extend(passages)
        lengths.extend(len(p) for p in passages)
    if not lines[Language.ZH_HANS]:
        lines[Language.ZH_HANS] = [to_simplified(p) for p in lines[Language.ZH_HANT]]
    if not lines[Language.ZH_HANT]:
        lines[Language.ZH_HANT] = lines[Language.ZH_HANS]
    runs = {script: "".join(found) for script, found in lines.items()}
    han = {script: "".join(ch for ch in joined if is_han(ch)) for script, joined in runs.items()}
    return SeedCorpus(runs=runs, han=han, lengths=tuple(lengths), files=tuple(p.name for p in files))


# ---------------------------------------------------------------- text


_RUN_SIZES = range(2, 17)


def _spliced(rng: random.Random, runs: str, length: int) -> str:
    """`length` characters made of random runs (2–16 characters) of the seed text."""
    limit = len(runs) - max(_RUN_SIZES)
    count = length // 9 + 4
    starts = rng.choices(range(limit), k=count)
    sizes = rng.choices(_RUN_SIZES, k=count)
    text = "".join([runs[a : a + z] for a, z in zip(starts, sizes, strict=True)])
    while len(text) < length:
        text += _spliced(rng, runs, length - len(text))
    return text[:length]


def passage_texts(rng: random.Random, corpus: SeedCorpus, script: str, count: int) -> list[str]:
    """`count` passage texts whose lengths follow the seeds' (jittered by ±20 %).

    The text of all of them is spliced in one stream and then cut, which
    draws random numbers in bulk: this is the generator's inner loop.
    """
    lengths = [max(4, round(base * (0.8 + 0.4 * rng.random()))) for base in rng.choices(corpus.lengths, k=count)]
    stream = _spliced(rng, corpus.runs[script], sum(lengths))
    texts = []
    offset = 0
    for length in lengths:
        # A passage is one non-blank line that neither starts nor ends with space.
        text = stream[offset : offset + length].strip() or corpus.runs[script][:length]
        texts.append(text)
        offset += length
    return texts


def _name(rng: random.Random, corpus: SeedCorpus, script: str, size: int) -> str:
    han = corpus.han[script]
    return "".join(rng.choice(han) for _ in range(size))


# ---------------------------------------------------------------- planning


def plan_sizes(rng: random.Random, total: int, sizes: tuple[int, int]) -> list[int]:
    """Passages per source: at least one source of each kind; large runs draw sizes in `sizes`."""
    kinds = len(SourceKind.values)
    low, high = sizes
    if total < kinds:
        raise ValueError(f"A synthetic archive needs at least {kinds} passages, one source of each kind.")
    if total <= kinds * (low + high) // 2:
        # Small archives: one source of each kind, sizes jittered around the mean.
        weights = [rng.uniform(0.7, 1.3) for _ in range(kinds)]
        plan = [max(1, int(total * w / sum(weights))) for w in weights]
        plan[-1] += total - sum(plan)
        if plan[-1] < 1:
            raise ValueError("could not split the passages among the sources")
        return plan
    plan = []
    remaining = total
    while remaining > 0:
        # Log-uniform: many sources of a few hundred passages, some of thousands.
        size = round(low * (high / low) ** rng.random())
        if remaining - size < low:
            size = remaining
        plan.append(size)
        remaining -= size
    return plan


def plan_kinds(rng: random.Random, count: int) -> list[str]:
    """The kind of each source: every kind once (shuffled), then by weight."""
    first = list(SourceKind.values)
    rng.shuffle(first)
    kinds = [str(k) for k in _KIND_WEIGHTS]
    weights = list(_KIND_WEIGHTS.values())
    rest = rng.choices(kinds, weights=weights, k=max(0, count - len(first)))
    return (first + rest)[:count]


# ---------------------------------------------------------------- writing


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


class _Deck:
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


class _Writer:
    """Writes one source after another; holds only the current source's rows."""

    def __init__(self, *, seed: int, corpus: SeedCorpus, using: str) -> None:
        self.seed = seed
        self.corpus = corpus
        self.using = using
        self.rng = random.Random(seed)
        self.statuses = _Deck(random.Random(f"{seed}:status"), _STATUS_DECK)
        self.ranks = _Deck(random.Random(f"{seed}:rank"), _RANKS)
        self.record_kinds = _Deck(random.Random(f"{seed}:records"), _RECORD_DECK)
        self.digest = hashlib.sha256(f"synthetic:{seed}".encode())
        self.summary = Summary()
        self.prefix = f"syn{seed}"
        self.serial: Counter[str] = Counter()
        # Bounded pools of (id, slug) of earlier records, for links across sources.
        self.pools: dict[str, deque[tuple[int, str]]] = {k: deque(maxlen=_POOL_SIZE) for k in _RECORD_KINDS}
        self.primary_sources: deque[int] = deque(maxlen=_POOL_SIZE)

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

    # -- one source

    def write_source(self, index: int, kind: str, size: int) -> None:
        rng = random.Random(f"{self.seed}:source:{index}")
        when = _BASE_TIME + dt.timedelta(minutes=index)
        fiction = kind in FICTION_KINDS
        script = Language.ZH_HANT if kind == SourceKind.ALTERNATE_HISTORY or rng.random() < 0.05 else Language.ZH_HANS
        texts = passage_texts(rng, self.corpus, script, size)
        roles = [PassageRole.BODY] * size
        quotes: list[int | None] = [None] * size
        if kind == SourceKind.WEB_NOVEL and size > 1:
            title = _name(rng, self.corpus, script, 6)
            texts[-1] = f"喜欢{title}请大家收藏：(www.example.com){title}更新速度全网最快。"
            roles[-1] = PassageRole.BOILERPLATE
        if kind in SECONDARY_KINDS and self.primary_sources:
            for i in range(size):
                if rng.random() < 0.05:
                    roles[i] = PassageRole.QUOTATION
                    quotes[i] = rng.choice(self.primary_sources)
        segments = []
        offset = 0
        for seq, text in enumerate(texts, start=1):
            segments.append(Segment(seq, offset, offset + len(text), text))
            offset += len(text) + 1
        full_text = "\n".join(texts)
        slug = self._slug("source")
        year = rng.randint(1937, 1949) if kind in PRIMARY_KINDS else rng.randint(1950, 2024)
        source = Source(
            slug=slug,
            title=f"{_name(rng, self.corpus, script, rng.randint(3, 8))}{_KIND_TITLES[SourceKind(kind)]}",
            author=self._person_name(rng, script),
            kind=kind,
            language=script,
            date=str(year),
            text=full_text,
            length=len(full_text),
            sha256=hashlib.sha256(full_text.encode("utf-8")).hexdigest(),
            file_name=f"{slug}.txt",
            **self._curation(when),
        )
        self._bulk(Source, [source])
        self._hash("source", slug, source.title, source.author, kind, script, source.status, source.sha256, *roles)
        passages = insert_passages(source, segments, roles, quotes=quotes, reason=REASON)
        self.summary.counts["Passage"] += len(passages)
        self.summary.passages += len(passages)
        self.summary.sources += 1
        if kind in PRIMARY_KINDS:
            self.primary_sources.append(source.pk)
        self._records(rng, source, passages, script, fiction, when)

    def _person_name(self, rng: random.Random, script: str) -> str:
        return rng.choice(_SURNAMES) + _name(rng, self.corpus, script, rng.choice((1, 2, 2)))

    # -- the records a source is evidence for

    def _records(
        self,
        rng: random.Random,
        source: Source,
        passages: list[Passage],
        script: str,
        fiction: bool,
        when: dt.datetime,
    ) -> None:
        count = max(1, round(len(passages) / PASSAGES_PER_RECORD))
        wanted = Counter(self.record_kinds.deal() for _ in range(count))
        side = rng.choice((Side.CHINESE, Side.CHINESE, Side.JAPANESE, Side.THIRD_COUNTRY))

        persons = self._bulk(Person, [self._person(rng, script, side, fiction, when) for _ in range(wanted["person"])])
        units = self._units(rng, side, when, wanted["unit"])
        locations = self._locations(rng, script, when, wanted["location"])
        events = self._events(rng, source, script, when, wanted["event"], locations)

        names: list[PersonName] = []
        for person in persons:
            forms = {person.name: NameKind.PRIMARY}
            if rng.random() < 0.4:
                forms.setdefault(person.name[0] + rng.choice(_TITLES), NameKind.TITLE)
            if rng.random() < 0.2:
                forms.setdefault("老" + person.name[0], NameKind.NICKNAME)
            names.extend(PersonName(person=person, name=n, kind=k, script=Script.HANS) for n, k in forms.items())
        self._bulk(PersonName, names)
        self._bulk(
            UnitAlias,
            [UnitAlias(unit=u, name=u.name.replace("第", "", 1)) for u in units if rng.random() < 0.3],
        )
        self._bulk(
            LocationAlias,
            [
                LocationAlias(location=loc, name=loc.name[:2] + "旧称", language="zh-Hans")
                for loc in locations
                if rng.random() < 0.2
            ],
        )
        person_pool = [(p.pk, p.slug) for p in persons] or list(self.pools["person"])
        unit_pool = [(u.pk, u.slug) for u in units] or list(self.pools["unit"])
        posts = self._posts(rng, when, person_pool, unit_pool)
        participations = self._participations(rng, when, events, person_pool, unit_pool)

        citations: list[Citation] = []
        for name, records in (("person", persons), ("unit", units), ("location", locations), ("event", events)):
            for record in records:
                for _ in range(rng.randint(1, 5)):
                    citations.append(self._citation(rng, passages, name, record.pk, record.slug, when))
            # Evidence from this source for records of earlier sources (a person in a novel and a history).
            pool = self.pools[name]
            for _ in range(len(records) // 4):
                if pool:
                    pk, slug = rng.choice(pool)
                    citations.append(self._citation(rng, passages, name, pk, slug, when))
        for name, records in (("post", posts), ("participation", participations)):
            for record in records:
                citations.append(self._citation(rng, passages, name, record.pk, record.slug, when))
        self._bulk(Citation, citations)

        for name, records in (("person", persons), ("unit", units), ("location", locations), ("event", events)):
            self.pools[name].extend((r.pk, r.slug) for r in records)

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
            description=_name(rng, self.corpus, script, rng.randint(8, 30)),
            marked_historical=fiction and rng.random() < 0.1,
            **self._curation(when),
        )
        self._hash("person", slug, name, person.side, person.birth, person.death, person.status)
        return person

    def _units(self, rng: random.Random, side: str, when: dt.datetime, count: int) -> list[Unit]:
        units: list[Unit] = []
        for _ in range(count):
            echelon = rng.choice(list(_ECHELON_NAMES))
            name = _ECHELON_NAMES[echelon].format(n=rng.randint(1, 200))
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
            kind = rng.choice(list(_PLACE_SUFFIXES))
            name = _name(rng, self.corpus, script, rng.randint(1, 2)) + _PLACE_SUFFIXES[kind]
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
                    title=_name(rng, self.corpus, script, rng.randint(4, 12)),
                    description=_name(rng, self.corpus, script, rng.randint(10, 40)),
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
                title = rng.choice(_TITLES)
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


def generate(
    *,
    passages: int,
    seed: int,
    corpus: SeedCorpus | None = None,
    seed_dir: Path | str | None = None,
    source_sizes: tuple[int, int] = DEFAULT_SOURCE_SIZES,
    using: str | None = None,
    progress: Callable[[str], None] | None = None,
    progress_every: int = 25,
) -> Summary:
    """Write a synthetic archive of `passages` passages, deterministic for `seed`, in one transaction.

    `progress` is called with a line of news after every `progress_every` sources.
    """
    corpus = corpus or load_corpus(seed_dir)
    using = using or router.db_for_write(Passage)
    started = time.perf_counter()
    writer = _Writer(seed=seed, corpus=corpus, using=using)
    plan_rng = random.Random(f"{seed}:plan")
    sizes = plan_sizes(plan_rng, passages, source_sizes)
    kinds = plan_kinds(plan_rng, len(sizes))
    if Source.objects.using(using).filter(slug__startswith=f"{writer.prefix}-").exists():
        raise ValueError(f"The database already holds a synthetic archive of seed {seed} ({writer.prefix}-…).")
    with transaction.atomic(using=using):
        for index, (kind, size) in enumerate(zip(kinds, sizes, strict=True)):
            writer.write_source(index, kind, size)
            if progress and (index + 1) % progress_every == 0:
                done = writer.summary.passages
                elapsed = time.perf_counter() - started
                progress(
                    f"{done:,} / {passages:,} passages, {index + 1} sources, "
                    f"{done / elapsed:,.0f} passages/s, peak RSS {peak_rss_mib():.0f} MiB"
                )
        # Citations went in without signals: the fiction flags are set in one pass.
        fiction.refresh_all(using)
    summary = writer.summary
    summary.checksum = writer.digest.hexdigest()
    summary.seconds = time.perf_counter() - started
    summary.peak_rss_mib = peak_rss_mib()
    return summary


def describe(summary: Summary) -> Iterable[str]:
    """Lines for a human: what was written, how fast, in how much memory."""
    yield (
        f"Wrote {summary.passages:,} passages in {summary.sources:,} sources in {summary.seconds:.1f} s "
        f"({summary.rate():,.0f} passages/s)."
    )
    for name, count in sorted(summary.counts.items()):
        yield f"  {name}: {count:,}"
    yield f"Checksum: {summary.checksum}"
    yield f"Peak RSS: {summary.peak_rss_mib:.0f} MiB"
