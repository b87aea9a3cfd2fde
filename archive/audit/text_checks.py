"""The audit's checks that read the sources' words: one small function each, registered like the others.

They compare what the records say with the text of the passages: a curator's
text that repeats a phrase only fiction has, a passage whose words changed
under its citations, history nobody cites or explains, names the history uses
that no record has, and an inference ranked over what a source states.
Imported by `archive.audit.runner`, which makes them part of `CHECKS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import ahocorasick  # type: ignore[import-not-found]  # a C extension without type information
from django.db import models
from django.db.models import Exists, OuterRef

from archive.models import (
    Basis,
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    PassageRole,
    Person,
    PersonName,
    Post,
    Rank,
    Status,
    Unit,
    UnitAlias,
)
from archive.text.normalize import fold
from archive.text.segment import sha256_text

from .checks import APPROVED, Seen, _published_statements, accounts_by_field, check
from .findings import Level

# --------------------------------------------------------------------------- fiction's phrases

# A phrase is this many characters of letters, digits or Chinese, after folding; a shorter clause
# (between two punctuation marks) copied whole counts from this many: 直到翌日.
PHRASE = 6
CLAUSE = 4
_WORDS = re.compile(r"\w+")

# The free text of a historical record, by model: what a curator writes about it.
FREE_TEXT: dict[type[models.Model], tuple[str, ...]] = {
    Person: ("description",),
    Unit: ("description",),
    Location: ("description",),
    Event: ("description", "date_text"),
    Post: ("note",),
    Participation: ("note",),
}


@dataclass(frozen=True)
class FreeText:
    record: models.Model
    field: str
    text: str
    folded: str


def grams(folded: str, size: int = PHRASE) -> Iterator[tuple[int, str]]:
    """Every run of `size` word characters of a folded text, with its position (punctuation breaks a phrase),
    and every shorter clause of at least CLAUSE characters whole."""
    for run in _WORDS.finditer(folded):
        word = run.group(0)
        if CLAUSE <= len(word) < size:
            yield run.start(), word
        for i in range(len(word) - size + 1):
            yield run.start() + i, word[i : i + size]


def historical_free_texts() -> Iterator[FreeText]:
    """Descriptions, date texts, notes and claims of published historical records, and of their accounts."""
    for model, fields in FREE_TEXT.items():
        for record in model.objects.filter(status=APPROVED, fictional=False).order_by("slug"):  # type: ignore[attr-defined]  # every model of FREE_TEXT is curated
            for name in fields:
                if text := getattr(record, name):
                    yield FreeText(record, name, text, fold(text))
    claims = Citation.objects.filter(status=APPROVED, passage__source__is_fiction=False).order_by("slug")
    for citation in claims.exclude(claim=""):
        yield FreeText(citation, "claim", citation.claim, fold(citation.claim))
    # An account some history gives, or that nobody cites, is not fiction's: its words are the archive's.
    historical = Exists(Citation.objects.filter(statements=OuterRef("pk"), passage__source__is_fiction=False))
    uncited = ~Exists(Citation.objects.filter(statements=OuterRef("pk")))
    for statement in _published_statements().filter(historical | uncited).order_by("slug"):
        target = statement.target
        if target is None or getattr(target, "fictional", False):
            continue
        for name in ("as_written", "note", "reasoning"):
            if text := getattr(statement, name):
                yield FreeText(statement, name, text, fold(text))


def phrase_sources(phrases: Iterable[str]) -> tuple[dict[str, int], set[str]]:
    """For each phrase: the first fiction passage that has it, and the set of phrases some other passage has.

    One Aho–Corasick pass over every passage (folded), so the cost grows with
    the archive's text, not with the number of phrases times passages.
    """
    automaton = ahocorasick.Automaton()
    for phrase in set(phrases):
        automaton.add_word(phrase, phrase)
    in_fiction: dict[str, int] = {}
    in_history: set[str] = set()
    if not len(automaton):
        return in_fiction, in_history
    automaton.make_automaton()
    rows = Passage.objects.order_by("pk").values_list("pk", "text", "source__is_fiction")
    for pk, text, is_fiction in rows.iterator(chunk_size=2000):
        for _end, phrase in automaton.iter(fold(text)):
            if is_fiction:
                in_fiction.setdefault(phrase, pk)
            else:
                in_history.add(phrase)
    return in_fiction, in_history


def _spans(found: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping phrases merged into the longest runs they make, each with its first phrase."""
    spans: list[tuple[int, int, str]] = []
    for start, phrase in sorted(found):
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], start + len(phrase)), spans[-1][2])
        else:
            spans.append((start, start + len(phrase), phrase))
    return spans


