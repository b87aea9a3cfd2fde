"""Run the whole test suite on SQLite and, where it is installed, PostgreSQL.

`make test` calls this. It says which engines ran and fails when any failed.
Extra arguments are passed to pytest.

Each engine's suite is cut into two parts (`PARTS`: some directories, and the
rest), and the parts run as separate pytest processes, as many at once as the
machine has cores, twice over (one at a time with
TEST_ENGINES_ONE_AT_A_TIME=1). Each process has its own database URL, so its
own test database and cache folder. Two engines of about 20 minutes each side
by side left a core idle while the longer one finished, and whenever a test
waited for a browser, a subprocess or the server; four parts at once on two
cores keep both busy to the end. A part's output is printed when it ends. With extra arguments (a path, a
`-k`), each engine runs once, as asked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import pgcluster  # noqa: E402

# The second engine leaves out the tests marked engine_independent (tests/conftest.py): they never
# use the test database, and the SQLite run ran them.
ONCE = {"TESTS_ENGINE_INDEPENDENT_RAN": "1"}

# The first part of each engine's suite; the second is every other directory of tests/, so that a new
# directory is never left out. Chosen so that the parts take about as long (measured on 2 cores). The engines
# differ: the engine-independent tests (most of tests/ops, which wait for subprocesses) run with SQLite only,
# which makes its second part the heavier, while PostgreSQL's first part (the API's tests) is its heavier.
FIRST_PART = {
    "SQLite": ("api", "browser", "admin", "services", "models", "reconcile", "text", "i18n", "audit",
               "fixtures_content"),
    "PostgreSQL": ("api", "browser", "services", "models", "reconcile", "text", "i18n", "audit"),
}


# The test cluster's databases are small and thrown away. JIT compiles a query whose estimated cost is
# high (the benchmark baseline's statements) and costs more than it saves on tables this small; the
# autovacuum daemon would vacuum the rows every rolled-back test left, work no test reads (the tests
# that need planner statistics take them: `archive.db.statistics`). Nothing reads its write-ahead log
# after a crash or from a standby (the replica test starts clusters of its own): the least of it is
# written, and a commit does not wait for it.
TEST_CLUSTER_SETTINGS = ("jit=off", "autovacuum=off", "wal_level=minimal", "max_wal_senders=0",
                         "synchronous_commit=off")


@dataclass
class Job:
    engine: str
    name: str
    env: dict[str, str]
    args: list[str]
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    code: int | None = None
    seconds: float = 0.0


def _command(args: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", *args]


def _environment(extra_env: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "DEBUG": "1", "SECRET_KEY": "test-secret", **extra_env}


def _parts(args: list[str], engine: str) -> list[tuple[str, list[str]]]:
    if args:
        return [("as asked", args)]
    first = [f"tests/{name}" for name in FIRST_PART[engine]]
    rest = ["tests", *[f"--ignore={path}" for path in first]]
    return [(", ".join(FIRST_PART[engine]), first), ("the other directories", rest)]


def _part_database(index: int) -> str:
    """The PostgreSQL database of a part (its test database is this name with Django's `test_`)."""
    return f"archive_{index}"


def _postgres_url(url: str, database: str) -> str:
    return urlsplit(url)._replace(path=f"/{database}").geturl()


def jobs(args: list[str], postgres_url: str | None) -> list[Job]:
    """Each part of each engine; a PostgreSQL part first, so that the engines' parts alternate."""
    made: list[Job] = []
    parts = zip(_parts(args, "SQLite"), _parts(args, "PostgreSQL"), strict=True)
    for index, ((name, part_args), (postgres_name, postgres_args)) in enumerate(parts):
        sqlite_url = f"sqlite:///{ROOT / f'test-db-{index}.sqlite3'}"
        sqlite = Job("SQLite", name, {"DATABASE_URL": sqlite_url}, part_args)
        if postgres_url is None:
            made.append(sqlite)
            continue
        postgres = Job("PostgreSQL", postgres_name,
                       {"DATABASE_URL": _postgres_url(postgres_url, _part_database(index)), **ONCE}, postgres_args)
        made += [postgres, sqlite] if index % 2 == 0 else [sqlite, postgres]
    return made


def _start(job: Job, folder: Path, number: int) -> None:
    job.log = folder / f"part-{number}.log"
    job.started = time.monotonic()
    print(f"started: {job.engine}, {job.name}", flush=True)
    with job.log.open("wb") as log:
        job.process = subprocess.Popen(_command(job.args), cwd=ROOT, env=_environment(job.env),
                                       stdout=log, stderr=subprocess.STDOUT)


def _finish(job: Job) -> None:
    assert job.process is not None and job.log is not None
    job.code = job.process.returncode
    job.seconds = time.monotonic() - job.started
    print(f"\n=== {job.engine}: {job.name} ({job.seconds / 60:.1f} min) ===", flush=True)
    sys.stdout.write(job.log.read_text(encoding="utf-8", errors="replace"))
    sys.stdout.flush()


def run(all_jobs: list[Job], slots: int) -> None:
    waiting = list(all_jobs)
    running: list[Job] = []
    with tempfile.TemporaryDirectory(prefix="archive-test-") as folder:
        try:
            while waiting or running:
                while waiting and len(running) < slots:
                    job = waiting.pop(0)
                    _start(job, Path(folder), len(all_jobs) - len(waiting))
                    running.append(job)
                time.sleep(0.5)
                for job in [job for job in running if job.process is not None and job.process.poll() is not None]:
                    running.remove(job)
                    _finish(job)
        finally:
            for job in running:
                if job.process is not None and job.process.poll() is None:
                    job.process.kill()


def main() -> int:
    args = sys.argv[1:]
    cores = os.cpu_count() or 1
    one_at_a_time = cores < 2 or os.environ.get("TEST_ENGINES_ONE_AT_A_TIME") == "1"
    # Every part at once on two cores: a part that waits (for a browser, a subprocess, the server) leaves
    # its core to another, and no part is left to run alone on one core at the end while the other idles.
    slots = 1 if one_at_a_time else 2 * cores
    if pgcluster.find_bin_dir() is None:
        all_jobs = jobs(args, None)
        run(all_jobs, slots)
        print("PostgreSQL server binaries not found: the suite ran on SQLite only.")
    else:
        with pgcluster.cluster(also=[_part_database(index) for index in range(len(_parts(args, "PostgreSQL")))],
                               over_socket=True, settings=TEST_CLUSTER_SETTINGS) as url:
            all_jobs = jobs(args, url)
            run(all_jobs, slots)
    print("\n=== engines ===")
    results: dict[str, bool] = {}
    for job in all_jobs:
        results[job.engine] = results.get(job.engine, True) and job.code == 0
        print(f"{job.engine}, {job.name}: {'passed' if job.code == 0 else f'FAILED (exit {job.code})'}"
              f" in {job.seconds / 60:.1f} min")
    for engine, passed in results.items():
        print(f"{engine}: {'passed' if passed else 'FAILED'}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
