"""What the words a curator selected most likely name: a person, a unit or a place.

The cite dialog preselects "Evidence for" from this. A record whose name or
alias is the selection itself (folded: Traditional or Simplified, case) is
the strongest sign, read from the same snapshots of names the admin's search
uses; a name that contains the selection is weaker; failing both, the form
of the words (第74军, 挹江门, 唐司令) says what kind of name it is. None of
these: no guess, and the dialog keeps the kind the curator used last.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archive.search.keys import name_keys, normalise_query
from archive.search.query import MAX_ADMIN_QUERY_LENGTH, QueryError, clean_query
from archive.search.records import SCORE_PINYIN, Query
from archive.search.snapshot import snapshots
from archive.text.normalize import to_simplified

NAMED_KINDS = ("person", "unit", "location")
MAX_IDS = 5

# Endings of a name by its form, Simplified; a title used as a name is a person's.
_FORMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("person", ("司令", "司令官", "军长", "师长", "旅长", "团长", "营长", "连长", "参谋长", "委员长", "将军", "先生",
                "主任", "部长", "总司令", "大将", "中将", "少将", "大佐", "中佐", "少佐")),
    ("unit", ("军", "师", "旅", "团", "营", "连", "师团", "联队", "大队", "中队", "支队", "部队", "舰", "军团",
              "集团军", "纵队", "司令部")),
    ("location", ("门", "城", "港", "码头", "山", "江", "河", "路", "街", "县", "村", "镇", "关", "桥", "站", "寺",
                  "洲", "湖", "岛", "口", "场", "宫", "陵", "府", "省", "市")),
)


@dataclass(frozen=True)
class Guess:
    kind: str  # "" when nothing says
    ids: list[int] = field(default_factory=list)  # records whose name is the selection, for the dialog to offer


def by_form(words: str) -> str:
    """The kind of name the words' ending says, or "".

    A one-character ending needs a name of three characters or more: 渡江 is
    an act, not a river, while 第88师 and 煤炭港 are names.
    """
    simplified = to_simplified(words.strip())
    best = ("", 0)
    for kind, endings in _FORMS:
        for ending in endings:
            shortest = 3 if len(ending) == 1 else len(ending) + 1
            if simplified.endswith(ending) and len(simplified) >= shortest and len(ending) > best[1]:
                best = (kind, len(ending))
    return best[0]


def likely_kind(words: str) -> Guess:
    text = (words or "").strip()
    if not normalise_query(text):
        return Guess("")
    try:
        query = Query.of(clean_query(text, max_length=MAX_ADMIN_QUERY_LENGTH))
    except QueryError:
        return Guess("")
    found = snapshots(list(NAMED_KINDS), every_status=True)
    partial = ""
    for kind in NAMED_KINDS:
        exact: list[int] = []
        for record, match, _fictional in found[kind].matching(query):
            if match.score >= SCORE_PINYIN:
                continue  # a name that only sounds alike names something else
            if any(name_keys(name).key == query.key for name in (record.title, *record.aliases)):
                exact.append(record.pk)
            elif not partial:
                partial = kind
        if exact:
            return Guess(kind, sorted(exact)[:MAX_IDS])
    return Guess(by_form(text) or partial)
