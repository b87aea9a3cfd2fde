"""Run the whole test suite on SQLite and, where it is installed, PostgreSQL.

`make test` calls this. It says which engines ran and fails when any failed.
Extra arguments are passed to pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import pgcluster  # noqa: E402


def run_pytest(engine: str, extra_env: dict[str, str], args: list[str]) -> int:
    env = {**os.environ, "DEBUG": "1", "SECRET_KEY": "test-secret", **extra_env}
    print(f"\n=== test suite on {engine} ===", flush=True)
    return subprocess.call([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env)


def main() -> int:
    args = sys.argv[1:]
    results: dict[str, int] = {}
    sqlite_env = {"DATABASE_URL": f"sqlite:///{ROOT / 'test-db.sqlite3'}"}
    results["SQLite"] = run_pytest("SQLite", sqlite_env, args)
    if pgcluster.find_bin_dir() is None:
        print("PostgreSQL server binaries not found: the suite ran on SQLite only.")
    else:
        with pgcluster.cluster() as url:
            results["PostgreSQL"] = run_pytest("PostgreSQL", {"DATABASE_URL": url}, args)
    print("\n=== engines ===")
    for engine, code in results.items():
        print(f"{engine}: {'passed' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
