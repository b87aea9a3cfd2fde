"""Restore an export made by `export_collection` into an empty database: `manage.py restore DIR`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.restore import RestoreError, restore


class Command(BaseCommand):
    help = ("Load the backup/ of an export (every record, revision, history row and account role) "
            "into an empty database.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="a directory written by export_collection")
        parser.add_argument("--database", default="default")
        parser.add_argument(
            "--replace", action="store_true",
            help="delete every record the database holds first (in the same transaction); without it a database "
                 "that holds records is refused",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = restore(options["directory"], using=options["database"], replace=options["replace"])
        except (RestoreError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            _("Restored %(rows)s rows and %(accounts)s account(s) (%(created)s new, without a password: set one with "
              "changepassword) from %(dir)s.")
            % {"rows": report.rows, "accounts": report.accounts, "created": report.accounts_created,
               "dir": options["directory"]}
        )
