"""The archive every later figure is measured on: Django set up, migrated, and a synthetic archive written.

The archive of a seed is reused when the database already holds it, so a
run against a kept DATABASE_URL does not regenerate a million passages. The
generator's own rate and peak memory are figures too. `vacuum` is shared by
the stages that write many rows.
"""

from __future__ import annotations

import os
import time

from bench.figures import SECRET, Figure, Run, say


def setup_django(url: str) -> None:
    os.environ.update(
        DATABASE_URL=url,
        DEBUG="0",
        SECRET_KEY=os.environ.get("SECRET_KEY") or SECRET,
        ALLOWED_HOSTS="127.0.0.1",
        # Production settings, but served over plain HTTP on the loopback (no TLS proxy in
        # front): without this every request would answer a redirect to https. The gunicorn
        # servers inherit it with the rest of this environment.
        SECURE_SSL_REDIRECT="0",
        # The requests timed in this process come from one address, faster than a reader's rate: the throttle
        # still counts each of them, in the one-second window the gunicorn servers use (bench/stages/api.py).
        API_ANON_RATE="100000000/second",
        RECONCILE_RATE="100000000/second",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    import django

    django.setup()


def generate(run: Run) -> None:
    from django.core.management import call_command
    from django.db import connection

    from archive.models import Source
    from bench import synthetic

    call_command("migrate", verbosity=0, interactive=False)
    prefix = f"syn{run.args.seed}-"
    existing = Source.objects.filter(slug__startswith=prefix).count()
    if existing:
        say(f"The database already holds the synthetic archive of seed {run.args.seed}: reused, not regenerated.")
        run.context["archive"] = "reused from an earlier run"
    else:
        corpus = synthetic.load_corpus(run.args.seed_dir)
        say(f"Generating {run.args.scale:,} passages (seed {run.args.seed}) from {', '.join(corpus.files)}")
        summary = synthetic.generate(passages=run.args.scale, seed=run.args.seed, corpus=corpus, progress=say)
        for line in synthetic.describe(summary):
            say(line)
        run.context["archive"] = ", ".join(f"{name} {count:,}" for name, count in sorted(summary.counts.items()))
        run.context["checksum"] = summary.checksum
        run.add(
            Figure(
                "generate: synthetic archive, passages/s (all records, citations, history; one transaction)",
                summary.rate(),
                "passages/s",
                "",
                None,
                "higher",
                notes=f"{summary.passages:,} passages in {summary.seconds:.0f} s",
            )
        )
        run.add(
            Figure(
                "generate: peak RSS of the generator process",
                summary.peak_rss_mib,
                "MiB",
                "",
                None,
                "lower",
                notes="flat as N grows: rows are streamed source by source",
            )
        )
    started = time.perf_counter()
    vacuum()
    say(f"VACUUM (ANALYZE): {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM archive_passage")
        run.context["passages in the database"] = f"{cursor.fetchone()[0]:,}"
        cursor.execute("SHOW server_version")
        run.context["PostgreSQL"] = cursor.fetchone()[0]


def vacuum() -> None:
    """Vacuum the database and refresh its statistics, as autovacuum does once it has caught up.

    Done after each stage that writes many rows: left to autovacuum, the pass
    over them would run, on the same 2 cores, in the middle of later figures.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")
