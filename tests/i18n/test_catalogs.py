"""Every string of the project marked for translation has a zh-Hans and a zh-Hant entry."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest

from tests.i18n.strings import ROOT, project_strings

LOCALES = ["zh_Hans", "zh_Hant"]


def catalogue(locale: str) -> gettext.GNUTranslations:
    path = ROOT / "archive" / "locale" / locale / "LC_MESSAGES" / "django.mo"
    assert path.exists(), f"{path} is missing: run compilemessages"
    with Path(path).open("rb") as handle:
        return gettext.GNUTranslations(handle)


def _translated(translations: gettext.GNUTranslations, msgid: str) -> bool:
    """Whether the catalogue translates `msgid`, as a message or as the singular of a plural one.

    `gettext()` finds a plural entry by its singular only on some patch releases of Python 3.11
    (3.11.7 does, 3.11.2 does not), so a plural entry is asked for with `ngettext`.
    """
    return translations.gettext(msgid) != msgid or translations.ngettext(msgid, msgid, 1) != msgid


@pytest.mark.parametrize("locale", LOCALES)
def test_every_marked_string_is_translated(locale: str) -> None:
    translations = catalogue(locale)
    strings = project_strings()
    assert len(strings) > 50, "the extractor found almost no strings: it is broken"
    missing = [
        f"{where}: {msgid!r}"
        for msgid, where in sorted(strings.items(), key=lambda item: item[1])
        if not _translated(translations, msgid)
    ]
    assert not missing, f"{len(missing)} strings have no {locale} translation:\n" + "\n".join(missing[:60])


def test_traditional_catalogue_is_written_in_traditional_characters() -> None:
    from archive.text.normalize import to_simplified

    hant = catalogue("zh_Hant")
    hans = catalogue("zh_Hans")
    differing = [m for m in project_strings() if hant.gettext(m) != to_simplified(hant.gettext(m))]
    assert differing, "no zh-Hant translation uses a Traditional character"
    assert hans.gettext("unit") != hant.gettext("unit") or hans.gettext("army") != hant.gettext("army")
