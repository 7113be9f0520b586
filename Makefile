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
BROWSER_TESTS := tests/browser
# The Python tools (Schemathesis) live in a virtual environment of the clone.
VENV := .venv

# The desktop dashboard: Debian packages to build Tauri 2 and to run it headless (Xvfb,
# WebKitWebDriver), a real Secret Service and kernel keyring for its tests, `ip` (iproute2) for the
# offline test's network namespace, and a notification server (dunst) with another window to
# focus (xmessage, xdotool) for the notification test.
DESKTOP_DEBS := build-essential pkg-config libssl-dev libwebkit2gtk-4.1-dev libayatana-appindicator3-dev \
	librsvg2-dev libxdo-dev xvfb xauth webkit2gtk-driver dbus gnome-keyring libsecret-tools keyutils iproute2 dunst xdotool x11-utils
TAURI_DRIVER_VERSION := 2.1.0
DASHBOARD_BIN := $(CARGO_TARGET_DIR)/debug/subscriber-dashboard
BINDINGS_DIR := ui/src/lib/bindings
# A real Secret Service of its own for the command that follows (tests/support/with-keyring.sh).
WITH_KEYRING := tests/support/with-keyring.sh
# A throw-away PostgreSQL cluster for the command that follows (tests/support/with-postgres.sh).
WITH_POSTGRES := tests/support/with-postgres.sh

.PHONY: help run dev serve test deps-test-debs deps-cargo-tools test-rust test-postgres test-faults deps-pgbouncer lint bench bench-reads bench-snapshots bench-history deps-rust deps-desktop ui-build bindings bindings-check \
	test-ui test-dashboard test-e2e dashboard-build bench-dashboard test-browser deps-browser deps-bench bench-http \
	bench-discovery bench-enrich bench-scale bench-webhooks test-schemathesis deps-schemathesis package package-debug deps-package test-package \
	test-clients deps-clients

help:
	@echo "make run             - the dashboard on the embedded sandbox (installs what it needs)"
	@echo "make serve           - the service alone on http://127.0.0.1:8080 (sandbox)"
	@echo "make dev             - the dashboard with hot reload of the UI and the app"
	@echo "make test            - every test: Rust, UI, dashboard with a real keyring, end-to-end"
	@echo "make test-postgres   - the black-box HTTP suite on PostgreSQL, two instances included"
	@echo "make test-faults     - the database stopped, hung, failed over, its disk full, under load"
	@echo "make test-browser    - the hosted pages in headless Chromium"
	@echo "make test-schemathesis - Schemathesis fuzzes the running service from each version's /openapi.json"
	@echo "make test-clients    - clients generated from the newest /openapi.json (Python, TypeScript) drive the service"
	@echo "make package         - the service's and the dashboard's .deb files, in target/packages"
	@echo "make bench           - benchmarks, written to BENCHMARKS.md"

deps-rust:
	@command -v $(CARGO) >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }

# Debian packages when missing, the UI's and the end-to-end suite's npm packages when their
# lock files changed, and tauri-driver when it is not installed.
deps-desktop: deps-rust
	@missing=""; for package in $(DESKTOP_DEBS); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(APT_INSTALL) $$missing; \
	fi
	@command -v npm >/dev/null || { $(APT_INSTALL) nodejs npm; }
	@for dir in ui tests/e2e; do \
		if [ ! -f $$dir/node_modules/.installed ] || [ $$dir/package-lock.json -nt $$dir/node_modules/.installed ]; then \
			(cd $$dir && npm ci --no-audit --no-fund) || exit 1; touch $$dir/node_modules/.installed; \
		fi; \
	done
	@command -v tauri-driver >/dev/null || env -u CARGO_TARGET_DIR $(CARGO) install tauri-driver --locked --version $(TAURI_DRIVER_VERSION)

# tauri-driver (the end-to-end tests) and cargo-deb (the packages), built from crates.io when
# missing, each in a temporary folder of its own.
deps-cargo-tools: deps-rust
	@command -v tauri-driver >/dev/null || env -u CARGO_TARGET_DIR $(CARGO) install tauri-driver --locked --version $(TAURI_DRIVER_VERSION)
	@command -v cargo-deb >/dev/null || env -u CARGO_TARGET_DIR $(CARGO) install cargo-deb --locked --version $(CARGO_DEB_VERSION)

