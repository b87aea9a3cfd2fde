"""Run the whole test suite on SQLite and, where it is installed, PostgreSQL.

`make test` calls this. It says which engines ran and fails when any failed.
Extra arguments are passed to pytest.

With two or more cores the two engines run side by side, each in its own
process with its own test database and cache folder: the SQLite run prints as
it goes, the PostgreSQL run into a log that is printed when it ends. With one
core, or with TEST_ENGINES_ONE_AT_A_TIME=1, they run one after the other.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import pgcluster  # noqa: E402

# The second engine leaves out the tests marked engine_independent (tests/conftest.py): they never
# use the test database, and the SQLite run ran them.
ONCE = {"TESTS_ENGINE_INDEPENDENT_RAN": "1"}


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", *args]


def _environment(extra_env: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "DEBUG": "1", "SECRET_KEY": "test-secret", **extra_env}


def run_pytest(engine: str, extra_env: dict[str, str], args: list[str]) -> int:
    print(f"\n=== test suite on {engine} ===", flush=True)
    return subprocess.call(_command(args), cwd=ROOT, env=_environment(extra_env))


def side_by_side(sqlite_env: dict[str, str], postgres_url: str, args: list[str]) -> dict[str, int]:
    """Both engines at once; the PostgreSQL output follows the SQLite output."""
    with tempfile.TemporaryDirectory(prefix="archive-test-") as folder:
        log_path = Path(folder) / "postgresql.log"
        with log_path.open("wb") as log:
            postgres = subprocess.Popen(
                _command(args),
                cwd=ROOT,
                env=_environment({"DATABASE_URL": postgres_url, **ONCE}),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                sqlite = run_pytest("SQLite", sqlite_env, args)
                postgres_code = postgres.wait()
            finally:
                if postgres.poll() is None:
                    postgres.kill()
        print("\n=== test suite on PostgreSQL (run beside SQLite) ===", flush=True)
        sys.stdout.write(log_path.read_text(encoding="utf-8", errors="replace"))
        sys.stdout.flush()
    return {"SQLite": sqlite, "PostgreSQL": postgres_code}


def main() -> int:
    args = sys.argv[1:]
    results: dict[str, int] = {}
    sqlite_env = {"DATABASE_URL": f"sqlite:///{ROOT / 'test-db.sqlite3'}"}
    one_at_a_time = (os.cpu_count() or 1) < 2 or os.environ.get("TEST_ENGINES_ONE_AT_A_TIME") == "1"
    if pgcluster.find_bin_dir() is None:
        results["SQLite"] = run_pytest("SQLite", sqlite_env, args)
        print("PostgreSQL server binaries not found: the suite ran on SQLite only.")
    else:
        with pgcluster.cluster() as url:
            if one_at_a_time:
                results["SQLite"] = run_pytest("SQLite", sqlite_env, args)
                results["PostgreSQL"] = run_pytest("PostgreSQL", {"DATABASE_URL": url, **ONCE}, args)
            else:
                results.update(side_by_side(sqlite_env, url, args))
    print("\n=== engines ===")
    for engine, code in results.items():
        print(f"{engine}: {'passed' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
