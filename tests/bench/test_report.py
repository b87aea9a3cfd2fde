"""The benchmark report keeps the sections other scripts write into BENCHMARKS.md, and writes the figures."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.figures import Figure, Run
from bench.report import marked_sections, write_report

SECTION = (
    "<!-- concurrent-saves -->\n## Concurrent saves\n\n| curators | saves/s |\n|---|---|\n| 16 | 120 |\n"
    "<!-- /concurrent-saves -->"
)
OTHER = "<!-- cache-memory -->\n## Cache memory\n\nflat at 40 MiB\n<!-- /cache-memory -->"


def _run(tmp_path: Path) -> Run:
    args = argparse.Namespace(
        scale=2000, seed=1, supplement=None, markdown=str(tmp_path / "BENCHMARKS.md"), json=str(tmp_path / "r.json")
    )
    run = Run(args)
    run.add(Figure("import: passages/s", 5000.0, "passages/s", "row by row", 100.0, "higher", target="ratio ≥ 30×",
                   met=True, notes="both rolled back"))
    run.finished = True
    return run


def test_marked_sections_are_found_whole_and_in_order() -> None:
    text = f"# Benchmarks\n\n{SECTION}\n\ntext between\n\n{OTHER}\n\n<!-- unclosed -->\n"
    assert marked_sections(text) == [SECTION, OTHER]


def test_a_rewrite_keeps_the_marked_sections_and_replaces_the_rest(tmp_path: Path) -> None:
    report = tmp_path / "BENCHMARKS.md"
    report.write_text(f"# Benchmarks\n\nold figures\n\n{SECTION}\n\nmore old text\n\n{OTHER}\n", encoding="utf-8")
    write_report(_run(tmp_path))
    text = report.read_text(encoding="utf-8")
    assert "old figures" not in text and "more old text" not in text
    assert "| import: passages/s | 5,000 passages/s | 100 passages/s | 50.00× | ratio ≥ 30× | yes |" in text
    assert text.count(SECTION) == 1 and text.count(OTHER) == 1
    assert text.index(SECTION) < text.index(OTHER)
    write_report(_run(tmp_path))  # again: the sections neither vanish nor double
    again = report.read_text(encoding="utf-8")
    assert again.count(SECTION) == 1 and again.count(OTHER) == 1
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert results[0]["name"] == "import: passages/s" and results[0]["ratio"] == 50.0


def test_a_first_report_needs_no_earlier_file(tmp_path: Path) -> None:
    write_report(_run(tmp_path))
    assert (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8").startswith("# Benchmarks\n")


def test_every_kind_of_api_document_has_its_limits_written(tmp_path: Path) -> None:
    run = _run(tmp_path)
    for name in ("API units page (page_size=50), response cache off: p50 latency", "API citation detail: p50 latency"):
        run.add(Figure(name, 30.0, "ms", "one SQL statement", 10.0, "lower", target="ratio ≤ 2", met=False))
    write_report(run)
    text = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "- **API … page (page_size=50), response cache off**: the pages of the other kinds" in text
    assert "- **API … detail**: as served, the details of the other kinds" in text
    assert "| API units page (page_size=50), response cache off: p50 latency | 30.0 ms | 10.0 ms | 3.00× |" in text


def test_a_run_of_some_stages_says_so(tmp_path: Path) -> None:
    run = _run(tmp_path)
    run.args.only = ["api", "writes"]
    write_report(run)
    text = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "- state: **partial: this run measured only api, writes** (`--only`)." in text
    assert "every stage ran" not in text
