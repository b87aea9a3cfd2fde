"""Settings of the archive, read from the environment.

One module for every setting: development, tests and production differ only by
environment variables (DATABASE_URL, SECRET_KEY, DEBUG, ALLOWED_HOSTS ...), so
what is tested is what runs. Production (DEBUG off) refuses to start without a
real SECRET_KEY and ALLOWED_HOSTS.

A local checkout has a `.env` file that `make setup` writes once (DEBUG=1, a
random SECRET_KEY, the SQLite DATABASE_URL), so that every `manage.py` command
of the README works in a plain shell. Variables of the environment win over
the file; production has no such file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import dj_database_url
import environ  # type: ignore[import-untyped]  # django-environ ships no type information
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

# The local environment file; ENV_FILE names another one, or none when empty.
# A file named explicitly must exist; the default one is optional.
ENV_FILE = os.environ.get("ENV_FILE", str(BASE_DIR / ".env"))
if ENV_FILE:
    if Path(ENV_FILE).is_file():
        environ.Env.read_env(ENV_FILE, overwrite=False)
    elif "ENV_FILE" in os.environ:
        raise ImproperlyConfigured(f"ENV_FILE names {ENV_FILE}, which is not a file.")


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", _DEV_SECRET if DEBUG else "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")

if not DEBUG:
    if not SECRET_KEY or SECRET_KEY == _DEV_SECRET:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off.")

INSTALLED_APPS = [
    # First, so that its templates override the admin's (base_site, index).
    "archive",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "import_export",
    "corsheaders",
    "axes",
]

MIDDLEWARE = [
    # First, so that the request log times and counts everything below it.
    "archive.request_log.RequestLogMiddleware",
    # Marks the API's safe requests, whose reads config.routers sends to replicas.
    "config.routers.ReplicaReadMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the stored answers below, so that they carry its header too.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The Content-Security-Policy below, on every answer (stored ones too).
    "csp.middleware.CSPMiddleware",
    # Plain reads of one record or a first-shown page from its stored document; the middleware below serve the admin.
    "archive.api.stored_answers.StoredAnswerMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, so that it sees the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite file by default, so that the demo needs nothing installed. In production
# connections persist (CONN_MAX_AGE, default 60 s) and are checked before reuse.
CONN_MAX_AGE = int(os.environ.get("CONN_MAX_AGE", "0" if DEBUG else "60"))
DB_CONNECT_TIMEOUT = int(os.environ.get("DB_CONNECT_TIMEOUT", "5"))
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
POSTGRESQL_ENGINE = "archive.db.postgresql"


def _database(url: str, connect_timeout: int) -> dict[str, Any]:
    config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=CONN_MAX_AGE, conn_health_checks=True))
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Django's backend, with a health check that reads the socket instead of asking the server.
        config["ENGINE"] = POSTGRESQL_ENGINE
        options = config.setdefault("OPTIONS", {})
        # A server that does not answer must not hang a worker.
        options.setdefault("connect_timeout", connect_timeout)
        if DB_PREPARED_STATEMENTS:
            # Parameters bound by the server, and a statement run five times on a connection is
            # prepared: PostgreSQL then stops planning it again on every request, which cost more
            # than running the API's small statements. Off for a pooler that cannot keep prepared
            # statements (PgBouncer before 1.21 in transaction mode), see docs/operations.md.
            options.setdefault("server_side_binding", True)
            options.setdefault("prepare_threshold", 5)
    return config


DATABASES = {
    "default": _database(os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"), DB_CONNECT_TIMEOUT)
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers on the whole file. A transaction that starts
    # DEFERRED and writes later asks for the lock too late: SQLite cannot wait
    # for it then and answers "database is locked" at once, whatever the busy
    # timeout. IMMEDIATE takes the lock at BEGIN, where the 20 s timeout lets
    # curators queue; WAL lets readers go on while one writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": os.environ.get("SQLITE_TRANSACTION_MODE", "IMMEDIATE"),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": int(os.environ.get("SQLITE_TIMEOUT", "20")),
        }
    )

# Read replicas (PostgreSQL streaming standbys), comma-separated URLs; they become
# the aliases replica1, replica2 … and serve the API's reads (config/routers.py).
# A test run mirrors them onto the test database, so the suite needs no replica.
REPLICA_CONNECT_TIMEOUT = int(os.environ.get("REPLICA_CONNECT_TIMEOUT", "2"))
# How long a replica that failed to connect is skipped before it is tried again.
REPLICA_RETRY_SECONDS = float(os.environ.get("REPLICA_RETRY_SECONDS", "5"))
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS"), start=1):
    DATABASES[f"replica{_number}"] = {**_database(_url, REPLICA_CONNECT_TIMEOUT), "TEST": {"MIRROR": "default"}}
DATABASE_ROUTERS = ["config.routers.ReplicaRouter"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Without DEBUG, the demo password signs nobody in (archive/demo_accounts.py).
    "archive.demo_accounts.RefuseDemoPasswordBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# The password of the demo accounts `curator` and `reviewer` (create_demo_accounts).
DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "archive-demo")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文"), ("zh-hant", "繁體中文")]
LOCALE_PATHS = [BASE_DIR / "archive" / "locale"]
# Times in the sources are Nanjing local time.
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# Rendered API responses, stored per process until the data changes (`archive.api.caching`).
# The default cache serves throttling; `api` holds the pages. 0 seconds turns the store off.
API_CACHE_SECONDS = int(os.environ.get("API_CACHE_SECONDS", "600"))
# The API's JSON documents read from their stored copies (`archive.api.stored`); 0 builds each with the serializers.
API_STORED_DOCUMENTS = os.environ.get("API_STORED_DOCUMENTS", "1") != "0"
# On PostgreSQL, a stored document is built by one prepared SQL statement (`archive.api.sql_built`);
# 0 builds it with the serializers, as SQLite always does.
API_SQL_DOCUMENTS = os.environ.get("API_SQL_DOCUMENTS", "1") != "0"
# Ceiling of the pages one process holds, in bytes, whatever clients ask for (docs/security.md).
API_CACHE_MAX_BYTES = int(os.environ.get("API_CACHE_MAX_BYTES", str(32 * 1024 * 1024)))
# The API throttle's counts must be one store for every worker: the default cache
# in Redis where REDIS_URL is set (needs the `redis` package), which every host
# shares; else a table in a file of this host's CACHE_DIR that all its workers
# map. Not a database table: a write there on every request would change the
# data's generation and empty the response cache below. The default directory is
# one per DATABASE_URL, so two checkouts or test runs on other databases never
# count together.
REDIS_URL = os.environ.get("REDIS_URL", "")
_DATABASE_ID = "|".join(str(DATABASES["default"].get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
CACHE_DIR = os.environ.get("CACHE_DIR") or str(
    BASE_DIR / ".cache" / hashlib.sha256(_DATABASE_ID.encode()).hexdigest()[:16]
)
# archive/rate_table.py; empty with Redis.
THROTTLE_TABLE = "" if REDIS_URL else os.path.join(CACHE_DIR, "throttle.table")
DEFAULT_CACHE: dict = (
    {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": CACHE_DIR,
        # Django's default cache; the throttle counts in THROTTLE_TABLE beside it.
        "OPTIONS": {"MAX_ENTRIES": int(os.environ.get("CACHE_ENTRIES", "10000"))},
    }
)
CACHES = {
    "default": DEFAULT_CACHE,
    "api": {
        "BACKEND": "archive.api.bounded_cache.BoundedMemoryCache"
        if API_CACHE_SECONDS
        else "django.core.cache.backends.dummy.DummyCache",
        "LOCATION": "api",
        "TIMEOUT": API_CACHE_SECONDS or None,
        "OPTIONS": {
            "MAX_ENTRIES": int(os.environ.get("API_CACHE_ENTRIES", "500")),
            "MAX_BYTES": API_CACHE_MAX_BYTES,
        },
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "archive.api.errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "archive.api.pagination.ArchivePagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    # Counted per archive.client_address.client_ip, in the shared default cache.
    "DEFAULT_THROTTLE_CLASSES": ["archive.client_address.ClientRateThrottle"],
    # One throttle, one rate per surface: the API (DRF's views), the reconciliation service and the
    # reading room (plain views, counted by archive/throttle.py).
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_ANON_RATE", "600/minute"),
        "reconcile": os.environ.get("RECONCILE_RATE", "300/minute"),
        "room": os.environ.get("ROOM_RATE", "300/minute"),
    },
    # Set below from TRUSTED_PROXY_COUNT, so that any stock DRF throttle agrees too.
    "NUM_PROXIES": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Archive of the retreat from Nanjing, 1937",
    "DESCRIPTION": "Read-only API: every statement points at the passage of the source that makes it.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: it would be an image from validator.swagger.io, which the policy refuses.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # The reconciliation service (plain Django views) is added to the schema by a hook.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "archive.reconcile.openapi.add_reconciliation_paths",
    ],
}

# A history row's reason names who proposed and who approved, and may quote a review note: no length limit.
SIMPLE_HISTORY_HISTORY_CHANGE_REASON_USE_TEXT_FIELD = True

CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]

AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 1  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_ENABLED = env_bool("AXES_ENABLED", True)

# Behind reverse proxies, the client is the TRUSTED_PROXY_COUNT-th address from
# the right of X-Forwarded-For (each proxy appends its peer); with none, the peer.
# One function decides it for the request log, axes' lockouts and the API's
# throttle (archive/client_address.py). Axes reads the AXES_IPWARE_* names only
# when django-ipware is installed, and a callable takes precedence, so they are
# set only to say the same thing to an operator who swaps in ipware.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
AXES_CLIENT_IP_CALLABLE = "archive.client_address.client_ip"
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT
AXES_IPWARE_PROXY_COUNT = TRUSTED_PROXY_COUNT or None
AXES_IPWARE_PROXY_ORDER = "right-most"
AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if TRUSTED_PROXY_COUNT else ("REMOTE_ADDR",)

# Imports are bounded (docs/security.md): a source text file (`import_source`) and
# a spreadsheet uploaded in the admin are refused beyond these sizes, a spreadsheet
# also beyond a number of rows, so that one import never holds a worker past its
# timeout. Uploads wait for their confirm step in IMPORT_UPLOAD_DIR (created 0700),
# under a random name that only the uploader's signed form can name.
SOURCE_IMPORT_MAX_BYTES = int(os.environ.get("SOURCE_IMPORT_MAX_BYTES", str(50 * 1024 * 1024)))
SPREADSHEET_IMPORT_MAX_BYTES = int(os.environ.get("SPREADSHEET_IMPORT_MAX_BYTES", str(5 * 1024 * 1024)))
SPREADSHEET_IMPORT_MAX_ROWS = int(os.environ.get("SPREADSHEET_IMPORT_MAX_ROWS", "1000"))
# Counted as an XLSX sheet is read, which stops at the limit (archive/importing/sheet_limits.py).
SPREADSHEET_IMPORT_MAX_CELLS = int(os.environ.get("SPREADSHEET_IMPORT_MAX_CELLS", "100000"))
SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES = int(
    os.environ.get("SPREADSHEET_IMPORT_MAX_UNPACKED_BYTES", str(50 * 1024 * 1024))
)
# Empty: a folder of this user's own inside the system's temp folder. Several web
# hosts need one shared folder here (the confirm step may reach another host).
IMPORT_UPLOAD_DIR = os.environ.get("IMPORT_UPLOAD_DIR", "")
IMPORT_EXPORT_TMP_STORAGE_CLASS = "archive.importing.uploads.SignedUploadStorage"

# Lines of a source text that are not part of the work (a hosting site's
# advertisement); the importer marks matching passages as boilerplate.
# Each entry is a regular expression searched in the passage.
ARCHIVE_BOILERPLATE_PATTERNS = [
    r"请大家收藏",
    r"更新速度全网最快",
    r"\(www\.[a-z0-9.-]+\)",
]

# Behind a TLS-terminating reverse proxy (BEHIND_PROXY=1): trust its
# X-Forwarded-Proto; the proxy must overwrite that header, never pass it through.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None
USE_X_FORWARDED_HOST = env_bool("USE_X_FORWARDED_HOST", False)
# Production speaks HTTPS only: Django redirects plain HTTP (behind a TLS proxy it
# needs BEHIND_PROXY=1 to see that a request was secure) and sends HSTS for a
# year, covering the site's own subdomains. The health check is exempt so that a
# load balancer may probe over plain HTTP. Each is the operator's to override.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Django's deploy check asks for HSTS preloading (security.W021). Preloading binds
# the whole registrable domain into browsers for good and is asked for by hand, so
# it stays the operator's choice (SECURE_HSTS_PRELOAD=1), not a default.
SILENCED_SYSTEM_CHECKS = ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
# No script of the site reads the cookie: forms carry the token, the API docs get it rendered into their script.
CSRF_COOKIE_HTTPONLY = True

# Every page (reading room, admin, API docs) runs only the scripts the app serves: no inline
# script, no inline handler, no eval, nothing from elsewhere (docs/security.md, "Script from data").
# Styles may be inline: the admin's and the API pages' own templates set some, and a style runs no script.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Logs go to the console (gunicorn passes them to its stderr): JSON lines in
# production, readable text in development. archive.request writes one line per
# request (archive/request_log.py); it is quiet in development unless asked.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json")
if LOG_FORMAT not in {"json", "text"}:
    raise ImproperlyConfigured("LOG_FORMAT must be json or text.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "archive.request_log.JsonFormatter"},
        "text": {"()": "archive.request_log.TextFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        # Django's default console handler would print DEBUG-time records twice.
        "django": {"handlers": [], "propagate": True},
        "archive.request": {"level": os.environ.get("REQUEST_LOG_LEVEL", "WARNING" if DEBUG else "INFO")},
    },
}
