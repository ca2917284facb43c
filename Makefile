# Thin wrappers: each target runs the commands you would type yourself.
#   make run    install if needed, migrate, load demo data, start web + worker + beat
#   make test   install if needed, run the whole test suite
#   make bench  engine speed per game, written to bench/RESULTS.md
#   make lint   ruff

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: install run test bench lint

# (Re)install when pyproject.toml or the set of top-level packages changed: the editable
# install maps each package by name, so a newly added app needs a reinstall to be found.
install:
	@test -x $(PY) || { echo "creating $(VENV)"; python3 -m venv $(VENV); }
	@fingerprint="$$( { cat pyproject.toml; ls -d */__init__.py platform/*/__init__.py 2>/dev/null; } | sha256sum )"; \
	if [ "$$fingerprint" != "$$(cat $(STAMP) 2>/dev/null)" ]; then \
		echo "installing the project and its test tools into $(VENV)"; \
		$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]' && echo "$$fingerprint" > $(STAMP); \
	fi

# Serves http://127.0.0.1:8000 with a Celery worker and beat; Ctrl-C stops all three.
# load_demo only ever runs here on a local machine, hence --allow-production for
# DJANGO_DEBUG=0 trials of the production settings.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo --allow-production
	$(PY) manage.py collectstatic --noinput --verbosity 0
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PYTHONUNBUFFERED=1 $(VENV)/bin/honcho start -f Procfile

# pytest's exit status 5 means it collected no tests: that is a failure, not a pass.
test: install
	$(PY) -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; \
	exit $$status

bench: install
	$(PY) bench/run.py

lint: install
	$(VENV)/bin/ruff check .
