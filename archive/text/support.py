"""Whether a cited quote says a statement's value: the rules, as pure functions.

An account is *stated* when one of its cited quotes says its value, read after
Traditional/Simplified folding:

* a place: one of the place's names or aliases occurs in a quote;
* a person or unit in a role: the record's name form occurs in a quote that
  also names the role (`ROLE_WORDS`); an inferred role needs the name alone;
* a post: the holder's name form and the title occur in one quote (the
  title alone, with the name, when the account is inferred);
* a date or time: the account's `as_written` is the passage's own words
  (pieces joined by an ellipsis), each found in a cited quote, and the
  account's bounds hold the time those words give (`chinese_time`).

Each function returns the gaps it finds (an empty list: the value is said).
A gap names the quote that falls short (empty when there is none) and the
words missing from it. `archive.services.support` gathers the names from the
records; the build of the shipped collection calls these on its YAML.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .chinese_time import Span, contains, contradicts, readings
from .normalize import fold

__all__ = [
    "ROLE_WORDS",
    "Gap",
    "bounds_contradiction",
    "date_gaps",
    "name_forms",
    "names_in",
    "pieces",
    "place_gaps",
    "role_gaps",
    "title_gaps",
    "words_gaps",
]

# The words by which a quote names a role (folded, Simplified). A participant is named by
# being there: its name in a quote of the event says it.
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "participant": (),
    "commander": ("指挥", "率", "司令", "军长", "师长", "旅长", "团长", "营长", "连长", "长官", "总队长", "命令",
                  "下令", "带领", "带着", "统帅", "负责", "部"),
    "signatory": ("签", "署名", "画押"),
    "organiser": ("召集", "主持", "召开", "组织", "安排", "下令", "命令", "电令", "叫人", "派", "负责", "决定",
                  "下发", "传达", "部署"),
    "witness": ("回忆", "记述", "记载", "写道", "看到", "看见", "目睹", "亲历", "见到", "只见", "听到", "忆", "记得",
                "日记", "陷都血泪录", "突围记", "说"),
    "killed": ("殉国", "阵亡", "战死", "牺牲", "遇难", "身亡", "被杀", "死", "毙", "击中", "中弹"),
    "wounded": ("负伤", "受伤", "伤"),
    "escaped": ("突围", "脱险", "逃", "渡江", "过江", "渡过", "撤", "脱身", "冲出", "离开", "到达", "抵达", "北岸",
                "上船", "登上", "脱离", "出城", "跑出", "漂"),
    "captured": ("俘", "被捕", "被抓", "落入", "抓", "拉去"),
    "target": ("射击", "开枪", "开火", "枪击", "扫射", "炮击", "轰炸", "攻击", "阻拦", "拦截", "打", "击", "被炸",
               "遭"),
}
ELLIPSIS = re.compile(r"\s*(?:……|…|\.\.\.)\s*")
# Quotation marks and spaces inside a name (英国“瓢虫”号) do not make it another name.
_MARKS = re.compile(r"[“”‘’「」『』《》〈〉（）()\"'·・\s]")


@dataclass(frozen=True)
class Gap:
    """Why a value is not said: the quote that falls short ("" when none), the missing words, and why."""

    quote: str
    missing: tuple[str, ...]
    message: str


def _plain(text: str) -> str:
    return _MARKS.sub("", fold(text))


def name_forms(names: Iterable[str]) -> list[str]:
    """The forms a name is written in: folded, and 第51师 also as 51师."""
    forms: list[str] = []
    for name in names:
        folded = _plain(name)
        if not folded:
            continue
        forms.append(folded)
        if folded.startswith("第") and len(folded) > 2:
            forms.append(folded[1:])
    return list(dict.fromkeys(forms))


# A numbered unit named jointly with others: 第11和第18兩個師團 names 第11師團 and 第18師團.
_NUMBERED = re.compile(r"第(\d+)(\D+)")


def _jointly(form: str) -> re.Pattern[str] | None:
    match = _NUMBERED.fullmatch(form)
    if match is None:
        return None
    number, kind = match.groups()
    return re.compile(rf"(?:第|[和、与及]第?){number}(?:[和、与及]第?\d+)*(?:两个|三个|个)?{re.escape(kind)}")


def names_in(quote: str, names: Iterable[str]) -> bool:
    """One of `names` (any script) occurs in `quote`, alone or in a list of numbered units."""
    plain = _plain(quote)
    forms = name_forms(names)
    if any(form in plain for form in forms):
        return True
    patterns = (_jointly(form) for form in forms)
    return any(pattern.search(plain) for pattern in patterns if pattern is not None)


def _shown(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for n in names if n.strip()))


def place_gaps(quotes: Sequence[str], names: Sequence[str]) -> list[Gap]:
    """A place is said when one of its names or aliases occurs in a quote."""
    if not quotes:
        return [Gap("", _shown(names), "no quote is cited for this place")]
    if any(names_in(quote, names) for quote in quotes):
        return []
    return [Gap(quote, _shown(names), "the quote does not name the place") for quote in quotes]


def _words_in(quote: str, words: Iterable[str]) -> bool:
    plain = _plain(quote)
    return any(_plain(word) in plain for word in words if _plain(word))


def role_gaps(quotes: Sequence[str], names: Sequence[str], role: str, *, inferred: bool = False) -> list[Gap]:
    """A role is said when a quote names the person or unit and the role; an inferred one needs the name."""
    if not quotes:
        return [Gap("", _shown(names), "no quote is cited for this role")]
    naming = [quote for quote in quotes if names_in(quote, names)]
    if not naming:
        return [Gap(quote, _shown(names), "the quote does not name the person or unit") for quote in quotes]
    words = ROLE_WORDS.get(role, ())
    if inferred or not words or any(_words_in(quote, words) for quote in naming):
        return []
    return [Gap(quote, words, f"the quote does not say the role “{role}”") for quote in naming]


def title_gaps(quotes: Sequence[str], names: Sequence[str], title: str, *, inferred: bool = False) -> list[Gap]:
    """A post is said when one quote names its holder and its title; an inferred one needs the name."""
    if not quotes:
        return [Gap("", (*_shown(names), title), "no quote is cited for this post")]
    naming = [quote for quote in quotes if names_in(quote, names)]
    if not naming:
        return [Gap(quote, _shown(names), "the quote does not name the holder of the post") for quote in quotes]
    if inferred or any(_words_in(quote, [title]) for quote in naming):
        return []
    return [Gap(quote, (title,), "the quote does not give the title") for quote in naming]


def pieces(as_written: str) -> list[str]:
    """The passage's own words of an account: pieces joined by an ellipsis."""
    return [piece for piece in ELLIPSIS.split(as_written.strip()) if piece]


