"""Find the project's strings marked for translation, without gettext's tools.

Python: string literals passed to `_`, `gettext`, `gettext_lazy`, `pgettext`
and friends; templates: `{% translate %}`/`{% trans %}` literals and the text
of `{% blocktranslate %}` blocks. Good enough to tell a missing catalogue entry.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON_FUNCTIONS = {"_", "gettext", "gettext_lazy", "gettext_noop", "ngettext", "ngettext_lazy"}
TEMPLATE_TRANSLATE = re.compile(r"""{%\s*(?:translate|trans)\s+(["'])(.*?)\1""")
TEMPLATE_BLOCK = re.compile(
    r"{%\s*blocktrans(?:late)?(?P<args>[^%]*)%}(?P<body>.*?){%\s*endblocktrans(?:late)?\s*%}", re.S
)


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def python_strings(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in PYTHON_FUNCTIONS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def _block_msgid(body: str) -> str:
    # Django turns {{ var }} into %(var)s in a blocktranslate msgid.
    return re.sub(r"{{\s*(\w+)\s*}}", r"%(\1)s", body)


def template_strings(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8")
    for match in TEMPLATE_TRANSLATE.finditer(text):
        yield match.group(2)
    for match in TEMPLATE_BLOCK.finditer(text):
        body = match.group("body")
        if "{% plural" in body:
            body = body.split("{% plural")[0]
        if "trimmed" in match.group("args"):
            body = " ".join(body.split())
        yield _block_msgid(body)


def project_strings() -> dict[str, str]:
    """Every marked string, with the first file that marks it."""
    found: dict[str, str] = {}
    archive = ROOT / "archive"
    for path in sorted(archive.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for msgid in python_strings(path):
            found.setdefault(msgid, str(path.relative_to(ROOT)))
    for path in sorted(archive.rglob("*.html")):
        for msgid in template_strings(path):
            found.setdefault(msgid, str(path.relative_to(ROOT)))
    return found
