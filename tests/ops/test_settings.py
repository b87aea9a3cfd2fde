"""Production settings, each read by a fresh process from a controlled environment.

Settings are evaluated once per process, so every case here starts Python with
exactly the variables it names and nothing inherited (no DEBUG, no SECRET_KEY
from the test run), then reports what Django made of them as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

_REPORT = """
import json
import django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "DEBUG": s.DEBUG,
    "ALLOWED_HOSTS": s.ALLOWED_HOSTS,
    "DATABASES": {alias: {k: v for k, v in db.items() if k in ("ENGINE", "HOST", "CONN_MAX_AGE",
        "CONN_HEALTH_CHECKS", "OPTIONS", "TEST")} for alias, db in s.DATABASES.items()},
    "DATABASE_ROUTERS": s.DATABASE_ROUTERS,
    "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": s.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "SECURE_PROXY_SSL_HEADER": s.SECURE_PROXY_SSL_HEADER,
    "USE_X_FORWARDED_HOST": s.USE_X_FORWARDED_HOST,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT,
    "SESSION_COOKIE_SECURE": s.SESSION_COOKIE_SECURE,
    "CSRF_COOKIE_SECURE": s.CSRF_COOKIE_SECURE,
    "TRUSTED_PROXY_COUNT": s.TRUSTED_PROXY_COUNT,
    "AXES_CLIENT_IP_CALLABLE": s.AXES_CLIENT_IP_CALLABLE,
    "LOG_FORMAT": s.LOG_FORMAT,
    "STATICFILES": s.STORAGES["staticfiles"]["BACKEND"],
    "MIDDLEWARE": s.MIDDLEWARE,
}))
"""


def _clean_env(**variables: str) -> dict[str, str]:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    return {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", **variables}


def _run(code: str, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_clean_env(**variables), capture_output=True, text=True, timeout=60
    )


def _settings(**variables: str) -> dict[str, Any]:
    done = _run(_REPORT, **variables)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


PRODUCTION = {"SECRET_KEY": "a-long-random-production-secret", "ALLOWED_HOSTS": "archive.example.org"}


def test_debug_defaults_off_and_then_a_secret_key_is_required() -> None:
    done = _run("import django; django.setup()", ALLOWED_HOSTS="archive.example.org")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and "SECRET_KEY must be set" in done.stderr


def test_allowed_hosts_are_required_without_debug() -> None:
    done = _run("import django; django.setup()", SECRET_KEY="a-long-random-production-secret")
    assert done.returncode != 0
    assert "ALLOWED_HOSTS must be set" in done.stderr


def test_production_settings_load_with_a_secret_key_and_hosts() -> None:
    report = _settings(**PRODUCTION)
    assert report["DEBUG"] is False
    assert report["ALLOWED_HOSTS"] == ["archive.example.org"]
    assert report["SESSION_COOKIE_SECURE"] is True and report["CSRF_COOKIE_SECURE"] is True
    assert report["STATICFILES"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert report["LOG_FORMAT"] == "json"
    # HSTS and the HTTPS redirect are the operator's decision; off unless asked.
    assert report["SECURE_HSTS_SECONDS"] == 0
    assert report["SECURE_SSL_REDIRECT"] is False
    assert report["SECURE_PROXY_SSL_HEADER"] is None
    assert report["MIDDLEWARE"][:2] == ["archive.logging.RequestLogMiddleware", "config.routers.ReplicaReadMiddleware"]


def test_postgres_connections_persist_and_are_health_checked_in_production() -> None:
    report = _settings(**PRODUCTION, DATABASE_URL="postgres://archive:pw@db.example.org:5432/archive")
    default = report["DATABASES"]["default"]
    assert default["ENGINE"] == "django.db.backends.postgresql"
    assert default["CONN_MAX_AGE"] == 60
    assert default["CONN_HEALTH_CHECKS"] is True
    assert default["OPTIONS"]["connect_timeout"] == 5
    assert _settings(**PRODUCTION, CONN_MAX_AGE="0")["DATABASES"]["default"]["CONN_MAX_AGE"] == 0
    assert _settings(DEBUG="1")["DATABASES"]["default"]["CONN_MAX_AGE"] == 0


def test_replica_urls_become_mirrored_aliases() -> None:
    report = _settings(
        **PRODUCTION,
        DATABASE_URL="postgres://archive:pw@db1.example.org/archive",
        DATABASE_REPLICA_URLS="postgres://archive:pw@db2.example.org/archive, postgres://archive:pw@db3.example.org/archive",
    )
    databases = report["DATABASES"]
    assert list(databases) == ["default", "replica1", "replica2"]
    assert databases["replica2"]["HOST"] == "db3.example.org"
    assert databases["replica1"]["TEST"]["MIRROR"] == "default"
    assert databases["replica1"]["CONN_HEALTH_CHECKS"] is True
    assert databases["replica1"]["OPTIONS"]["connect_timeout"] == 2
    assert report["DATABASE_ROUTERS"] == ["config.routers.ReplicaRouter"]
    assert list(_settings(DEBUG="1")["DATABASES"]) == ["default"]


def test_proxy_and_hsts_settings_are_opt_in_by_environment() -> None:
    report = _settings(
        **PRODUCTION,
        BEHIND_PROXY="1",
        USE_X_FORWARDED_HOST="1",
        SECURE_HSTS_SECONDS="31536000",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="1",
        TRUSTED_PROXY_COUNT="1",
    )
    assert report["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert report["USE_X_FORWARDED_HOST"] is True
    assert report["SECURE_HSTS_SECONDS"] == 31536000
    assert report["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert report["TRUSTED_PROXY_COUNT"] == 1
    assert report["AXES_CLIENT_IP_CALLABLE"] == "archive.logging.client_ip"


def test_an_unknown_log_format_is_refused() -> None:
    done = _run("import django; django.setup()", **PRODUCTION, LOG_FORMAT="xml")
    assert done.returncode != 0 and "LOG_FORMAT must be json or text" in done.stderr


def test_demo_accounts_are_refused_under_production_settings(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "create_demo_accounts"],
        cwd=ROOT,
        env=_clean_env(**PRODUCTION, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "Demo accounts exist only in the demo setup" in done.stderr
