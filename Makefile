# FiveX: `make run` serves the site on http://127.0.0.1:8000, `make test` runs every test.
.DEFAULT_GOAL := help
.PHONY: help install run test lint migrate clean

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
ADDRPORT ?= 127.0.0.1:8000

help:
	@echo "make run    - install, migrate, create the demo organizer, serve http://127.0.0.1:8000"
	@echo "             (web server + Celery worker + Celery beat; Ctrl-C stops them all;"
	@echo "             another address: make run ADDRPORT=0.0.0.0:8001 FIVEX_BASE_URL=http://host:8001)"
	@echo "make test   - install and run the whole test suite"
	@echo "make lint   - ruff"

$(PY):
	@python=$$(scripts/find-python) && echo "Creating $(VENV) with $$python" && "$$python" -m venv $(VENV)

# Reinstall only when pyproject.toml changed since the last successful install.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py demo_setup
	$(PY) manage.py runall --addrport $(ADDRPORT)

test: install
	@scripts/ensure-chromium
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf var/celery var/test-*.sqlite3* .pytest_cache
