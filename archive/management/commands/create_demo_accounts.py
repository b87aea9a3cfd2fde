"""Create the demo accounts `curator` and `reviewer` (demo setup only)."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.management.base import BaseCommand, CommandError

from archive.roles import ensure_groups


class Command(BaseCommand):
    help = "Create the demo accounts curator and reviewer, password DEMO_PASSWORD (default archive-demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("Demo accounts exist only in the demo setup (DEBUG=1), never in production.")
        password = os.environ.get("DEMO_PASSWORD", "archive-demo")
        ensure_groups(Group, Permission)
        for name in ("curator", "reviewer"):
            user, created = User.objects.get_or_create(username=name, defaults={"is_staff": True})
            user.is_staff = True
            user.set_password(password)
            user.save()
            user.groups.set([Group.objects.get(name=name)])
            self.stdout.write(f"{'created' if created else 'updated'} demo account {name}")
