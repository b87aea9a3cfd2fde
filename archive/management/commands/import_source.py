"""Import a text file as a source split into passages: `manage.py import_source FILE --slug ...`.

A thin shell over `archive.importing.source_text.import_source`; it turns
refusals into CommandError so that the shell sees a failure and a message.
Only a regular file of at most SOURCE_IMPORT_MAX_BYTES (default 50 MB) is read.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.source_text import SourceImportError, import_source
from archive.models import Language, SourceKind


class Command(BaseCommand):
    help = "Import a UTF-8 text file as a source and its passages (a new source is a draft)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the text file, UTF-8, at most SOURCE_IMPORT_MAX_BYTES (default 50 MB)")
        parser.add_argument("--slug", required=True)
        parser.add_argument("--title", required=True)
        parser.add_argument("--kind", required=True, choices=SourceKind.values)
        parser.add_argument("--language", required=True, choices=Language.values, help="BCP-47 tag")
        parser.add_argument("--author", default=None)
        parser.add_argument("--date", default=None, help="date of publication or writing, EDTF")
        parser.add_argument(
            "--replace", action="store_true", help="replace the text of an existing source and re-anchor its citations"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = import_source(
                path=options["file"],
                slug=options["slug"],
                title=options["title"],
                kind=options["kind"],
                language=options["language"],
                author=options["author"],
                date=options["date"],
                replace=options["replace"],
            )
        except SourceImportError as exc:
            raise CommandError(str(exc)) from exc
        source = result.source
        values = {"slug": source.slug, "file": source.file_name, "count": result.passages, "moved": result.moved,
                  "sha": source.sha256, "status": source.get_status_display()}
        messages = {
            "created": _("Imported %(file)s as source %(slug)s (%(status)s): %(count)s passages, SHA-256 %(sha)s."),
            "filled": _("Imported %(file)s into source %(slug)s (%(status)s): %(count)s passages, SHA-256 %(sha)s."),
            "unchanged": _("Source %(slug)s already holds %(file)s (SHA-256 %(sha)s): nothing changed."),
            "replaced": _(
                "Replaced the text of source %(slug)s with %(file)s (%(status)s): %(count)s passages, "
                "%(moved)s citation(s) re-anchored."
            ),
        }
        self.stdout.write(messages[result.action] % values)
