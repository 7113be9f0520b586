# Subscriber Data: the two commands are `make run` and `make test`.
# Each installs what it needs on a fresh Debian/Ubuntu machine.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Builds are kept outside the clone so repeated runs reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/subscriber-data/target
CARGO ?= cargo
DATA_DIR ?= $(HOME)/.local/share/subscriber-data

# apt-get as root, through sudo otherwise; only ever for packages that are missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_INSTALL := $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends

.PHONY: help run serve test test-rust test-browser test-schemathesis lint bench bench-http deps-rust deps-bench deps-browser deps-schemathesis

BROWSER_TESTS := tests/browser
# The Python tools (Schemathesis) live in a virtual environment of the clone.
VENV := .venv

help:
	@echo "make run    - the dashboard on the embedded sandbox (installs what it needs)"
	@echo "make serve  - the service alone on http://127.0.0.1:8080 (sandbox)"
	@echo "make test   - every test: Rust, UI, end-to-end"
	@echo "make test-browser - the hosted pages in headless Chromium"
	@echo "make test-schemathesis - Schemathesis fuzzes the running service from its /openapi.json"
	@echo "make bench  - benchmarks, written to BENCHMARKS.md"

deps-rust:
	@command -v $(CARGO) >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }

serve: deps-rust
	mkdir -p "$(DATA_DIR)"
	$(CARGO) run --release -p subscriber-server -- --database "$(DATA_DIR)/server.sqlite3"

run: serve

lint: deps-rust
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

test-rust: deps-rust
	$(CARGO) test --workspace

# Headless Debian Chromium (driven by Playwright) and the tests' npm packages, when missing.
deps-browser:
	@if [ ! -x /usr/bin/chromium ] || ! command -v chromedriver >/dev/null; then $(APT_INSTALL) chromium chromium-driver; fi
	@if ! command -v npm >/dev/null; then $(APT_INSTALL) nodejs npm; fi
	@if [ ! -f $(BROWSER_TESTS)/node_modules/.package-lock.json ] || \
		[ $(BROWSER_TESTS)/package-lock.json -nt $(BROWSER_TESTS)/node_modules/.package-lock.json ]; then \
		cd $(BROWSER_TESTS) && npm ci --no-audit --no-fund; \
	fi

# The hosted pages (card entry, sandbox bank) driven in Chromium against the real server binary.
test-browser: deps-rust deps-browser
	$(CARGO) build -p subscriber-server
	cd $(BROWSER_TESTS) && SUBSCRIBER_SERVER_BIN="$(CARGO_TARGET_DIR)/debug/subscriber-server" npm test

# Python with venv, then Schemathesis (pinned) in $(VENV), when missing or when the pin moved.
deps-schemathesis:
	@if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null; then $(APT_INSTALL) python3 python3-venv; fi
	@if [ ! -x $(VENV)/bin/schemathesis ] || [ tests/schemathesis/requirements.txt -nt $(VENV)/bin/schemathesis ]; then \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install -q --disable-pip-version-check -r tests/schemathesis/requirements.txt && \
		touch $(VENV)/bin/schemathesis; \
	fi

# Schemathesis against the real server binary: authenticated, every check, >= 5,000 requests.
test-schemathesis: deps-rust deps-schemathesis
	$(CARGO) build -p subscriber-server
	python3 tests/schemathesis/run.py --server "$(CARGO_TARGET_DIR)/debug/subscriber-server" --schemathesis $(VENV)/bin/schemathesis

test: lint test-rust test-browser test-schemathesis

# wrk (Debian), oha (crates.io) for the constant-rate soak, Prism (npm, bench/package-lock.json).
deps-bench:
	@if ! command -v wrk >/dev/null; then $(APT_INSTALL) wrk; fi
	@if ! command -v npm >/dev/null; then $(APT_INSTALL) nodejs npm; fi
	@if ! command -v oha >/dev/null && [ ! -x "$(HOME)/.cargo/bin/oha" ]; then env -u CARGO_TARGET_DIR $(CARGO) install oha --locked; fi
	@if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then \
		cd bench && npm ci --no-audit --no-fund; \
	fi

bench-http: deps-rust deps-bench
	$(CARGO) build --release -p subscriber-server --bin subscriber-server --example hello_world
	python3 bench/http_bench.py

bench: bench-http
