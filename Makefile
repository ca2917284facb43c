# Thin wrappers: each target runs the commands you would type yourself.
#   make run    install if needed, migrate, load demo data, start web + worker + beat
#   make serve  start web + worker + beat only
#   make test   install if needed, run the whole test suite in parallel (TEST_WORKERS: cores + 1; 0: one process)
#   make bench  engine speed, pairing, live bot latency into bench/RESULTS.md (BENCH_ARGS=--strength: bots, hours)
#   make lint   ruff, and import-linter's contracts on the layers of the packages (pyproject.toml)

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# Test processes (pytest-xdist): one more than the cores this process may use. A good part
# of the suite waits (on servers, workers, bots and pages), and on two cores a third process
# fills those waits (docs/testing.md, "In parallel"). auto is one per core; 0 runs the suite
# in this process alone.
TEST_WORKERS ?= $(shell python3 -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')

.PHONY: install run serve test bench lint

# (Re)install when pyproject.toml, constraints.txt or the set of top-level packages changed:
# the editable install maps each package by name, so a newly added app needs a reinstall to
# be found. Every dependency is held at the version in constraints.txt (docs/testing.md).
install:
	@test -x $(PY) || { echo "creating $(VENV)"; python3 -m venv $(VENV); }
	@fingerprint="$$( { cat pyproject.toml constraints.txt; ls -d */__init__.py platform/*/__init__.py 2>/dev/null; } | sha256sum )"; \
	if [ "$$fingerprint" != "$$(cat $(STAMP) 2>/dev/null)" ]; then \
		echo "installing the project and its test tools into $(VENV)"; \
		$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]' && echo "$$fingerprint" > $(STAMP); \
	fi

# Serves http://127.0.0.1:8000 with a Celery worker and beat; Ctrl-C stops all three.
# load_demo only ever runs here on a local machine, hence --allow-production for
# DJANGO_DEBUG=0 trials of the production settings.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo --allow-production
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(SERVE)

# The three processes of the Procfile under honcho, without the set-up steps (make serve).
# A clean Ctrl-C: honcho sends each process SIGTERM and waits HONCHO_KILL_WAIT seconds
# before it would SIGKILL (its own default, 5 s, is shorter than the worker's warm shutdown,
# which finishes the match in hand: the Procfile's solo pool has no child processes to be
# signalled mid-task). Honcho then exits 130, which after Ctrl-C means "stopped as asked",
# so make reports no error.
PROCFILE ?= Procfile
HONCHO_KILL_WAIT ?= 60
define SERVE
@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PYTHONUNBUFFERED=1 $(PY) -c 'import sys, honcho.manager as m; \
	from honcho.command import main; m.KILL_WAIT = float(sys.argv.pop(1)); sys.argv[0] = "honcho"; main()' \
	$(HONCHO_KILL_WAIT) start -f $(PROCFILE) -d $(CURDIR); \
	status=$$?; if [ $$status -eq 130 ]; then echo "stopped: web, workers and beat"; exit 0; fi; exit $$status
endef

serve:
	$(SERVE)

# pytest's exit status 5 means it collected no tests: that is a failure, not a pass.
# --durations: the 30 slowest tests close the report, for whoever shortens the run next.
test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=30 $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; \
	exit $$status

bench: install
	$(PY) bench/run.py $(BENCH_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