@check("fiction-phrase", Level.ERROR, "a historical record's own text shares a phrase with fiction that no history has")
def fiction_phrase() -> Iterator[Seen]:
    """Six characters or more (after folding) of a curator's text found in a fiction passage, cited or not;
    or a whole clause of four or five (直到翌日 between a semicolon and the end).

    A phrase the history also has is the history's words, which a novel may
    retell: only a phrase no non-fiction passage holds is fiction's own.
    """
    texts = list(historical_free_texts())
    found = {text: list(grams(text.folded)) for text in texts}
    in_fiction, in_history = phrase_sources(phrase for entries in found.values() for _, phrase in entries)
    fictions = {p.pk: p for p in Passage.objects.filter(pk__in=set(in_fiction.values())).select_related("source")}
    for text, entries in found.items():
        own = [(at, phrase) for at, phrase in entries if phrase in in_fiction and phrase not in in_history]
        if not own:
            continue
        for start, end, phrase in _spans(own):
            passage = fictions[in_fiction[phrase]]
            words = text.folded[start:end]
            yield Seen(
                text.record,
                f"its {text.field} has «{words}», which fiction has ({passage}) and no history passage",
                [passage],
                field=text.field,
                quote=words,
            )


# --------------------------------------------------------------------------- passages under citations


@check("passage-text-changed", Level.ERROR, "a cited passage whose words are not those its citations were made on")
def passage_text_changed() -> Iterator[Seen]:
    """A passage's text that no longer has its stored SHA-256, or a quote that is not at its offsets.

    The database refuses such an UPDATE (`archive.db.cited_passages`); this
    finds one made around it (a restored dump, a trigger dropped).
    """
    yield from changed_passages()


def changed_passages() -> Iterator[Seen]:
    """What `passage-text-changed` finds; `manage.py check --database` asks it too (`archive.checks`)."""
    rows = Passage.objects.filter(Exists(Citation.objects.filter(passage=OuterRef("pk"))))
    changed = [pk for pk, text, sha in rows.values_list("pk", "text", "sha256").iterator() if sha256_text(text) != sha]
    for passage in Passage.objects.filter(pk__in=changed).select_related("source").order_by("source__slug", "seq"):
        yield Seen(passage, f"{passage}: its text is not the text its SHA-256 was taken of", [passage], field="text")
    citations = Citation.objects.select_related("passage__source").order_by("passage__source__slug", "passage__seq")
    for citation in citations.iterator(chunk_size=2000):
        there = citation.passage.text[citation.start : citation.end]
        if there != citation.quote:
            yield Seen(
                citation,
                f"its quote «{citation.quote}» is not at {citation.start}–{citation.end} of {citation.passage}, "
                f"which reads «{there}» there",
                [citation.passage],
                field="quote",
                quote=citation.quote,
            )


# --------------------------------------------------------------------------- the history's coverage


def history_passages() -> models.QuerySet[Passage]:
    """Passages of published non-fiction sources that carry the text (not a site's boilerplate)."""
    return Passage.objects.filter(source__status=APPROVED, source__is_fiction=False).exclude(
        role=PassageRole.BOILERPLATE
    )


@check("uncited-passage", Level.WARNING, "a history passage that no approved citation rests on and no note explains")
def uncited_passage() -> Iterator[Seen]:
    """A curator explains a passage left uncited with a note on model `passage`, record `<source>-<seq>`."""
    cited = Citation.objects.filter(status=APPROVED, passage=OuterRef("pk"))
    for passage in history_passages().exclude(Exists(cited)).select_related("source").order_by("source__slug", "seq"):
        message = f"{passage} is neither cited nor explained"
        yield Seen(passage, message, [passage], field="text", quote=passage.text[:40])


