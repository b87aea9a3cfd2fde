"""What the generator learns from the seed texts, and the passage text and names it splices from them.

The seeds are read at run time, never copied into code: text is spliced
from short runs of them, so the character frequencies, the common two- and
three-character words and the passage lengths are those of the real texts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from archive.models import Language
from archive.text.normalize import is_han, to_simplified


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


def random_name(rng: random.Random, corpus: SeedCorpus, script: str, size: int) -> str:
    han = corpus.han[script]
    return "".join(rng.choice(han) for _ in range(size))
