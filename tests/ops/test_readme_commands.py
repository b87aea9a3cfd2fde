"""The README's commands work as written, in a plain shell of a checkout that `make setup` set up.

The shell has no DEBUG, SECRET_KEY or DATABASE_URL of its own: everything
comes from the local environment file that the Makefile writes, as on a
fresh clone after `make run`. The commands are read from the README's "Data
in and out" block and run with its placeholders filled in (a new small UTF-8
text, a temporary folder); `python` is the virtualenv's, as the README says
to activate it first.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="needs the .venv"),
    pytest.mark.engine_independent,  # its own SQLite file, from the local environment file
]


def _readme_commands(section: str) -> list[list[str]]:
    readme = (ROOT / "README.md").read_text()
    body = readme.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", body, re.DOTALL)
    assert block, f"no shell block under {section}"
    # Comments go, and so do optional arguments written as `[--option value]`.
    lines = [re.sub(r"\[[^\]]*\]", "", line.split("#", 1)[0]).strip() for line in block.group(1).splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("python manage.py")]


# A TEI edition as `?format=tei` gives one, small enough to read.
TEI = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0">
<teiHeader><fileDesc><titleStmt><title>撤退</title></titleStmt><publicationStmt><p/></publicationStmt>
<sourceDesc><bibl><title>撤退</title><note type="kind">history</note></bibl></sourceDesc></fileDesc>
<profileDesc><langUsage><language ident="zh-Hans">中文</language></langUsage></profileDesc></teiHeader>
<text><body><div type="source"><p n="1"><persName>唐生智</persName>于12日傍晚离开司令部。</p></div></body></text></TEI>
"""


def test_the_data_in_and_out_commands_run_with_only_the_local_environment_file(tmp_path: Path) -> None:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    # `make setup` writes the file (here into a folder of the test's own, not the checkout's).
    made = subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), ".env"],
        cwd=tmp_path,
        env={**keep, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    env = {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", "ENV_FILE": str(tmp_path / ".env"),
           "CACHE_DIR": str(tmp_path / "cache")}

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (args, done.stdout[-1500:], done.stderr[-3000:])
        return done

    manage("migrate", "--noinput", "-v0")
    text = tmp_path / "retreat.txt"
    text.write_text("第一章 撤退\n\n唐生智于12日傍晚离开司令部。\n\n部队在下关码头渡江。\n", encoding="utf-8")
    tei = tmp_path / "retreat.xml"
    tei.write_text(TEI, encoding="utf-8")
    export = tmp_path / "export"
    fill = {"FILE": str(text), "S": "readme-retreat", "T": "撤退", "DIR": str(export), "TEI_FILE": str(tei),
            "S2": "readme-tei"}

    commands = _readme_commands("Data in and out")
    assert {"import_source", "import_tei", "load_collection", "export_collection", "build_documents"} <= {
        c[2] for c in commands}
    for command in commands:
        manage(*[fill.get(word, word) for word in command[2:]])

    assert '"readme-retreat"' in (export / "01_sources.json").read_text(encoding="utf-8")
    assert '"readme-tei"' in (export / "01_sources.json").read_text(encoding="utf-8")
    assert any(path.read_bytes() == text.read_bytes() for path in (export / "sources").iterdir())
    stored = manage("shell", "-c", "from archive.models import StoredDocument; print(StoredDocument.objects.count())")
    assert int(stored.stdout.strip().splitlines()[-1]) > 100  # both fiction modes of every shipped record
    # Other commands a developer reaches for work too.
    manage("makemigrations", "--check", "--dry-run")
    shell = manage("shell", "-c", "from archive.models import Source; print(Source.objects.get(slug='readme-retreat'))")
    assert "撤退" in shell.stdout.strip().splitlines()[-1]