# The names a history gives places and units by their kind (after folding): a gate, a hill, a town,
# a bridge, a pier or harbour, a road; an army or a division by its number.
_PLACE = re.compile(
    r"([\u3400-\u9fff]{1,3}?)(门|山|镇|桥|码头|港|[东西南北中]?路)(?![门山镇桥港码]|[东西南北中]?路)"
)
# A Japanese division or an army corps keeps its 团 (第16师团, 第2军团): it is that name, not 第16师.
_UNIT = re.compile(r"(?:第(?:\d+|[一二三四五六七八九十百]+)|(?<![\d第])\d+)(?:军|师)团?(?![长部])")
# Characters no place name here holds: words of motion and position, pronouns, particles. A candidate
# keeps what follows the last of them (从太平门 is 太平门; 江边的路 is no name).
_NOT_IN_A_NAME = re.compile(
    "[在从把到的了冲塞向将和与及出进入经往由被这那至达近于对沿过"
    "外内侧下上后前守攻占抵离是有为也都还就又已着想会改亮开走去回来自以而时望卫边]"
)
# Common nouns that end like a place name.
_COMMON = (
    "城门", "大门", "后门", "前门", "铁门", "部门", "专门", "江山", "高山", "火山",
    "木桥", "浮桥", "铁桥", "公路", "马路", "道路", "血路", "生路", "退路",
)


def _place_candidates(folded: str) -> Iterator[str]:
    for match in _PLACE.finditer(folded):
        body, kind = match.group(1), match.group(2)
        body = _NOT_IN_A_NAME.split(body)[-1]
        name = body + kind
        # A one-character name is a hill's (汤山, 钟山); elsewhere it is a common word (铁门, 马路).
        if len(body) >= (1 if kind == "山" else 2) and not name.endswith(_COMMON):
            yield name


def unrecorded_names(folded: str, known: set[str]) -> list[str]:
    """Names of places and units a folded text uses that no known name (folded) is, holds or ends."""
    found: list[str] = []
    for name in [*_place_candidates(folded), *(m.group(0) for m in _UNIT.finditer(folded))]:
        bare = name[1:] if name.startswith("第") else name
        if any(form in known for form in (name, bare, "第" + bare)):
            continue
        if any(name.endswith(form) for form in known if len(form) >= 2):
            continue
        if name not in found:
            found.append(name)
    return found


def known_names() -> set[str]:
    """The folded names and aliases of every person, unit and place not rejected."""
    live = ~models.Q(status=Status.REJECTED)
    rows: list[models.QuerySet] = [
        Person.objects.filter(live),
        Unit.objects.filter(live),
        Location.objects.filter(live),
        PersonName.objects.exclude(person__status=Status.REJECTED),
        UnitAlias.objects.exclude(unit__status=Status.REJECTED),
        LocationAlias.objects.exclude(location__status=Status.REJECTED),
    ]
    names = {fold(name) for query in rows for name in query.values_list("name", flat=True)}
    return {name for name in names if name}


@check("unrecorded-name", Level.WARNING, "a place or unit the history names that no record has")
def unrecorded_name() -> Iterator[Seen]:
    """Gates, hills, towns, bridges, piers and roads (X门, X山, X镇, X桥, X码头, X港, X路) and armies and
    divisions by number (第N军, N师) that a history passage names, matched against every name and alias of
    the archive's people, units and places.

    The suggested mentions find the names that are records; this finds the
    ones that are not. A name is known when a record's name or alias is it,
    or ends it (汤山 in 近汤山); words that begin no name (在, 从 …) are taken
    off the front, and common nouns (城门, 公路) are not names.
    """
    known = known_names()
    for passage in history_passages().select_related("source").order_by("source__slug", "seq").iterator(
        chunk_size=2000
    ):
        missing = unrecorded_names(fold(passage.text), known)
        if missing:
            names = "、".join(missing)
            yield Seen(passage, f"{passage} names {names}, which no record has", [passage], field="text", quote=names)


# --------------------------------------------------------------------------- accounts


@check("inferred-over-stated", Level.ERROR, "an inferred account ranked above a stated account of the same field")
def inferred_over_stated() -> Iterator[Seen]:
    """What a source says outranks what the archive infers: an inference is never preferred over a statement."""
    for accounts in accounts_by_field():
        stated = [s for s in accounts if s.basis == Basis.STATED and s.rank != Rank.DEPRECATED]
        for account in accounts:
            if account.basis == Basis.INFERRED and account.rank == Rank.PREFERRED and stated:
                yield Seen(
                    account.target,
                    f"its {account.field} “{account.value}” ({account.slug}) is inferred and preferred over the "
                    f"stated “{stated[0].value}” ({stated[0].slug})",
                    [],
                    field=account.field,
                    quote=account.reasoning,
                )
