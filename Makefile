# Subscriber Data: the two commands are `make run` and `make test`.
# Each installs what it needs on a fresh Debian/Ubuntu machine.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Builds are kept outside the clone so repeated runs reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/subscriber-data/target
CARGO ?= cargo
DATA_DIR ?= $(HOME)/.local/share/subscriber-data

.PHONY: help run serve test test-rust lint bench bench-discovery deps-rust

help:
	@echo "make run    - the dashboard on the embedded sandbox (installs what it needs)"
	@echo "make serve  - the service alone on http://127.0.0.1:8080 (sandbox)"
	@echo "make test   - every test: Rust, UI, end-to-end"
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

test: lint test-rust

# Discovery on 1,000,000 merchants: generation time, p50/p99 of descriptor, address and position
# lookups; the figures go into BENCHMARKS.md with the machine and the command.
BENCH_DIRECTORY_SIZE ?= 1000000
bench-discovery: deps-rust
	$(CARGO) run --release -p subscriber-server --example bench_discovery -- $(BENCH_DIRECTORY_SIZE) BENCHMARKS.md

bench: deps-rust bench-discovery
