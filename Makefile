# Two commands matter: `make demo` (install, seed, serve) and `make test` (the whole suite and
# its gates). Everything else is a step of those two.
SHELL := /bin/bash
export UV_PYTHON_DOWNLOADS := never
PYTHON ?= python3.11
# uv itself lives in its own small venv: no global pip install (PEP 668-safe), pinned.
TOOLS := .tools
UV := $(TOOLS)/bin/uv
UV_VERSION := 0.13.9
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install system-deps demo seed serve test lint typecheck unit integration e2e bench clean

install: $(VENV)/.installed

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.installed: pyproject.toml uv.lock $(UV)
	$(UV) sync --frozen --python $(PYTHON)
	@touch $@

seed: install
	$(BIN)/regintel seed

demo: seed
	@echo
	@echo "Regintel is starting on http://$(HOST):$(PORT) (Ctrl-C to stop)."
	@echo "Open http://$(HOST):$(PORT)/ in a browser and sign in with dev-acme-alice (chat beside the graph)."
	@echo "Or, in another shell:"
	@echo
	@echo "  curl -N http://$(HOST):$(PORT)/api/chat \\"
	@echo "    -H 'Authorization: Bearer dev-acme-alice' -H 'Content-Type: application/json' \\"
	@echo "    -d '{\"message\": \"What is the standard rate of VAT in Ireland?\"}'"
	@echo
	@echo "  (or: \"What does Article 5 of the AI Act prohibit?\", \"What is the wealth tax rate in France?\")"
	@echo
	$(BIN)/regintel serve --host $(HOST) --port $(PORT)

serve: install
	$(BIN)/regintel serve --host $(HOST) --port $(PORT)

# The integration suite starts its own throwaway PostgreSQL cluster from the machine's server
# binaries (Debian layout), and the web app's tests drive Debian's chromium (Playwright, no browser
# download); install them when they are missing (root: apt-get).
system-deps:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  echo "installing PostgreSQL server binaries for the test suite"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql; \
	fi
	@if ! command -v redis-server >/dev/null 2>&1; then \
	  echo "installing redis-server for the test suite (it starts its own, never the service)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq redis-server; \
	fi
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian's chromium for the web app's browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; \
	fi

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# The suite runs in TEST_WORKERS processes (pytest-xdist; one test file stays in one process, so
# module fixtures are built once; each process starts its own PostgreSQL cluster, Bolt server
# and seeded template): much of the suite waits on servers it started, so two processes keep
# `make test` within its 15-minute budget on two cores. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2

test: system-deps lint typecheck
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

unit: install
	$(BIN)/pytest -m unit

integration: install system-deps
	$(BIN)/pytest -m integration

e2e: install system-deps
	$(BIN)/pytest -m e2e

bench: install
	$(BIN)/python bench/chat_turn_bench.py

clean:
	rm -rf $(VENV) $(TOOLS) var .pytest_cache .mypy_cache .ruff_cache
