"""`manage.py import_source` that stops after its passages are written, before it commits.

The fault tests run this in a subprocess, so that they can kill it or cut its
database connection at a known point in the middle of an import: every
passage row is in the transaction, nothing is committed yet. It prints
``WRITTEN <backend pid>`` and waits for the file named by ``$RESUME_FILE``
(at most a minute), then lets the import carry on.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from archive.importing import source_text

    real = source_text.insert_passages
    resume = Path(os.environ["RESUME_FILE"])

    def paused(*args: Any, **kwargs: Any) -> Any:
        written = real(*args, **kwargs)
        pid = 0
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pid = cursor.fetchone()[0]
        print(f"WRITTEN {pid} {len(written)}", flush=True)
        deadline = time.monotonic() + 60
        while not resume.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return written

    source_text.insert_passages = paused  # type: ignore[assignment]
    call_command("import_source", *argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
