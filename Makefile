# The README's commands. `make run` serves the demo; `make test` runs the suite
# on SQLite and, where PostgreSQL's server binaries exist, on PostgreSQL too.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export DJANGO_SETTINGS_MODULE := config.settings

.PHONY: run test setup venv lint serve clean

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

test: venv
	$(BIN)/python scripts/run_tests.py

lint: venv
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
