# The README's commands. `make run` serves the demo; `make test` runs the suite
# on SQLite and, where PostgreSQL's server binaries exist, on PostgreSQL too.

# The interpreter the virtual environment is made from: the distribution's /usr/bin/python3 where it can
# make one (Debian builds it with profile-guided optimisation: test files took 18-26 % less CPU on it than
# on a python3 compiled from source without, as pyenv compiles by default), else python3 from the PATH.
PYTHON ?= $(shell /usr/bin/python3 -c 'import ensurepip, sys, venv; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && echo /usr/bin/python3 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export DJANGO_SETTINGS_MODULE := config.settings

.PHONY: run test setup venv lint serve check-deploy clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

# The local environment of the demo and the tests, written once and never
# overwritten: DEBUG on, a random SECRET_KEY, the SQLite file. Settings read it,
# so every `manage.py` command works in a plain shell; a variable set in the
# environment wins over it (`DATABASE_URL=postgres://... make run`). Production
# has no .env (docs/operations.md).
.env:
	umask 077; $(PYTHON) -c 'import secrets, sys; print("\n".join(["# Local settings of the demo and the tests, written once by make setup.", "# Production has no such file (docs/operations.md).", "DEBUG=1", "SECRET_KEY=" + secrets.token_urlsafe(50), "DATABASE_URL=sqlite:///" + sys.argv[1] + "/db.sqlite3"]))' "$(CURDIR)" > $@.tmp && mv $@.tmp $@

# Migrate the database (the SQLite file unless DATABASE_URL says otherwise), load
# the collection, create the demo accounts. DEBUG comes from .env or the
# environment: create_demo_accounts refuses to run without it. Into a database
# that has data, a collection that changed since goes to review in the name of
# an account: `make run LOAD_AS=username` (unchanged, it needs none).
LOAD_AS ?=
setup: venv .env
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_collection $(if $(LOAD_AS),--as $(LOAD_AS))
	$(BIN)/python manage.py create_demo_accounts

run: setup
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: setup
	$(BIN)/python scripts/run_tests.py

# Production: gunicorn with WEB_CONCURRENCY workers (default 2 x cores + 1, at
# most WEB_CONCURRENCY_MAX), static files collected for whitenoise first. Needs
# the production environment (SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL ...) and a
# migrated database; see docs/operations.md.
WEB_CONCURRENCY_MAX ?= 8
WEB_CONCURRENCY ?= $(shell n=$$(( 2 * $$(nproc 2>/dev/null || echo 1) + 1 )); \
	[ $$n -gt $(WEB_CONCURRENCY_MAX) ] && n=$(WEB_CONCURRENCY_MAX); echo $$n)
GUNICORN_TIMEOUT ?= 30

serve: venv
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	exec $(BIN)/gunicorn config.wsgi:application --bind $(HOST):$(PORT) \
		--workers $(WEB_CONCURRENCY) --timeout $(GUNICORN_TIMEOUT) --graceful-timeout 30 \
		--max-requests 2000 --max-requests-jitter 200 --error-logfile -

# Django's deployment checklist, and the archive's own deploy checks (no account
# with the demo password), against the current environment; any warning fails.
check-deploy: venv
	$(BIN)/python manage.py check --deploy --database default --fail-level WARNING

# The checks CI runs before the tests: style (ruff), types (mypy with the Django
# and DRF plugins, which read the settings, hence .env) and the layers of the
# code (import-linter, contracts in pyproject.toml); bandit fails on any finding of high severity.
lint: venv .env
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/bandit -r archive config -lll -q

# Keeps .env (its SECRET_KEY and anything added to it).
clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles .cache
