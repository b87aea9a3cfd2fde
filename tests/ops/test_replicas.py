"""The replica router against a real PostgreSQL primary and a real streaming standby.

The clusters are started here (pg_basebackup -R from the primary, hot standby
on another port), the schema is migrated on the primary by `manage.py migrate`,
and `replica_probe.py` runs in a process of its own, since pytest-django's test
database has no replica. A port where nothing listens stands for a replica that
is down from the start; stopping the standby shows one that goes down.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scripts import pgcluster

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = pgcluster.find_bin_dir()

pytestmark = [
    pytest.mark.skipif(
        BIN_DIR is None
        or not (BIN_DIR / "pg_basebackup").exists()
        or (os.geteuid() == 0 and shutil.which("runuser") is None),
        reason="needs PostgreSQL server binaries with pg_basebackup (and runuser when run as root)",
    ),
    # Its clusters are its own, whichever engine the run's test database is on.
    pytest.mark.engine_independent,
]


def _env(primary: str, replicas: list[str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_", "PYTEST_"))}
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "1",
        "SECRET_KEY": "replica-test",
        "DATABASE_URL": primary,
        "DATABASE_REPLICA_URLS": ",".join(replicas),
        "AXES_ENABLED": "0",
    }


def _probe(mode: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "ops" / "replica_probe.py"), mode],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def test_api_reads_go_to_the_standby_and_everything_else_to_the_primary() -> None:
    with pgcluster.cluster() as primary, pgcluster.standby(primary) as standby:
        dead = f"postgres://postgres@127.0.0.1:{pgcluster._free_port()}/archive"
        env = _env(primary, [standby.url, dead])
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=400,
        )
        assert migrated.returncode == 0, migrated.stderr[-3000:]

        up = _probe("up", env)
        assert up["aliases"] == ["default", "replica1", "replica2"]
        assert up["replayed"] is True

        # A safe API request reads from the standby, and only from it.
        api_get = up["api_get"]
        assert api_get["status"] == 200
        assert api_get["body"]["read_alias"] == "replica1"
        assert api_get["body"]["port"] == _port(standby.url)
        assert api_get["body"]["in_recovery"] is True
        assert set(api_get["queries"]) == {"replica1"}
        assert up["api_head"]["status"] == 200 and set(up["api_head"]["queries"]) == {"replica1"}

        # A POST to the API, the admin, and reads inside a transaction use the primary.
        for case in ("api_post", "admin_get", "api_atomic"):
            result = up[case]
            assert result["status"] == 200, case
            assert result["body"]["read_alias"] == "default", case
            assert result["body"]["port"] == _port(primary), case
            assert result["body"]["in_recovery"] is False, case
            assert set(result["queries"]) == {"default"}, case

        # A write during an API request goes to the primary, its reads to the standby,
        # and the standby sees the row once it has streamed.
        api_write = up["api_write"]
        assert api_write["status"] == 200 and api_write["body"]["written"]
        assert api_write["queries"]["default"] == 1
        assert api_write["body"]["read_alias"] == "replica1"
        assert up["api_sees_write"]["body"]["exists"] is True
        assert set(up["api_sees_write"]["queries"]) == {"replica1"}

        # The real API root and whatever it links to never read from the primary.
        assert up["api_root"]["status"] == 200
        assert "default" not in up["api_root"]["queries"]
        assert up["api_links"], "the API root lists its endpoints"
        answered = {link: result for link, result in up["api_links"].items() if result["status"] == 200}
        assert answered
        for link, result in up["api_links"].items():
            assert result["status"] < 500, link
        for link, result in answered.items():
            assert set(result["queries"]) == {"replica1"}, link
            # A read served by the standby writes nothing anywhere: what it built (`archive.api.stored`) is not stored.
            assert result["stored_writes"] == {}, link

        # The dead replica was skipped, remembered as down, and reported by /health/.
        assert up["marked_down"] == {"replica1": False, "replica2": True}
        health = up["health"]
        assert health["status"] == 200
        assert health["body"]["status"] == "degraded"
        assert health["body"]["checks"]["replicas"]["replica1"] == {
            **health["body"]["checks"]["replicas"]["replica1"],
            "ok": True,
            "in_recovery": True,
        }
        assert health["body"]["checks"]["replicas"]["replica2"] == {"ok": False, "error": "OperationalError"}

        # The standby goes down: API reads fall back to the primary, quickly, not with a 500.
        standby.stop()
        down = _probe("down", env)
        assert down["api_get"]["status"] == 200
        assert down["api_get"]["body"]["read_alias"] == "default"
        assert down["api_get"]["body"]["in_recovery"] is False
        assert set(down["api_get"]["queries"]) == {"default"}
        assert down["api_get"]["seconds"] < 5
        assert down["api_root"]["status"] == 200
        # Served by the primary, a list stores its page as first shown, on the primary.
        down_answered = [result for result in down["api_links"].values() if result["status"] == 200]
        assert down_answered and all(set(result["stored_writes"]) <= {"default"} for result in down_answered)
        assert any(result["stored_writes"] for result in down_answered)
        assert down["marked_down"] == {"replica1": True, "replica2": True}
        assert down["health"]["status"] == 200
        assert down["health"]["body"]["status"] == "degraded"
        assert down["health"]["body"]["checks"]["database"]["ok"] is True
        assert {alias: r["ok"] for alias, r in down["health"]["body"]["checks"]["replicas"].items()} == {
            "replica1": False,
            "replica2": False,
        }
        assert primary not in json.dumps(down["health"]["body"])
