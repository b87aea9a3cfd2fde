"""Writing the synthetic archive, one source and the records it is evidence for at a time.

Rows are written with `bulk_create` and `archive.importing.bulk` (COPY on
PostgreSQL) plus bulk history, source by source: only one source's rows are
held in memory at a time, so memory stays flat as the archive grows. The
rows of each record kind are built by `rows.RowWriter`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections import Counter

from archive.importing.bulk import insert_passages
from archive.models import (
    FICTION_KINDS,
    Citation,
    Language,
    LocationAlias,
    NameKind,
    Passage,
    PassageRole,
    Person,
    PersonName,
    Script,
    Side,
    Source,
    SourceKind,
    UnitAlias,
)
from archive.models.sources import PRIMARY_KINDS, SECONDARY_KINDS
from archive.text.segment import Segment

from .corpus import passage_texts, random_name
from .rows import REASON, RowWriter
from .vocabulary import BASE_TIME, KIND_TITLES, TITLES

PASSAGES_PER_RECORD = 20


class Writer(RowWriter):
    """Writes one source after another, and the records each is evidence for."""

    # -- one source

    def write_source(self, index: int, kind: str, size: int) -> None:
        rng = random.Random(f"{self.seed}:source:{index}")
        when = BASE_TIME + dt.timedelta(minutes=index)
        fiction = kind in FICTION_KINDS
        script = Language.ZH_HANT if kind == SourceKind.ALTERNATE_HISTORY or rng.random() < 0.05 else Language.ZH_HANS
        texts = passage_texts(rng, self.corpus, script, size)
        roles = [PassageRole.BODY] * size
        quotes: list[int | None] = [None] * size
        if kind == SourceKind.WEB_NOVEL and size > 1:
            title = random_name(rng, self.corpus, script, 6)
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
            title=f"{random_name(rng, self.corpus, script, rng.randint(3, 8))}{KIND_TITLES[SourceKind(kind)]}",
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
                forms.setdefault(person.name[0] + rng.choice(TITLES), NameKind.TITLE)
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
