"""The source reader at scale: a page of a 10,000-passage source, and suggested mentions among 100,000 name forms.

Builds a throwaway SQLite archive: one source of 10,000 passages (about 60
characters each, one in three naming a record, one in two cited) and 25,000
persons with three more name forms each (100,000 name forms), then measures
through Django's test client, as a signed-in curator:

* the reader's page as it opens now (20 passages, citations folded, suggested
  mentions, coverage), at pages spread through the source, beside the same
  reader with 100 passages a page, the page size it had before;
* a filtered page (uncited passages), words searched in the source, a jump;
* the suggestions of one page of passages with the Aho–Corasick name index
  (`archive.reading.mentions`), beside a loop of `str.find` over every
  name form, the baseline, on the same passages in the same run;
* building the name index once (a new worker's first page).

Usage:
    .venv/bin/python bench/reader_page.py [--passages 10000] [--names 100000] [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- reader-page -->`` and ``<!-- /reader-page -->``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- reader-page -->", "<!-- /reader-page -->"
ROUNDS = 5
# Common characters for the filler text and the generated names.
FILLER = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种"
    "面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本"
    "去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比"
    "或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总"
    "次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做"
    "必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权"
    "收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信"
    "马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连"
    "断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存"
    "候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严"
)


def _setup(work: Path) -> None:
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "DEBUG": "1",
            "SECRET_KEY": "bench-reader-page",
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


def _name(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(FILLER) for _ in range(length))


def build(passages: int, names: int, seed: int = 1937) -> dict[str, Any]:
    """The synthetic source, its citations and the persons named in it; bulk writes, as the generator does."""
    from django.contrib.auth.models import User
    from django.db import transaction

    from archive.models import Citation, Passage, Person, PersonName, Source, Status
    from archive.search import index
    from archive.text.normalize import search_key

    rng = random.Random(seed)
    curator = User.objects.create_superuser("bench-curator", password="x")
    people = names // 4
    with transaction.atomic():
        persons = Person.objects.bulk_create(
            Person(slug=f"p{n}", name=_name(rng, 3), status=Status.APPROVED, created_by=curator)
            for n in range(people)
        )
        PersonName.objects.bulk_create(
            PersonName(person=person, name=_name(rng, 2 + k % 3) + "将军"[: k % 2 + 1], kind="alias")
            for person in persons
            for k in range(3)
        )
        texts = []
        for n in range(passages):
            text = _name(rng, 60)
            if n % 3 == 0:
                named = rng.choice(persons)
                text = text[:20] + named.name + text[20:]
            texts.append(text + "。")
        full = "\n\n".join(texts)
        source = Source.objects.bulk_create([
            Source(slug="bench-history", title="Bench history", kind="history", language="zh-Hans",
                   text=full, length=len(full), sha256="0" * 64, file_name="bench.txt", status=Status.APPROVED,
                   created_by=curator)
        ])[0]
        offset = 0
        rows = []
        for seq, text in enumerate(texts, start=1):
            end = offset + len(text)
            rows.append(Passage(source=source, seq=seq, text=text, start=offset, end=end, sha256="0" * 64))
            offset += len(text) + 2
        Passage.objects.bulk_create(rows, batch_size=2000)
        cited = []
        for passage in Passage.objects.filter(source=source, seq__in=range(1, passages + 1, 2)).order_by("seq"):
            quote = passage.text[5:12]
            cited.append(
                Citation(
                    passage=passage, quote=quote, start=5, end=12, claim="says so", person=rng.choice(persons),
                    slug=f"c{passage.seq}", status=Status.APPROVED if passage.seq % 4 == 1 else Status.DRAFT,
                    created_by=curator, folded=search_key(quote),
                )
            )
        Citation.objects.bulk_create(cited, batch_size=2000)
    index.rebuild()
    return {"source": source, "user": curator, "forms": PersonName.objects.count() + len(persons)}


def _time(call: Any, rounds: int = ROUNDS) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def measure(built: dict[str, Any], passages: int) -> list[tuple[str, float, float, str]]:
    from django.test import Client
    from django.urls import reverse

    from archive.models import Passage, Person, PersonName
    from archive.reading import mentions
    from archive.search.keys import search_key_aligned
    from archive.text.mentions import usable_key

    source = built["source"]
    client = Client()
    client.force_login(built["user"])
    url = reverse("archive_curate:reader", args=[source.slug])
    rows: list[tuple[str, float, float, str]] = []

    mentions.clear()
    started = time.perf_counter()
    mentions.name_index()
    rows.append(("name index built (first page of a new worker)", (time.perf_counter() - started) * 1000, 0.0, ""))

    def page(query: str) -> None:
        response = client.get(url + query)
        assert response.status_code == 200, (query, response.status_code)

    last = passages // 20
    pages = [1, last // 4, last // 2, last]
    sizes = ((20, "reader page, 20 passages (now)"), (100, "reader page, 100 passages (the page size before)"))
    for size, _label in sizes:
        page(f"?page_size={size}&page=2")  # each size warmed once, so that neither pays the first counts
    for size, label in sizes:
        times = []
        for number in pages:
            path = f"?page_size={size}&page={min(number, passages // size)}"
            times.append(_time(lambda path=path: page(path), rounds=2)[0])
        times.sort()
        rows.append((label, statistics.median(times), times[-1], f"pages {', '.join(map(str, pages))}"))
    def after_a_citation() -> None:
        mentions._left.clear()  # a citation changes what is cited: the count of mentions left is taken again
        page("?page=7")

    def after_a_name() -> None:
        mentions.clear()  # a new name rebuilds the index and searches the source's text again
        page("?page=7")

    after_citation = _time(after_a_citation, rounds=3)
    after_name = _time(after_a_name, rounds=3)
    rows.append(("reader page just after a citation (mentions left counted again)", *after_citation, ""))
    rows.append(("reader page just after a new name (index rebuilt, text searched again)", *after_name, ""))
    rows.append(("uncited passages only", *_time(lambda: page("?cited=no&page=3")), ""))
    rows.append(("words searched in the source", *_time(lambda: page("?q=" + Person.objects.first().name[:2])), ""))  # type: ignore[union-attr]
    jump = client.get(url + f"?seq={passages - 7}")
    assert jump.status_code == 302
    rows.append(("jump to a passage (redirect)", *_time(lambda: client.get(url + f"?seq={passages - 7}")), ""))

    batch = list(Passage.objects.filter(source=source).order_by("seq").values_list("pk", "text")[1000:1020])
    suggest = _time(lambda: mentions.suggestions(batch), rounds=20)
    rows.append(("suggestions of a page (20 passages), Aho–Corasick", *suggest, f"{built['forms']:,} name forms"))
    names = [*Person.objects.values_list("name", flat=True), *PersonName.objects.values_list("name", flat=True)]
    keys = [key for key in map(usable_key, names) if key]

    def naive() -> int:
        found = 0
        for _pk, text in batch:
            key, _origin = search_key_aligned(text)
            for name in keys:
                if key.find(name) >= 0:
                    found += 1
        return found

    rows.append(("suggestions of a page, str.find over every name (baseline)", *_time(naive, rounds=3), ""))
    return rows


def section(rows: list[tuple[str, float, float, str]], passages: int, forms: int) -> str:
    lines = [
        BEGIN,
        "## The source reader at scale",
        "",
        f"`bench/reader_page.py`: one source of {passages:,} passages, {forms:,} name forms of persons (SQLite, "
        "test client, a signed-in curator). Each page includes the folded citation counts, the suggested mentions "
        "of its passages and the source's coverage (passages, characters, mentions left). The baselines are "
        "measured in the same run: the same reader at 100 passages a page (the page size it had before), and "
        "a `str.find` loop over every name form for the suggestions.",
        "",
        "| what | p50 ms | max / p95 ms | note |",
        "|---|---|---|---|",
    ]
    for name, p50, p95, note in rows:
        lines.append(f"| {name} | {p50:.1f} | {p95:.1f} | {note} |")
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--names", type=int, default=100_000)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reader-page-") as tmp:
        _setup(Path(tmp))
        built = build(args.passages, args.names)
        rows = measure(built, args.passages)
    text = section(rows, args.passages, built["forms"])
    print(text)
    if not args.no_write:
        write_report(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
