"""Fill the zh-Hant catalogue from the zh-Hans one, converted with OpenCC.

Curators translate into Simplified Chinese once; the Traditional catalogue
follows by conversion (OpenCC `s2t`), so both stay complete. An entry that a
translator has already written in zh-Hant is kept unless `--force`.
Run after `makemessages`, then `compilemessages`:

    python scripts/derive_hant.py && python manage.py compilemessages
"""

from __future__ import annotations

import sys
from pathlib import Path

import opencc
import polib

LOCALE = Path(__file__).resolve().parent.parent / "archive" / "locale"


def main(force: bool = False) -> int:
    to_hant = opencc.OpenCC("s2t")
    hans = {(e.msgctxt, e.msgid): e for e in polib.pofile(str(LOCALE / "zh_Hans/LC_MESSAGES/django.po"))}
    path = LOCALE / "zh_Hant/LC_MESSAGES/django.po"
    hant = polib.pofile(str(path))
    filled = 0
    for entry in hant:
        source = hans.get((entry.msgctxt, entry.msgid))
        if source is None:
            continue
        # A fuzzy entry holds makemessages' guess from another msgid: never keep it.
        stale = "fuzzy" in entry.flags
        if entry.msgid_plural:
            if force or stale or not any(entry.msgstr_plural.values()):
                entry.msgstr_plural = {k: to_hant.convert(v) for k, v in source.msgstr_plural.items()}
                filled += 1
        elif force or stale or not entry.msgstr:
            entry.msgstr = to_hant.convert(source.msgstr)
            filled += 1
        if "fuzzy" in entry.flags and (entry.msgstr or any(entry.msgstr_plural.values())):
            entry.flags.remove("fuzzy")
    hant.metadata.update(
        {"Language": "zh_Hant", "Project-Id-Version": "archive", "Plural-Forms": "nplurals=1; plural=0;"}
    )
    hant.metadata_is_fuzzy = False
    hant.save()
    print(f"filled {filled} zh-Hant entries from zh-Hans")
    return 0


if __name__ == "__main__":
    sys.exit(main(force="--force" in sys.argv))
