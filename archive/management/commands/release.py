"""Make the next release of what the archive publishes: `manage.py release --by NAME`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.releases import ReleaseError, make_release


class Command(BaseCommand):
    help = ("Make a numbered, dated, immutable release of everything published, with its changelog, "
            "CITATION.cff and files (collection, CSL-JSON, GeoJSON, TEI), each with its SHA-256.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--by", required=True, help="who makes the release (an operator's or reviewer's name)")
        parser.add_argument("--base-url", required=True,
                            help="the archive's public address, e.g. https://archive.example.org "
                                 "(for the documents' links)")
        parser.add_argument("--note", default="", help="what the release is for")
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            release = make_release(by=options["by"], base_url=options["base_url"], note=options["note"],
                                   using=options["database"])
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            _("Release %(number)s made at %(at)s: %(files)s file(s), %(changes)s change(s) since the release before.")
            % {"number": release.number, "at": release.made_at.isoformat(), "files": release.files.count(),
               "changes": len(release.changelog)}
        )
