"""Export the whole archive as a collection: `manage.py export_collection DIR`.

The result has the shipped collection's shape (fixtures by natural key plus
byte-exact source texts), so `load_collection --dir DIR` loads it back.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.export import ExportError, export_collection


class Command(BaseCommand):
    help = "Write the archive as fixtures (natural keys) and source texts into DIR, replacing it atomically."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="where to write the collection (empty, absent or a previous export)")
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = export_collection(options["directory"], using=options["database"])
        except (ExportError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            _("Exported %(records)s records in %(files)s file(s) and %(texts)s source text(s) to %(dir)s.")
            % {"records": report.records, "files": len(report.files), "texts": report.texts, "dir": report.directory}
        )
