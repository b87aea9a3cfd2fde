"""Load the shipped collection (`fixtures/NN_*.json` and `fixtures/sources/`): `manage.py load_collection`.

`make run` calls it on every start; it checks the whole collection first,
loads it in one transaction, and is harmless to run again. Into an empty
archive it publishes the collection as its release; into one with data, what
it adds or changes goes to review in the name of ``--as USER``, which such a
load requires (`archive.importing.collection`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.importing.collection import load_collection


class Command(BaseCommand):
    help = "Check and load the fixtures of the collection in name order, all or nothing; safe to repeat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", default=str(Path(settings.BASE_DIR) / "fixtures"), help="the collection directory")
        parser.add_argument("--database", default="default")
        parser.add_argument(
            "--as",
            dest="as_user",
            metavar="USER",
            help="the account in whose name new records enter review and changes become revisions "
            "(required when the archive already has data and the load would write anything)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(options["dir"])
        author = None
        if options.get("as_user"):
            author = (
                get_user_model()._default_manager.using(options["database"])
                .filter(username=options["as_user"], is_active=True)
                .first()
            )
            if author is None:
                raise CommandError(
                    _("--as %(user)s: no active account of that name; nothing was loaded.")
                    % {"user": options["as_user"]}
                )
        report = load_collection(directory, using=options["database"], by=author)
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
        if report.release and report.records:
            self.stdout.write(_("The archive was empty: the collection is published as its release."))
        elif report.created and author is not None:
            self.stdout.write(
                _("The new records entered review in the name of %(user)s; another person approves them.")
                % {"user": author.get_username()}
            )
        if report.proposed:
            self.stdout.write(
                _(
                    "%(count)s change(s) of published records went to review as pending revisions; "
                    "the published versions stay served until a reviewer approves them."
                )
                % {"count": report.proposed}
            )
