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

.PHONY: help run serve test test-rust test-browser lint bench bench-http bench-discovery deps-rust deps-bench deps-browser

BROWSER_TESTS := tests/browser

help:
	@echo "make run    - the dashboard on the embedded sandbox (installs what it needs)"
	@echo "make serve  - the service alone on http://127.0.0.1:8080 (sandbox)"
	@echo "make test   - every test: Rust, UI, end-to-end"
	@echo "make test-browser - the hosted pages in headless Chromium"
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

test: lint test-rust test-browser

deps-bench:
	@if ! command -v wrk >/dev/null; then $(APT_INSTALL) wrk; fi

bench-http: deps-rust deps-bench
	$(CARGO) build --release -p subscriber-server --bin subscriber-server --example hello_world
	python3 bench/http_bench.py

# Discovery on 1,000,000 merchants: generation time, p50/p99 of descriptor, address and position
# lookups; the figures go into BENCHMARKS.md with the machine and the command.
BENCH_DIRECTORY_SIZE ?= 1000000
bench-discovery: deps-rust
	$(CARGO) run --release -p subscriber-server --example bench_discovery -- $(BENCH_DIRECTORY_SIZE) BENCHMARKS.md

bench: bench-http bench-discovery