def words_gaps(quotes: Sequence[str], as_written: str) -> list[Gap]:
    """Every piece of `as_written` is found, word for word (after folding), in one of the quotes."""
    if not as_written.strip():
        return [Gap("", (), "the account does not give the words that state it (as written)")]
    folded = [fold(quote) for quote in quotes]
    missing = tuple(piece for piece in pieces(as_written) if not any(fold(piece) in quote for quote in folded))
    if not missing:
        return []
    return [Gap(" … ".join(quotes), missing, "the words as written are not in the cited quotes")]


def _day_of(value_day: dt.date | None, earliest: dt.datetime) -> dt.date:
    return value_day or earliest.date()


_NIGHT = ("夜", "凌晨", "零点", "拂晓", "黎明", "天亮")


def _readings(as_written: str, day: dt.date, tz: dt.tzinfo | None) -> list[Span]:
    """The readings of the words on the account's day; words of the night with no date of their own
    (到了后半夜) may also belong to the night that began the evening before."""
    words = "……".join(pieces(as_written))
    spans = readings(words, day, tz)
    if spans and any(word in fold(words) for word in _NIGHT) and not re.search(r"\d+[日号]", words):
        spans += readings(words, day - dt.timedelta(days=1), tz)
    return spans


def bounds_contradiction(
    as_written: str, value_day: dt.date | None, earliest: dt.datetime | None, latest: dt.datetime | None
) -> Gap | None:
    """The bounds share no moment with any reading of the account's own words."""
    if earliest is None or latest is None:
        return None
    spans = _readings(as_written, _day_of(value_day, earliest), earliest.tzinfo)
    if spans and all(contradicts(earliest, latest, span) for span in spans):
        return Gap(as_written, (), f"the bounds {earliest:%Y-%m-%d %H:%M}–{latest:%Y-%m-%d %H:%M} contradict "
                                   f"the words “{as_written}” ({_describe(spans)})")
    return None


def _describe(spans: Sequence[Span]) -> str:
    return " or ".join(f"{s.earliest:%Y-%m-%d %H:%M}–{s.latest:%H:%M}" for s in spans)


def date_gaps(
    quotes: Sequence[str],
    as_written: str,
    *,
    value_day: dt.date | None = None,
    earliest: dt.datetime | None = None,
    latest: dt.datetime | None = None,
) -> list[Gap]:
    """A date is said when its words are the quotes' and its bounds hold the time they give."""
    if not quotes:
        return [Gap("", (), "no quote is cited for this date")]
    gaps = words_gaps(quotes, as_written)
    if gaps or earliest is None or latest is None:
        return gaps
    spans = _readings(as_written, _day_of(value_day, earliest), earliest.tzinfo)
    if spans and not any(contains(earliest, latest, span) for span in spans):
        return [Gap(as_written, (), f"the bounds {earliest:%Y-%m-%d %H:%M}–{latest:%Y-%m-%d %H:%M} do not hold "
                                   f"the time the words give ({_describe(spans)})")]
    return []
