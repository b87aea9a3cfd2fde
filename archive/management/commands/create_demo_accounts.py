"""Create the demo accounts `curator` and `reviewer` (demo setup only).

Refused without DEBUG; and should a database that has them ever serve without
DEBUG, their password signs nobody in (archive/demo_accounts.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.management.base import BaseCommand, CommandError

from archive.demo_accounts import DEMO_USERNAMES
from archive.roles import ensure_groups


class Command(BaseCommand):
    help = "Create the demo accounts curator and reviewer, password DEMO_PASSWORD (default archive-demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("Demo accounts exist only in the demo setup (DEBUG=1), never in production.")
        password = settings.DEMO_PASSWORD
        ensure_groups(Group, Permission)
        for name in DEMO_USERNAMES:
            user, created = User.objects.get_or_create(username=name, defaults={"is_staff": True})
            user.is_staff = True
            user.set_password(password)
            user.save()
            user.groups.set([Group.objects.get(name=name)])
            self.stdout.write(f"{'created' if created else 'updated'} demo account {name}")
