"""How the reading room writes the archive's own words in the reader's language and script.

On the Traditional pages a record's name is its Traditional name form where
it has one, else the stored text converted by OpenCC (`to_traditional`);
quotations are never converted, since they are the sources' own words.
"""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from archive.models import NameKind, Script
from archive.text.normalize import to_traditional

register = template.Library()

TRADITIONAL = "zh-hant"


def traditional_page() -> bool:
    return (get_language() or "").lower() == TRADITIONAL


@register.filter
def script(text: Any) -> Any:
    """The archive's text in the page's script: converted to Traditional on the Traditional pages only."""
    if not isinstance(text, str) or not traditional_page():
        return text
    return to_traditional(text)


def _traditional_form(record: Any) -> str | None:
    """A person's Traditional name form, read only when the names were fetched with the record (no query per row)."""
    cached = getattr(record, "_prefetched_objects_cache", {}).get("names")
    if cached is None:
        return None
    for name in cached:
        if name.kind == NameKind.TRADITIONAL or name.script == Script.HANT:
            return str(name.name)
    return None


@register.filter
def shown_name(record: Any) -> str:
    """A record's name (or title) as the reader reads it on this page."""
    name = getattr(record, "name", None) or getattr(record, "title", None) or str(record)
    if not traditional_page():
        return str(name)
    return _traditional_form(record) or to_traditional(str(name))


_JSON_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.simple_tag
def json_ld(document: dict[str, Any]) -> str:
    """A JSON-LD data block for the page's head, escaped as Django's `json_script` escapes (no `</script>` inside)."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True).translate(_JSON_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # escaped above
