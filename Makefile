# Quick start: `make run` (nvsim alone + predict the default scenario), `make test` (with the test extra + whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SCENARIO ?= scenarios/graid-gen5-raid6

.PHONY: setup setup-test run test system-packages bench clean

# `make run` installs what running needs (nvsim alone: pip install -e .); `make test` adds the
# test extra (every optional package and the test tools, about 1 GB) on top of it.
$(BIN)/nvsim: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(BIN)/nvsim

$(VENV)/.test-extra: pyproject.toml $(BIN)/nvsim
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(VENV)/.test-extra

setup: $(BIN)/nvsim
	$(BIN)/python -m nvsim.warm  # compile the kernels now, not in the first run (seconds once cached)

setup-test: $(VENV)/.test-extra

run: setup
	$(BIN)/nvsim run $(SCENARIO)

# System packages the test suite uses (Debian names): libisal2 (Intel ISA-L, parity cross-check);
# chromium and chromium-driver (the dashboard's browser tests: without them those tests fail);
# fio (a real fio run's JSON keys against nvsim's; skipped without it).
system-packages:
	@if ! ldconfig -p | grep -q libisal; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libisal2 >/dev/null) \
	      || echo "warning: could not install libisal2; ISA-L cross-checks will be skipped"; \
	  else echo "warning: libisal2 missing and not root; ISA-L cross-checks will be skipped"; fi; \
	fi
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
	      || echo "warning: could not install chromium and chromium-driver; the dashboard's browser tests will fail"; \
	  else echo "warning: chromium or chromedriver missing and not root; the dashboard's browser tests will fail (NVSIM_NO_BROWSER=1 skips them)"; fi; \
	fi
	@if ! command -v fio >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null) \
	      || echo "warning: could not install fio; the test against a real fio run will be skipped"; \
	  else echo "warning: fio missing and not root; the test against a real fio run will be skipped"; fi; \
	fi

test: setup-test system-packages
	$(BIN)/python -m pytest -q -n 2

bench: setup-test
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
