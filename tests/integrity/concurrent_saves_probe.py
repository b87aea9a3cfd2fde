"""Curators saving at once through the admin's change form, in a process of its own.

Each curator has a draft person open in the admin; all of them press "Save"
at the same moment (a barrier), each on a thread with its own database
connection, through Django's test client and so through the whole middleware
stack and the admin's change view, as a browser's POST would go. What each
got back is counted (302 is a save, 500 a lost one), every save's latency is
kept, and the database is then asked whether every change was stored.

`test_concurrent_saves.py` calls `save_concurrently` in-process on
PostgreSQL, and runs this file as a script on an SQLite file (pytest-django's
SQLite test database lives in memory, where connections cannot race as they
do on a file); `bench/concurrent_saves.py` runs the script for its figures.
As a script it prints one JSON object on its last line.

Usage: concurrent_saves_probe.py CURATORS [--migrate]
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FAST_HASHER = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _title(content: bytes) -> str:
    """What an error page is about: the exception and its message on Django's debug page."""
    page = content.decode(errors="replace")
    kind = re.search(r"<title>\s*(\w+)", page)
    message = re.search(r'class="exception_value">(.*?)</pre>', page, re.DOTALL)
    if kind and message:
        return f"{kind.group(1)}: {' '.join(message.group(1).split())}"
    return " ".join(page[:120].split())


def save_concurrently(*, curators: int) -> dict[str, Any]:
    """`curators` curators each save their own draft at the same moment; what happened."""
    from django.contrib.auth.models import Group, Permission
    from django.db import connection, connections
    from django.test import Client
    from django.test.utils import override_settings

    from archive.models import Person, Status
    from archive.roles import ensure_groups
    from tests.admin.helpers import change_url, form_data, person
    from tests.factories import user

    tag = uuid.uuid4().hex[:8]
    with override_settings(PASSWORD_HASHERS=FAST_HASHER):
        ensure_groups(Group, Permission)
        accounts = [user(f"c{tag}-{n}", role="curator") for n in range(curators)]
        records = [person(status=Status.DRAFT, slug=f"p{tag}-{n}", description="before") for n in range(curators)]

    # Logged in and the form loaded one after the other; only the saves race.
    prepared = []
    for account, record in zip(accounts, records, strict=True):
        client = Client(raise_request_exception=False)
        client.force_login(account)
        data = form_data(client.get(change_url(record)))
        data["description"] = f"saved by {account.username}"
        prepared.append((client, change_url(record), data))

    start = threading.Barrier(curators)
    statuses: list[int | str] = [""] * curators
    latencies: list[float] = [0.0] * curators
    errors: list[str] = []

    def save(index: int) -> None:
        client, url, data = prepared[index]
        try:
            start.wait(timeout=60)
            began = time.perf_counter()
            response = client.post(url, data)
            latencies[index] = (time.perf_counter() - began) * 1000
            statuses[index] = response.status_code
            if response.status_code != 302:
                errors.append(f"{response.status_code}: {_title(response.content)}")
        except Exception as error:  # a crash of the client itself is a lost save too
            statuses[index] = type(error).__name__
            errors.append(repr(error))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(index,)) for index in range(curators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)

    stored = Person.objects.filter(
        pk__in=[record.pk for record in records],
        description__in=[f"saved by {account.username}" for account in accounts],
    ).count()
    options = connection.settings_dict.get("OPTIONS", {})
    return {
        "engine": connection.vendor,
        "transaction_mode": options.get("transaction_mode") if connection.vendor == "sqlite" else None,
        "curators": curators,
        "statuses": {str(key): count for key, count in Counter(statuses).items()},
        "stored": stored,
        "latencies_ms": sorted(round(value, 2) for value in latencies),
        "errors": errors[:5],
    }


def main(argv: list[str]) -> None:
    import json

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client then keeps the form it rendered

    if "--migrate" in argv:
        call_command("migrate", verbosity=0, interactive=False)
    print(json.dumps(save_concurrently(curators=int(argv[0]))))


if __name__ == "__main__":
    main(sys.argv[1:])
