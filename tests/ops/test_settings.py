"""Production settings, each read by a fresh process from a controlled environment.

Settings are evaluated once per process, so every case here starts Python with
exactly the variables it names and nothing inherited (no DEBUG, no SECRET_KEY
from the test run, and no local `.env` file: ENV_FILE is empty unless a case
names one), then reports what Django made of them as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

_REPORT = """
import json
import django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "DEBUG": s.DEBUG,
    "ALLOWED_HOSTS": s.ALLOWED_HOSTS,
    "DATABASES": {alias: {k: v for k, v in db.items() if k in ("ENGINE", "NAME", "HOST", "CONN_MAX_AGE",
        "CONN_HEALTH_CHECKS", "OPTIONS", "TEST")} for alias, db in s.DATABASES.items()},
    "DATABASE_ROUTERS": s.DATABASE_ROUTERS,
    "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": s.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "SECURE_HSTS_PRELOAD": s.SECURE_HSTS_PRELOAD,
    "SECURE_PROXY_SSL_HEADER": s.SECURE_PROXY_SSL_HEADER,
    "USE_X_FORWARDED_HOST": s.USE_X_FORWARDED_HOST,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT,
    "SESSION_COOKIE_SECURE": s.SESSION_COOKIE_SECURE,
    "CSRF_COOKIE_SECURE": s.CSRF_COOKIE_SECURE,
    "TRUSTED_PROXY_COUNT": s.TRUSTED_PROXY_COUNT,
    "AXES_CLIENT_IP_CALLABLE": s.AXES_CLIENT_IP_CALLABLE,
    "NUM_PROXIES": s.REST_FRAMEWORK["NUM_PROXIES"],
    "THROTTLE_CLASSES": s.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"],
    "CACHE": s.CACHES["default"],
    "THROTTLE_TABLE": s.THROTTLE_TABLE,
    "AUTHENTICATION_BACKENDS": s.AUTHENTICATION_BACKENDS,
    "DEMO_PASSWORD": s.DEMO_PASSWORD,
    "LOG_FORMAT": s.LOG_FORMAT,
    "STATICFILES": s.STORAGES["staticfiles"]["BACKEND"],
    "MIDDLEWARE": s.MIDDLEWARE,
}))
"""

# Each test reads settings in a subprocess of its own, or its own SQLite file.
pytestmark = pytest.mark.engine_independent


def _clean_env(**variables: str) -> dict[str, str]:
    keep = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "LC_ALL") if key in os.environ}
    return {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", "ENV_FILE": "", **variables}


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
    # HTTPS only: redirect and a year of HSTS over the site's subdomains; preloading is the operator's call.
    assert report["SECURE_HSTS_SECONDS"] == 31536000
    assert report["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert report["SECURE_HSTS_PRELOAD"] is False
    assert report["SECURE_SSL_REDIRECT"] is True
    assert report["SECURE_PROXY_SSL_HEADER"] is None
    assert report["MIDDLEWARE"][:2] == [
        "archive.request_log.RequestLogMiddleware",
        "config.routers.ReplicaReadMiddleware",
    ]
    # The demo password is refused before the model backend can accept it.
    backends = report["AUTHENTICATION_BACKENDS"]
    assert backends.index("archive.demo_accounts.RefuseDemoPasswordBackend") < backends.index(
        "django.contrib.auth.backends.ModelBackend"
    )


def test_the_demo_keeps_http_and_no_hsts() -> None:
    report = _settings(DEBUG="1")
    assert report["SECURE_HSTS_SECONDS"] == 0
    assert report["SECURE_SSL_REDIRECT"] is False
    assert report["DEMO_PASSWORD"] == "archive-demo"


def test_postgres_connections_persist_and_are_health_checked_in_production() -> None:
    report = _settings(**PRODUCTION, DATABASE_URL="postgres://archive:pw@db.example.org:5432/archive")
    default = report["DATABASES"]["default"]
    assert default["ENGINE"] == "archive.db.postgresql"
    assert default["CONN_MAX_AGE"] == 60
    assert default["CONN_HEALTH_CHECKS"] is True
    assert default["OPTIONS"]["connect_timeout"] == 5
    # Server-side binding, and statements prepared once run five times, unless a pooler forbids it.
    assert default["OPTIONS"]["server_side_binding"] is True
    assert default["OPTIONS"]["prepare_threshold"] == 5
    pooled = _settings(**PRODUCTION, DATABASE_URL="postgres://a:pw@db/archive", DB_PREPARED_STATEMENTS="0")
    assert {"server_side_binding", "prepare_threshold"}.isdisjoint(pooled["DATABASES"]["default"]["OPTIONS"])
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


def test_proxy_and_https_settings_follow_the_environment() -> None:
    report = _settings(
        **PRODUCTION,
        BEHIND_PROXY="1",
        USE_X_FORWARDED_HOST="1",
        SECURE_HSTS_SECONDS="3600",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
        SECURE_HSTS_PRELOAD="1",
        SECURE_SSL_REDIRECT="0",
        TRUSTED_PROXY_COUNT="1",
    )
    assert report["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert report["USE_X_FORWARDED_HOST"] is True
    assert report["SECURE_HSTS_SECONDS"] == 3600
    assert report["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert report["SECURE_HSTS_PRELOAD"] is True
    assert report["SECURE_SSL_REDIRECT"] is False
    assert report["TRUSTED_PROXY_COUNT"] == 1
    # One function names the client for the log, the lockout and the throttle; DRF agrees.
    assert report["AXES_CLIENT_IP_CALLABLE"] == "archive.client_address.client_ip"
    assert report["THROTTLE_CLASSES"] == ["archive.client_address.ClientRateThrottle"]
    assert report["NUM_PROXIES"] == 1
    assert _settings(**PRODUCTION)["NUM_PROXIES"] == 0


def test_sqlite_takes_its_write_lock_at_the_start_of_a_transaction() -> None:
    options = _settings(DEBUG="1")["DATABASES"]["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] == 20
    assert [part.strip() for part in options["init_command"].split(";") if part.strip()] == [
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=NORMAL",
    ]
    postgres = _settings(**PRODUCTION, DATABASE_URL="postgres://archive:pw@db.example.org:5432/archive")
    assert "transaction_mode" not in postgres["DATABASES"]["default"]["OPTIONS"]


def test_the_throttle_counts_in_a_store_every_worker_shares(tmp_path: Path) -> None:
    on_this_host = _settings(**PRODUCTION, CACHE_DIR=str(tmp_path))
    assert on_this_host["THROTTLE_TABLE"] == str(tmp_path / "throttle.table")
    files = on_this_host["CACHE"]
    assert files["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert files["LOCATION"] == str(tmp_path)
    # Without CACHE_DIR: one directory per database, so that other databases never count together.
    first = _settings(**PRODUCTION, DATABASE_URL="sqlite:////tmp/one.sqlite3")["CACHE"]["LOCATION"]
    second = _settings(**PRODUCTION, DATABASE_URL="sqlite:////tmp/two.sqlite3")["CACHE"]["LOCATION"]
    assert first != second and Path(first).parent == ROOT / ".cache"
    with_redis = _settings(**PRODUCTION, REDIS_URL="redis://cache.example.org:6379/0")
    assert with_redis["THROTTLE_TABLE"] == ""  # every host counts in Redis together
    redis = with_redis["CACHE"]
    assert redis == {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://cache.example.org:6379/0"}


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


# -- the local environment file and the deployment checklist

# The production environment the operator's guide gives (docs/operations.md, "Running on
# PostgreSQL" and "Behind a reverse proxy"), with SQLite standing in for the database.
GUIDE = {
    "SECRET_KEY": "k7Qm2vX9pL4rT8wZ1nB6yH3cF5jD0sG7aE2uR9iO4pK8mN1qW6zX3vC5bL0tY7hJ",
    "ALLOWED_HOSTS": "archive.example.org",
    "BEHIND_PROXY": "1",
    "TRUSTED_PROXY_COUNT": "1",
    "CSRF_TRUSTED_ORIGINS": "https://archive.example.org",
}


def _manage(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=_clean_env(**variables),
        capture_output=True,
        text=True,
        timeout=180,
    )


def _make(*args: str, cwd: Path = ROOT, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), "-o", ".venv/.installed", *args],
        cwd=cwd,
        env=_clean_env(PYTHON=sys.executable, **variables),
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_make_check_deploy_passes_under_the_guides_production_settings(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    done = _make("check-deploy", **GUIDE, DATABASE_URL=database)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no issues" in done.stdout
    # The defaults alone (no proxy) pass as well: HTTPS redirect and HSTS are on without DEBUG.
    bare = {"SECRET_KEY": GUIDE["SECRET_KEY"], "ALLOWED_HOSTS": "archive.example.org", "DATABASE_URL": database}
    done = _manage("check", "--deploy", "--fail-level", "WARNING", **bare)
    assert done.returncode == 0, done.stderr[-2000:]
    # Turning the redirect or HSTS off is the operator's right, and the checklist says so.
    done = _manage("check", "--deploy", "--fail-level", "WARNING", **bare, SECURE_SSL_REDIRECT="0")
    assert done.returncode != 0 and "security.W008" in done.stderr
    done = _manage("check", "--deploy", "--fail-level", "WARNING", **bare, SECURE_HSTS_SECONDS="0")
    assert done.returncode != 0 and "security.W004" in done.stderr


def test_check_deploy_fails_on_a_database_with_the_demo_accounts(tmp_path: Path) -> None:
    demo = {"DEBUG": "1", "SECRET_KEY": "demo", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    for command in (["migrate", "--noinput", "-v0"], ["create_demo_accounts"]):
        done = _manage(*command, **demo)
        assert done.returncode == 0, done.stderr[-2000:]
    done = _manage("check", "--deploy", "--fail-level", "WARNING", **GUIDE, DATABASE_URL=demo["DATABASE_URL"])
    assert done.returncode != 0
    assert "archive.E001" in done.stderr
    assert "Accounts with the demo password: curator, reviewer." in done.stderr


def test_make_writes_the_local_environment_file_once(tmp_path: Path) -> None:
    done = _make(".env", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    env_file = tmp_path / ".env"
    written = env_file.read_text()
    values = dict(line.split("=", 1) for line in written.splitlines() if line and not line.startswith("#"))
    assert values["DEBUG"] == "1"
    assert len(values["SECRET_KEY"]) >= 50
    assert values["DATABASE_URL"] == f"sqlite:///{tmp_path}/db.sqlite3"
    assert env_file.stat().st_mode & 0o777 == 0o600  # the secret key is the owner's alone
    # A second `make setup` keeps it, with its secret key.
    assert _make(".env", cwd=tmp_path).returncode == 0
    assert env_file.read_text() == written


def test_settings_read_the_local_environment_file_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"# local\nDEBUG=1\nSECRET_KEY=local-secret\nDATABASE_URL=sqlite:///{tmp_path / 'local.sqlite3'}\n"
    )
    local = _settings(ENV_FILE=str(env_file))
    assert local["DEBUG"] is True
    assert local["DATABASES"]["default"]["NAME"] == str(tmp_path / "local.sqlite3")
    overridden = _settings(ENV_FILE=str(env_file), DATABASE_URL="postgres://archive:pw@db.example.org/archive")
    assert overridden["DATABASES"]["default"]["ENGINE"] == "archive.db.postgresql"
    # DEBUG=0 in the environment beats the file, and production's rules apply again.
    done = _run("import django; django.setup()", ENV_FILE=str(env_file), DEBUG="0")
    assert done.returncode != 0 and "ALLOWED_HOSTS must be set" in done.stderr
    # A file named but missing is an error, never a silent fallback.
    done = _run("import django; django.setup()", ENV_FILE=str(tmp_path / "missing.env"))
    assert done.returncode != 0 and "ENV_FILE names" in done.stderr
