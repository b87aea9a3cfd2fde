"""What a new process would do on its first requests, done while it starts instead.

gunicorn loads the application in each worker before the worker accepts a
request (`config.wsgi`), so work done here is not waited for by anyone, while
what Django and the archive load lazily would land on the first requests of
every new worker: the URL configuration and its reverse lookups (each link of
an API page is reversed), the translation catalogs of each language, the
folding and pinyin tables of search. None of it reads the database, so a
worker starts whether or not the database answers.

The search's snapshot of the records needs the database: `build_snapshots`
reads it in a thread of its own once the worker has loaded (with the keys of
its names stored in the database, `archive.search.stored_keys`), so that the
worker's first search finds it built; a search that comes sooner waits for
that build instead of starting another (on PostgreSQL, whose fingerprints
let the request's connection reuse a snapshot another connection read).
`WARM_SEARCH=0` leaves it to the first search.
"""

from __future__ import annotations

import logging
import os
import threading

from django.conf import settings
from django.db import connections
from django.urls import URLResolver, get_resolver
from django.utils import translation

logger = logging.getLogger("archive")


def _reverse_lookups(resolver: URLResolver) -> None:
    resolver.reverse_dict  # noqa: B018  (reading it builds the lookups of this resolver)
    for _prefix, namespace in resolver.namespace_dict.values():
        _reverse_lookups(namespace)


def _catalogs() -> None:
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Archive")


def _search_tables() -> None:
    from archive.search import Query, search_key_aligned
    from archive.search.stored_keys import version

    Query.of("南京 漢 nanjing")  # OpenCC's tables, pypinyin's, the Latin folding
    search_key_aligned("漢")
    version()


def warm_up() -> None:
    """Load what the first requests would; a failure is logged and left to those requests."""
    for step in (lambda: _reverse_lookups(get_resolver()), _catalogs, _search_tables):
        try:
            step()
        except Exception:  # a worker must start even if a lazy part cannot be loaded now
            logger.exception("warm-up step failed")


def _snapshots() -> None:
    from archive.search import TYPES, snapshots

    try:
        snapshots(TYPES)
    except Exception:  # the database may be down or not migrated yet: the first search builds it then
        logger.exception("search snapshot not built at start")
    finally:
        connections.close_all()  # this thread's own connections


def build_snapshots() -> threading.Thread | None:
    """Start reading the search's snapshot of the records in the background (unless `WARM_SEARCH=0`)."""
    if os.environ.get("WARM_SEARCH", "1") == "0" or connections["default"].vendor != "postgresql":
        return None  # elsewhere the first search could not reuse what another connection read
    thread = threading.Thread(target=_snapshots, name="archive-warm-search", daemon=True)
    thread.start()
    return thread
