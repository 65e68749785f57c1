# FiveX: `make run` serves the site on http://127.0.0.1:8000, `make test` runs every test.
.DEFAULT_GOAL := help
.PHONY: help install check-venv run demo test lint migrate clean
# One step at a time (also under -j): check-venv may remove the .venv the install fills.
.NOTPARALLEL:

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# Test processes side by side (pytest-xdist): one a CPU; 0 runs the suite in this process.
TEST_WORKERS ?= auto
ADDRPORT ?= 127.0.0.1:8000

help:
	@echo "make run    - install, migrate, create the demo organizer, serve http://127.0.0.1:8000"
	@echo "             (web server + Celery worker + Celery beat; Ctrl-C stops them all;"
	@echo "             another address: make run ADDRPORT=0.0.0.0:8001 FIVEX_BASE_URL=http://host:8001)"
	@echo "make demo   - add five demo players (one password, printed once) and games waiting"
	@echo "             for Ann's order, a finished game and a tournament (development only)"
	@echo "             (after make run ADDRPORT=...: make demo ADDRPORT=..., for the links it prints)"
	@echo "make test   - install and run the whole test suite"
	@echo "make lint   - ruff"

$(PY):
	@python=$$(scripts/find-python) && echo "Creating $(VENV) with $$python" && "$$python" -m venv $(VENV)

# Reinstall only when pyproject.toml changed since the last successful install.
$(STAMP): pyproject.toml | $(PY)
	@if [ -e $(STAMP) ]; then \
		echo "Updating the dependencies in $(VENV) (pyproject.toml changed since the last install; this can take a few minutes)..."; \
	else \
		echo "Installing FiveX and its dependencies into $(VENV) (this can take a few minutes)..."; \
	fi
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# A .venv left by an older Python (e.g. a `python3 -m venv` with 3.11) is made again.
check-venv:
	@if [ -x $(PY) ] && ! $(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then \
		echo "$(VENV) was made with $$($(PY) -V 2>&1), FiveX needs Python 3.12+: making it again"; \
		rm -rf $(VENV); \
	fi

install: check-venv $(STAMP)

# A development site, named: manage.py's commands that write the site's state refuse to run
# on the development defaults without FIVEX_ENV (fivex_site/deployment.py); an environment's
# own FIVEX_ENV is kept.
migrate run demo: export FIVEX_ENV ?= development

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py demo_setup
	$(PY) manage.py runall --addrport $(ADDRPORT) --stop-with-parent

demo: migrate
	$(PY) manage.py demo_games --addrport $(ADDRPORT)

test: install
	@scripts/ensure-chromium
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf var/celery var/test-*.sqlite3* .pytest_cache
