"""The demo accounts, and the rule that keeps their password out of production.

`make setup` creates `curator` and `reviewer` with a published password
(`DEMO_PASSWORD`, default ``archive-demo``) so that anyone can try the
admin. A database that ever saw the demo setup may later serve with DEBUG
off (the same PostgreSQL behind `make run` and `make serve`, a copied SQLite
file), and the accounts would still open the admin to anyone who read the
README. So the rule is about the password, not the database: without DEBUG
the demo password signs nobody in, whatever account carries it, and
`check --deploy` names every account that carries it.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

DEMO_USERNAMES = ("curator", "reviewer")
# The README's password; refused as well when DEMO_PASSWORD names another one.
PUBLISHED_DEMO_PASSWORD = "archive-demo"


def demo_passwords() -> set[str]:
    return {PUBLISHED_DEMO_PASSWORD, getattr(settings, "DEMO_PASSWORD", "") or PUBLISHED_DEMO_PASSWORD}


def is_demo_password(password: str) -> bool:
    return any(secrets.compare_digest(password.encode(), demo.encode()) for demo in demo_passwords())


def accounts_with_demo_password() -> list[str]:
    """Usernames of the active accounts whose password is a demo password, in order.

    Hashing is slow on purpose, so this costs one hash per account and
    demo password: fine for a deploy check over a team's accounts.
    """
    found = []
    for username, encoded in (
        get_user_model().objects.filter(is_active=True).order_by("username").values_list("username", "password")
    ):
        if any(check_password(password, encoded) for password in demo_passwords()):
            found.append(username)
    return found


class RefuseDemoPasswordBackend:
    """Without DEBUG, a login with the demo password fails for every account.

    It stands before ``ModelBackend``: raising ``PermissionDenied`` stops
    Django's authentication at once, and the attempt counts as a failure for
    django-axes' lockout. With DEBUG on it lets the next backend decide.
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> None:
        if not settings.DEBUG and password and is_demo_password(password):
            raise PermissionDenied("The demo password signs nobody in without DEBUG.")
        return None
