"""Load the shipped collection (`fixtures/NN_*.json` and `fixtures/sources/`): `manage.py load_collection`.

`make run` calls it on every start; it checks the whole collection first,
loads it in one transaction, and is harmless to run again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from archive.importing.collection import load_collection


class Command(BaseCommand):
    help = "Check and load the fixtures of the collection in name order, all or nothing; safe to repeat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", default=str(Path(settings.BASE_DIR) / "fixtures"), help="the collection directory")
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(options["dir"])
        report = load_collection(directory, using=options["database"])
        if not report.files:
            self.stdout.write(_("Nothing to load: %(dir)s holds no fixture files (NN_name.json).") % {"dir": directory})
            return
        self.stdout.write(
            _(
                "Loaded %(records)s records from %(files)s file(s) in %(dir)s: %(created)s new, %(changed)s changed, "
                "%(passages)s passages made from source texts."
            )
            % {
                "records": report.records,
                "files": len(report.files),
                "dir": directory,
                "created": report.created,
                "changed": report.changed,
                "passages": report.passages_made,
            }
        )
        if report.proposed:
            self.stdout.write(
                _(
                    "%(count)s change(s) of published records went to review as pending revisions; "
                    "the published versions stay served until a reviewer approves them."
                )
                % {"count": report.proposed}
            )
