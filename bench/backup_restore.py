"""What backing up, restoring and releasing cost: `export_collection`, `restore` and `release`, timed.

Loads the shipped collection into a throwaway SQLite file, then times
`export_collection` into a new directory (the collection and `backup/`,
every row), `restore` of that export into a second, empty and migrated
SQLite file (every row inserted in one transaction, the keys checked, the
search index rebuilt), and `release` on the first (the snapshot of
everything published, its files and checksums). With ``--passages N`` it then adds a synthetic
archive of about N passages (`bench.synthetic`, the generator of
bench/stages/generate.py) to the same database and times the three again.
Each step is timed once (a second export, restore or release is not the
same work); the row count of the export and its size on disk are printed.

Usage:
    .venv/bin/python bench/backup_restore.py [--passages N] [--no-write]

Prints the figures and writes them to BENCHMARKS.md between the markers
``<!-- backup-restore -->`` and ``<!-- /backup-restore -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- backup-restore -->", "<!-- /backup-restore -->"
BASE_URL = "http://127.0.0.1"
RESTORED = ("restored-1", "restored-2")


def _setup(work: Path) -> None:
    os.environ.update(
        {
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "DEBUG": "1",
            "SECRET_KEY": "bench-backup-restore",
            "API_CACHE_SECONDS": "0",
            "CACHE_DIR": str(work / "cache"),
            "ALLOWED_HOSTS": "127.0.0.1",
            "ENV_FILE": "",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    # Each restore goes into an empty database of its own, as after a disaster.
    for alias in RESTORED:
        settings.DATABASES[alias] = {**settings.DATABASES["default"], "NAME": str(work / f"{alias}.sqlite3")}
    call_command("migrate", verbosity=0)
    call_command("load_collection", verbosity=0)


def _timed(step: object) -> float:
    started = time.perf_counter()
    step()  # type: ignore[operator]
    return time.perf_counter() - started


def _size(directory: Path) -> float:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file()) / 2**20


def measure(label: str, work: Path, into: str) -> dict[str, object]:
    """Export, restore (into the database ``into``) and release the archive as it stands.

    Seconds of each, rows and MiB of the export.
    """
    from django.core.management import call_command

    from archive.models import Passage, Release

    target = work / f"export-{label}"
    exported = _timed(lambda: call_command("export_collection", str(target), verbosity=0))
    manifest = json.loads((target / "backup" / "manifest.json").read_text(encoding="utf-8"))
    files = manifest["files"] if isinstance(manifest, dict) else manifest
    rows = sum(int(item.get("rows", 0)) for item in files if isinstance(item, dict))
    call_command("migrate", database=into, verbosity=0)
    restored = _timed(lambda: call_command("restore", str(target), "--database", into, verbosity=0))
    released = _timed(lambda: call_command("release", "--by", "bench", "--base-url", BASE_URL, verbosity=0))
    return {
        "archive": label,
        "passages": Passage.objects.count(),
        "rows": rows,
        "mib": _size(target),
        "export": exported,
        "restore": restored,
        "release": released,
        "release_number": Release.objects.order_by("-number").values_list("number", flat=True).first(),
    }


def section(results: list[dict[str, object]]) -> str:
    lines = [
        BEGIN,
        "## Backing up, restoring and releasing",
        "",
        "`bench/backup_restore.py`: SQLite, one run each: `export_collection` (collection and `backup/`), "
        "`restore` of that export into an empty, migrated database, then `release` (all its files). The larger "
        "archive adds synthetic sources, passages and records (`bench.synthetic`) to the shipped collection.",
        "",
        "| archive | passages | rows exported | export size | export | restore | release |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['archive']} | {r['passages']:,} | {r['rows']:,} | {r['mib']:.1f} MiB | {r['export']:.2f} s | "
            f"{r['restore']:.2f} s | {r['release']:.2f} s |"
        )
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=0,
                        help="also time an archive grown by about this many synthetic passages")
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="backup-restore-") as tmp:
        work = Path(tmp)
        _setup(work)
        results = [measure("shipped collection", work, RESTORED[0])]
        if args.passages:
            from bench import synthetic

            synthetic.generate(passages=args.passages, seed=1, corpus=synthetic.load_corpus())
            results.append(measure(f"shipped + {args.passages:,} synthetic passages", work, RESTORED[1]))
    text = section(results)
    print(text)
    if not args.no_write:
        write_report(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
