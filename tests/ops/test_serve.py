"""`make serve` in production settings answers the API and serves static files itself.

The target is started as an operator would start it behind a TLS proxy (DEBUG
unset, no local `.env`, a secret key, allowed hosts, BEHIND_PROXY, an SQLite
database migrated beforehand, a private STATIC_ROOT and cache directory), on
a free loopback port, and stopped with SIGTERM to its process group. Requests
carry the proxy's `X-Forwarded-Proto: https`. The venv step is taken as done
(`make -o .venv/.installed`), so the test never installs anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"

pytestmark = [
    pytest.mark.skipif(
        shutil.which("make") is None or not GUNICORN.exists(), reason="needs make and gunicorn in .venv"
    ),
    pytest.mark.engine_independent,  # its own SQLite file
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)
SECURE = {"X-Forwarded-Proto": "https"}


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers if headers is not None else SECURE)
    try:
        with _opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_make_serve_answers_the_api_and_serves_static_files(tmp_path: Path) -> None:
    port = _free_port()
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    env = {
        **keep,
        "ENV_FILE": "",
        "SECRET_KEY": "smoke-test-production-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "BEHIND_PROXY": "1",
        "API_ANON_RATE": "20/minute",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "STATIC_ROOT": str(tmp_path / "static"),
        "CACHE_DIR": str(tmp_path / "cache"),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
    }
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert migrated.returncode == 0, migrated.stderr[-2000:]

    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            ["make", "-s", "-o", ".venv/.installed", "serve"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        # collectstatic runs first, then gunicorn boots its workers.
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline and server.poll() is None:
            with contextlib.suppress(OSError):
                status, _, body = _get(f"{base}/health/")
                break
            time.sleep(0.3)
        assert status == 200, log.read_text()[-3000:]
        assert json.loads(body)["status"] == "ok"

        status, headers, body = _get(f"{base}/api/v1/", {**SECURE, "Accept": "application/json"})
        assert status == 200
        assert headers["Content-Type"].startswith("application/json")
        assert headers["X-Request-ID"]

        # Static files: collected at start, served by whitenoise, the hashed names cached for good.
        manifest = json.loads((tmp_path / "static" / "staticfiles.json").read_text())
        hashed = manifest["paths"]["admin/css/base.css"]
        status, headers, body = _get(f"{base}/static/admin/css/base.css")
        assert status == 200 and headers["Content-Type"].startswith("text/css") and body
        status, headers, _ = _get(f"{base}/static/{hashed}", {**SECURE, "Accept-Encoding": "gzip"})
        assert status == 200
        assert "immutable" in headers["Cache-Control"]
        assert headers.get("Content-Encoding") == "gzip"

        # Production headers: HTTPS only, with HSTS; plain HTTP is redirected, but for the health check.
        status, headers, _ = _get(f"{base}/health/")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
        status, headers, _ = _get(f"{base}/api/v1/events/", {})
        assert status == 301 and headers["Location"] == f"https://127.0.0.1:{port}/api/v1/events/"
        assert _get(f"{base}/health/", {})[0] == 200

        # The throttle's rate (20 a minute) holds across both workers, whatever
        # X-Forwarded-For a client invents: one request to the API was made above.
        statuses = [
            _get(f"{base}/api/v1/sources/", {**SECURE, "X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(1, 25)
        ]
        assert statuses == [200] * 19 + [429] * 5, statuses
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)

    # The request log is JSON, one line per request, from the gunicorn workers.
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    api = [line for line in lines if line.get("logger") == "archive.request" and line.get("path") == "/api/v1/"]
    assert api and api[0]["status"] == 200 and api[0]["method"] == "GET"
    assert {"duration_ms", "queries", "remote_addr", "request_id"} <= set(api[0])
    assert api[0]["remote_addr"] == "127.0.0.1"