serve: deps-rust
	mkdir -p "$(DATA_DIR)"
	$(CARGO) run --release -p subscriber-server -- --database "$(DATA_DIR)/server.sqlite3"

ui-build: deps-desktop
	cd ui && npm run build

# The dashboard binary with the built UI inside it.
dashboard-build: ui-build
	$(CARGO) build -p subscriber-dashboard-app

# Builds the UI and opens the dashboard on the embedded sandbox.
run: dashboard-build
	$(DASHBOARD_BIN)

# The dashboard with hot reload: Vite's dev server for the UI (a saved .svelte or .ts file shows at
# once) and the app rebuilt and restarted when its Rust changes (the Tauri CLI's `dev`). Without
# the default `custom-protocol` feature the window loads the dev server instead of the built UI.
dev: deps-desktop
	cd src-tauri && $(TAURI_CLI) dev -- --no-default-features

# TypeScript declarations of the IPC and wire types, generated from the Rust types (ts-rs), and
# commands.ts, the UI's typed function of each command, generated from the command table
# (crates/dashboard/src/commands/table.rs; the test `commands::typescript::tests::export_bindings_commands`).
bindings: deps-rust
	rm -rf "$(BINDINGS_DIR)" && mkdir -p "$(BINDINGS_DIR)"
	TS_RS_EXPORT_DIR="$(CURDIR)/$(BINDINGS_DIR)" $(CARGO) test -q -p subscriber-protocol -p subscriber-dashboard \
		--features subscriber-dashboard/ts --lib export_bindings >/dev/null

# Fails when the committed bindings (commands.ts included) differ from what the Rust types and
# the command table generate.
bindings-check: deps-rust
	@generated=$$(mktemp -d); \
	TS_RS_EXPORT_DIR="$$generated" $(CARGO) test -q -p subscriber-protocol -p subscriber-dashboard \
		--features subscriber-dashboard/ts --lib export_bindings >"$$generated.log" 2>&1 \
		|| { cat "$$generated.log"; rm -rf "$$generated" "$$generated.log"; echo "a bindings test failed"; exit 1; }; \
	rm -f "$$generated.log"; \
	if ! diff -r "$$generated" "$(BINDINGS_DIR)"; then \
		echo "ui/src/lib/bindings is out of date with the Rust types or the command table: run 'make bindings' and commit"; rm -rf "$$generated"; exit 1; \
	fi; rm -rf "$$generated"; echo "TypeScript bindings are up to date"

# Also: no database, key file or file over 2 MB is tracked, the service's top-level modules
# form no dependency cycle, and no SQL statement is written in both storage backends (each
# script says what it found); the service as the desktop app
# embeds it (no PostgreSQL, no metrics exporter) is clean too, and the app links neither.
lint: deps-rust ui-build
	tests/support/check-repository.sh
	python3 tests/support/check-module-cycles.py crates/server/src
	python3 tests/support/check-sql-written-once.py crates/server/src/storage
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p subscriber-server --no-default-features -- -D warnings
	@if $(CARGO) tree -p subscriber-dashboard-app -e normal --prefix none | grep -E '^(tokio-postgres|metrics-exporter-prometheus) '; then \
		echo "the desktop app links the PostgreSQL driver or the metrics exporter"; exit 1; fi
	cd ui && npm run check
	cd ui && npm run lint

# The service's tests, and the server binary the later stages run: `cargo test` builds it (for
# crates/server/tests) with the features the tests' dependencies unify to, so the stages that
# only need the binary build nothing again (`cargo build -p subscriber-server` would resolve the
# dependencies' features on its own and build the server a second time).
RUST_TESTS := --workspace --exclude subscriber-dashboard --exclude subscriber-dashboard-app
SERVER_BUILD := $(CARGO) test $(RUST_TESTS) --no-run
# The tests wait on servers, timers and receivers more than they compute: more threads than
# cores keep both cores busy (the HTTP suite: 204 s with 2 threads, 148 s with 6, on SQLite).
TEST_THREADS := 6
test-rust: deps-rust
	$(CARGO) test $(RUST_TESTS) -- --test-threads=$(TEST_THREADS)

