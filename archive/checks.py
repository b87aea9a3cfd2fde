"""System checks of the archive that Django's deployment checklist lacks.

Registered with the ``deploy`` tag, they run with `manage.py check --deploy`
(`make check-deploy`), the command an operator runs before serving, and not
on every `runserver` or `migrate`. They read the database, which Django's own
checks do not: a deployment is about a database as much as about settings.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.db import DatabaseError, connections, router

from archive.client_address import throttle_table
from archive.demo_accounts import accounts_with_demo_password


@register(Tags.security, deploy=True)
def check_demo_accounts(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Name every active account that still has the demo password."""
    user_model = get_user_model()
    try:
        connection = connections[router.db_for_read(user_model)]
        if user_model._meta.db_table not in connection.introspection.table_names():
            return []  # not migrated yet: no accounts to worry about
        accounts = accounts_with_demo_password()
    except DatabaseError as error:
        return [
            Warning(
                f"Could not look for accounts with the demo password ({type(error).__name__}).",
                hint="Run the check where the production database is reachable.",
                id="archive.W001",
            )
        ]
    if not accounts:
        return []
    return [
        Error(
            f"Accounts with the demo password: {', '.join(accounts)}.",
            hint="They cannot sign in without DEBUG, but the password is published: give each a real "
            "password (`manage.py changepassword NAME`) or delete it.",
            id="archive.E001",
        )
    ]


@register(Tags.caches, deploy=True)
def check_shared_cache(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """The API throttle counts in the default cache or the host's table: every worker must be able to write it.

    A directory that cannot be created or written would fail every API
    request; one that others may write to would let them plant the pickles
    Django's file cache loads, or rewrite the throttle's table.
    """
    try:
        store = caches["default"]
        store.set("archive:deploy-check", 1, 5)
        store.delete("archive:deploy-check")
        table = throttle_table()
        if table is not None:
            table.update("archive:deploy-check", lambda moment: None)  # opens it, creating it at its size
    except Exception as error:  # any backend, any failure: the check reports, never raises
        return [
            Error(
                f"The API throttle's store (the default cache, THROTTLE_TABLE) cannot be written "
                f"({type(error).__name__}).",
                hint="Set CACHE_DIR to a directory the archive's user can write, or REDIS_URL to a reachable Redis.",
                id="archive.E002",
            )
        ]
    location = settings.CACHES["default"].get("LOCATION", "")
    file_based = settings.CACHES["default"]["BACKEND"].endswith("FileBasedCache")
    if file_based and os.path.isdir(location) and os.stat(location).st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return [
            Warning(
                f"The cache directory {location} may be written by other users.",
                hint="Django's file cache loads pickles from it: make it writable by the archive's user only "
                "(chmod 700).",
                id="archive.W002",
            )
        ]
    return []


@register(Tags.database)
def check_cited_passages(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A cited passage whose words changed around the database's trigger (`manage.py check --database default`).

    Tagged `database`, so Django runs it only when asked to read a database,
    never on `runserver` or `migrate`; the audit's `passage-text-changed` finds the same.
    """
    if not databases:
        return []
    from archive.audit.text_checks import changed_passages

    try:
        found = [f"{seen.record}: {seen.message}" for seen in changed_passages()]
    except DatabaseError:
        return []  # not migrated yet: no passages to compare
    if not found:
        return []
    return [
        Error(
            f"{len(found)} cited passage(s) or quote(s) no longer match: " + "; ".join(found[:5]),
            hint="A passage's text was changed under its citations without re-anchoring them: restore the text "
            "or bring the new text in with `import_source --replace`.",
            id="archive.E003",
        )
    ]
