"""Import a TEI P5 edition as a new draft source with draft citations: `manage.py import_tei FILE --slug ...`.

A thin shell over `archive.importing.tei.import_tei`: a refusal (naming the
element and line) becomes a CommandError, and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.source_file import max_bytes
from archive.importing.tei import TeiImportError, import_tei
from archive.models import Language, SourceKind


class Command(BaseCommand):
    help = "Import a TEI P5 file as a new draft source; its tagged names become draft citations."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the TEI file, as `?format=tei` of a source gives it")
        parser.add_argument("--slug", required=True)
        parser.add_argument("--kind", choices=SourceKind.values, help="instead of the header's note type=kind")
        parser.add_argument("--language", choices=Language.values, help="instead of the header's langUsage")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(_("%(file)s is not a file.") % {"file": path})
        if path.stat().st_size > max_bytes():
            raise CommandError(_("%(file)s is larger than %(limit)s bytes.") % {"file": path, "limit": max_bytes()})
        try:
            result = import_tei(path.read_bytes(), name=path.name, slug=options["slug"], kind=options["kind"],
                                language=options["language"])
        except TeiImportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(_("Imported %(file)s as source %(slug)s (draft): %(passages)s passages, %(citations)s "
                            "draft citations.") % {"file": path.name, "slug": result.source.slug,
                                                   "passages": result.passages, "citations": result.citations})
        for name in result.unmatched:
            self.stdout.write(_("Not matched to a record, not cited: %(name)s") % {"name": name})