# The black-box HTTP suite again, on PostgreSQL: a throw-away cluster (Debian's postgresql
# package is installed when missing), a database per test server, and the tests of two
# instances on one database. Then both databases' schemas, migrated, compared.
test-postgres: deps-rust deps-pgbouncer
	$(CARGO) test -p http-conformance --test api --no-run
	$(WITH_POSTGRES) $(CARGO) test -p http-conformance --test api -- --test-threads=$(TEST_THREADS)
	$(WITH_POSTGRES) $(CARGO) test $(RUST_TESTS) --test schema_parity
	# The two-instance tests again, every database reached through PgBouncer in session mode
	# (the suite's own pgbouncer:: tests run it in every mode).
	SUBSCRIBER_TEST_PGBOUNCER=session $(WITH_POSTGRES) $(CARGO) test -p http-conformance --test api -- instances::

# Debian's PgBouncer, for the tests through it (only its binary is used, on ports of their own).
deps-pgbouncer:
	@test -x /usr/sbin/pgbouncer || $(APT_INSTALL) pgbouncer

# The real faults under load, one at a time, each on a PostgreSQL cluster of its own (stopped and
# started, hung with SIGSTOP, failed over to a promoted synchronous standby) or a small tmpfs in a
# mount namespace of the server's own (SQLite on a full file system). WITH_POSTGRES only makes
# sure PostgreSQL is installed.
test-faults: deps-rust
	$(CARGO) test -p http-conformance --test faults --no-run
	$(WITH_POSTGRES) env SUBSCRIBER_TEST_FAULTS=1 $(CARGO) test -p http-conformance --test faults -- --test-threads=1 --nocapture

# Vitest component and model tests of the UI.
test-ui: deps-desktop bindings-check
	cd ui && npm test

# crates/dashboard against the real embedded service and real OS keyrings: a Secret Service
# (gnome-keyring, unlocked, in its own D-Bus session and data folder) and the kernel keyring.
test-dashboard: deps-desktop
	$(CARGO) test -p subscriber-dashboard --no-run
	$(WITH_KEYRING) $(CARGO) test -p subscriber-dashboard --lib --test secret_service --test workflows
	keyctl session - $(CARGO) test -p subscriber-dashboard --test kernel_keyring

