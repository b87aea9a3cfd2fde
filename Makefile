# The README's commands. `make run` serves the demo; `make test` runs the suite
# on SQLite and, where PostgreSQL's server binaries exist, on PostgreSQL too.

PYTHON ?= python3
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

# Migrate the SQLite file, load the collection, create the demo accounts.
setup: venv
	DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=1 $(BIN)/python manage.py load_collection
	DEBUG=1 $(BIN)/python manage.py create_demo_accounts

run: setup
	DEBUG=1 $(BIN)/python manage.py runserver $(HOST):$(PORT)

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

# Django's deployment checklist against the current environment.
check-deploy: venv
	$(BIN)/python manage.py check --deploy

lint: venv
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