# The real app under Xvfb, driven through tauri-driver and WebKitWebDriver: every
# tests/e2e/*.test.mjs, each file starting its own app, in three lanes side by side, each lane
# with its own display and D-Bus session (tests/e2e/lanes.sh): a lane spends most of its time
# waiting on the web view (one lane 410 s, two 205 s, three 140 s on 2 cores). The slowest files
# go first, so the lanes end together. Screenshots of every screen,
# light and dark, go to target/screenshots/. Links the app opens "in the browser" are only
# recorded there (tests/e2e/open-url.sh): the tests play the person's browser themselves.
E2E_LANES := 3
E2E_SLOWEST := tests/e2e/screens.test.mjs tests/e2e/secure.test.mjs tests/e2e/polish.test.mjs
E2E_FILES := $(E2E_SLOWEST) $(filter-out $(E2E_SLOWEST),$(sort $(wildcard tests/e2e/*.test.mjs)))
test-e2e: dashboard-build
	$(SERVER_BUILD)
	# Only this run's screenshots: one a failed run left would read as today's.
	rm -rf target/screenshots && mkdir -p target/screenshots
	DASHBOARD_BIN="$(DASHBOARD_BIN)" SERVER_BIN="$(CARGO_TARGET_DIR)/debug/subscriber-server" SCREENSHOT_DIR="$(CURDIR)/target/screenshots" \
		tests/e2e/lanes.sh $(E2E_LANES) $(E2E_FILES)
	# Offline: the app in a network namespace of its own with only loopback (no network, as the
	# OS's network monitor sees it); the embedded sandbox still answers there.
	DASHBOARD_BIN="$(DASHBOARD_BIN)" SCREENSHOT_DIR="$(CURDIR)/target/screenshots" \
		xvfb-run -a -s "-screen 0 1440x900x24" unshare --net --map-root-user \
		sh -c 'ip link set lo up && exec $(WITH_KEYRING) timeout -k 10 600 node --test tests/e2e/offline.netns.mjs'

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
	$(SERVER_BUILD)
	cd $(BROWSER_TESTS) && SUBSCRIBER_SERVER_BIN="$(CARGO_TARGET_DIR)/debug/subscriber-server" npm test

# Python with venv, then Schemathesis (pinned) in $(VENV), when missing or when the pin moved.
deps-schemathesis:
	@if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null; then $(APT_INSTALL) python3 python3-venv; fi
	@if [ ! -x $(VENV)/bin/schemathesis ] || [ tests/schemathesis/requirements.txt -nt $(VENV)/bin/schemathesis ]; then \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install -q --disable-pip-version-check -r tests/schemathesis/requirements.txt && \
		touch $(VENV)/bin/schemathesis; \
	fi

# Schemathesis against the real server binary, once per API version (each version's document,
# requests naming the version): authenticated, every check, >= 5,000 requests each. The versions
# run side by side, each with a server of its own (each run is one Python process, so two use
# both cores); each one's output is printed whole once both ended.
API_VERSIONS := 2026-11-21 2026-12-01
test-schemathesis: deps-rust deps-schemathesis
	$(SERVER_BUILD)
	@logs=$$(mktemp -d); trap 'rm -rf "$$logs"' EXIT; \
	for version in $(API_VERSIONS); do \
		python3 tests/schemathesis/run.py --server "$(CARGO_TARGET_DIR)/debug/subscriber-server" \
			--schemathesis $(VENV)/bin/schemathesis --api-version $$version >"$$logs/$$version" 2>&1 & \
		echo $$! >"$$logs/$$version.pid"; \
	done; \
	status=0; \
	for version in $(API_VERSIONS); do \
		wait $$(cat "$$logs/$$version.pid") || { status=1; echo "!!! Schemathesis failed on version $$version"; }; \
		echo "=== Schemathesis, version $$version"; cat "$$logs/$$version"; \
	done; \
	exit $$status

# The generators an outside developer uses, pinned: openapi-python-client (PyPI) in its own venv,
# openapi-typescript, openapi-fetch and TypeScript (npm, tests/clients/typescript/package-lock.json).
CLIENTS_VENV := .venv-clients
CLIENTS_TS := tests/clients/typescript
deps-clients:
	@if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null; then $(APT_INSTALL) python3 python3-venv; fi
	@if [ ! -x $(CLIENTS_VENV)/bin/openapi-python-client ] || [ tests/clients/requirements.txt -nt $(CLIENTS_VENV)/bin/openapi-python-client ]; then \
		python3 -m venv $(CLIENTS_VENV) && $(CLIENTS_VENV)/bin/pip install -q --disable-pip-version-check -r tests/clients/requirements.txt && \
		touch $(CLIENTS_VENV)/bin/openapi-python-client; \
	fi
	@command -v npm >/dev/null || { $(APT_INSTALL) nodejs npm; }
	@if [ ! -f $(CLIENTS_TS)/node_modules/.package-lock.json ] || [ $(CLIENTS_TS)/package-lock.json -nt $(CLIENTS_TS)/node_modules/.package-lock.json ]; then \
		cd $(CLIENTS_TS) && npm ci --no-audit --no-fund; \
	fi

# Clients generated from the newest version's document drive signup → card → transactions →
# merchant → webhook → event against the real server binary (tests/clients/run.py).
test-clients: deps-rust deps-clients
	$(SERVER_BUILD)
	python3 tests/clients/run.py --server "$(CARGO_TARGET_DIR)/debug/subscriber-server" --python $(CLIENTS_VENV)/bin/python

TEST_STAGES := lint test-rust test-postgres test-faults test-browser test-ui test-dashboard test-e2e test-package \
	test-schemathesis test-clients
# Every stage in turn, each one's time printed when it ends and all of them at the end, so a slow
# run (a fresh machine's first, say) shows where its minutes went.
# Before the stages: tauri-driver and cargo-deb compile while every Debian package the stages
# need installs, in one apt-get run (one index update instead of one per stage); then the
# Python and npm tools of the later stages are fetched in the background while the first
# stages compile, and test-browser waits for them.
TEST_DEBS := $(DESKTOP_DEBS) postgresql pgbouncer chromium chromium-driver
deps-test-debs:
	@missing=""; for package in $(TEST_DEBS); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then echo "installing Debian packages:$$missing"; $(APT_INSTALL) $$missing; fi

test:
	@start=$$(date +%s); times=""; \
	tools_log=$$(mktemp); cargo_log=$$(mktemp); trap 'rm -f "$$tools_log" "$$cargo_log"' EXIT; \
	$(MAKE) --no-print-directory deps-cargo-tools >"$$cargo_log" 2>&1 & cargo_tools=$$!; \
	$(MAKE) --no-print-directory deps-test-debs; \
	wait $$cargo_tools || { cat "$$cargo_log"; echo "=== tauri-driver or cargo-deb failed to install"; exit 1; }; \
	cat "$$cargo_log"; \
	$(MAKE) --no-print-directory deps-browser deps-schemathesis deps-clients >"$$tools_log" 2>&1 & tools=$$!; \
	for stage in $(TEST_STAGES); do \
		if [ "$$stage" = test-browser ]; then \
			wait $$tools || { cat "$$tools_log"; echo "=== the test tools (npm, PyPI) failed to install"; exit 1; }; \
			cat "$$tools_log"; \
		fi; \
		begun=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage || { echo "=== $$stage failed after $$(( $$(date +%s) - begun )) s"; exit 1; }; \
		took=$$(( $$(date +%s) - begun )); times="$$times $$stage=$${took}s"; echo "=== $$stage: $$took s"; \
	done; \
	echo "=== make test: $$(( $$(date +%s) - start )) s:$$times"

# Packages. The service's .deb through cargo-deb (installed when missing), the dashboard's
# through Tauri's bundler (@tauri-apps/cli in ui/package.json, pinned to the last version whose
# platform binaries are all on the registry, so `npm ci` accepts the lock), offline. The UI is built first,
# so the bundler's own beforeBuildCommand is switched off.
CARGO_DEB_VERSION := 3.8.0
TAURI_CLI := $(CURDIR)/ui/node_modules/.bin/tauri
TAURI_NO_UI_BUILD := {"build":{"beforeBuildCommand":""}}
PACKAGE_DIR := target/packages

deps-package: deps-desktop
	@command -v cargo-deb >/dev/null || env -u CARGO_TARGET_DIR $(CARGO) install cargo-deb --locked --version $(CARGO_DEB_VERSION)
	@command -v dpkg-deb >/dev/null || { echo "dpkg-deb is required (Debian/Ubuntu)"; exit 1; }

# Release builds: what to install.
package: deps-package ui-build
	rm -rf $(PACKAGE_DIR) && mkdir -p $(PACKAGE_DIR)
	$(CARGO) deb -p subscriber-server --output $(PACKAGE_DIR)/
	cd src-tauri && $(TAURI_CLI) build --bundles deb --config '$(TAURI_NO_UI_BUILD)'
	cp "$(CARGO_TARGET_DIR)"/release/bundle/deb/*.deb $(PACKAGE_DIR)/
	@ls -l $(PACKAGE_DIR)

# The same packages from the debug builds `make test` already has, for the smoke test.
package-debug: deps-package ui-build
	rm -rf $(PACKAGE_DIR)/debug && mkdir -p $(PACKAGE_DIR)/debug
	$(SERVER_BUILD)
	$(CARGO) deb -p subscriber-server --profile dev --no-strip --no-build --output $(PACKAGE_DIR)/debug/
	cd src-tauri && $(TAURI_CLI) build --debug --bundles deb --config '$(TAURI_NO_UI_BUILD)'
	cp "$(CARGO_TARGET_DIR)"/debug/bundle/deb/*.deb $(PACKAGE_DIR)/debug/

# Unpacks each .deb into a temporary root and starts what it installed.
test-package: package-debug
	tests/package/smoke.sh $(PACKAGE_DIR)/debug/subscriber-data-server_*.deb "$$(ls $(PACKAGE_DIR)/debug/Subscriber*.deb | head -n1)"

# wrk (Debian), oha (crates.io) for the constant-rate soak, Prism (npm, bench/package-lock.json).
deps-bench:
	@if ! command -v wrk >/dev/null; then $(APT_INSTALL) wrk; fi
	@if ! command -v npm >/dev/null; then $(APT_INSTALL) nodejs npm; fi
	@if ! command -v oha >/dev/null && [ ! -x "$(HOME)/.cargo/bin/oha" ]; then env -u CARGO_TARGET_DIR $(CARGO) install oha --locked; fi
	@if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then \
		cd bench && npm ci --no-audit --no-fund; \
	fi

# The same requests on SQLite and on PostgreSQL (a throw-away cluster that syncs as a real one).
bench-http: deps-rust deps-bench
	$(CARGO) build --release -p subscriber-server --bin subscriber-server --example hello_world
	WITH_POSTGRES_DURABLE=1 $(WITH_POSTGRES) python3 bench/http_bench.py

# Discovery on 1,000,000 merchants: generation time, p50/p99 of descriptor, address and position
# lookups; the figures go into BENCHMARKS.md with the machine and the command.
BENCH_DIRECTORY_SIZE ?= 1000000
bench-discovery: deps-rust
	$(CARGO) run --release -p subscriber-server --example bench_discovery -- $(BENCH_DIRECTORY_SIZE) BENCHMARKS.md

# The matcher on 2,500 labelled descriptors varied as statements print them: coverage, each
# band's precision, p50/p99 of a 100-descriptor batch, into BENCHMARKS.md.
bench-enrich: deps-rust
	$(CARGO) run --release -p subscriber-server --example bench_enrich -- --report BENCHMARKS.md


# Start-up time and memory against a blank Tauri window, and filter time per keystroke on
# 100,000 rows, into BENCHMARKS.md.
bench-dashboard: deps-desktop ui-build
	$(CARGO) build --release -p subscriber-dashboard-app --bin subscriber-dashboard --example blank-window
	$(CARGO) build --release -p subscriber-dashboard --example seed_history
	$(WITH_KEYRING) xvfb-run -a -s "-screen 0 1440x900x24" node tests/e2e/bench.mjs \
		--app "$(CARGO_TARGET_DIR)/release/subscriber-dashboard" \
		--blank "$(CARGO_TARGET_DIR)/release/examples/blank-window" \
		--seeder "$(CARGO_TARGET_DIR)/release/examples/seed_history" --out BENCHMARKS.md

# Writes at scale: two instances on PostgreSQL one round trip away (a forwarder adding 1 ms each
# way) beside one SQLite instance, in the same run.
bench-scale: deps-rust
	$(CARGO) build --release -p subscriber-server --bin subscriber-server
	$(CARGO) build --release -p subscriber-testkit --example write_load
	WITH_POSTGRES_DURABLE=1 $(WITH_POSTGRES) python3 bench/scale_bench.py

# Webhook delivery: deliveries/s and event-to-arrival delay across 100 endpoints, with and
# without one slow receiver, on SQLite and on PostgreSQL with two instances.
bench-webhooks: deps-rust
	$(CARGO) build --release -p subscriber-server --bin subscriber-server
	WITH_POSTGRES_DURABLE=1 $(WITH_POSTGRES) python3 bench/webhook_bench.py

# Reads at scale: 30 subscribers, 180 cards, thousands of distinct pages read at random, on
# SQLite and on PostgreSQL in one run, as shares of hello-world beside the single-URL reads.
bench-reads: deps-rust deps-bench
	$(CARGO) build --release -p subscriber-server --bin subscriber-server --example hello_world
	WITH_POSTGRES_DURABLE=1 $(WITH_POSTGRES) python3 bench/read_bench.py

# Sandbox snapshots: a restore of 10 cards of 36 months, and another subscriber's reads beside
# it, on SQLite and on PostgreSQL with two instances.
bench-snapshots: deps-rust
	$(CARGO) build --release -p subscriber-server --bin subscriber-server
	WITH_POSTGRES_DURABLE=1 $(WITH_POSTGRES) python3 bench/snapshot_bench.py

# What the request history costs the hottest reads: one build with and without it, in turn.
bench-history: deps-rust deps-bench
	$(CARGO) build --release -p subscriber-server --bin subscriber-server
	python3 bench/history_bench.py

bench: bench-http bench-reads bench-scale bench-discovery bench-enrich bench-dashboard bench-webhooks bench-snapshots bench-history
