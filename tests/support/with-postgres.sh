#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster of its own: initdb'd into a temporary
# folder, listening on a free port of 127.0.0.1 only, stopped and deleted afterwards. The
# command gets SUBSCRIBER_TEST_POSTGRES, a superuser URL the tests use to create one database
# per test server; no test touches a system cluster. Installs Debian's postgresql package when
# no server binaries are found, but only uses its binaries (never pg_ctlcluster or a service).
#   tests/support/with-postgres.sh COMMAND [ARG...]
# The exit status is the command's.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi

# The server binaries of the highest installed major version, or nothing.
find_bin() {
    local bin
    printf '%s\n' /usr/lib/postgresql/*/bin | sort -rV | while read -r bin; do
        if [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -x "$bin/postgres" ]; then
            echo "$bin"
            break
        fi
    done
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    else
        sudo "$@"
    fi
}

bin=$(find_bin)
if [ -z "$bin" ]; then
    echo "with-postgres: no PostgreSQL server found, installing Debian's postgresql package" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    bin=$(find_bin)
    if [ -z "$bin" ]; then
        echo "with-postgres: no initdb/pg_ctl/postgres under /usr/lib/postgresql/*/bin after installing" >&2
        exit 1
    fi
fi

# PostgreSQL refuses to run as root: then the cluster belongs to the postgres system user
# the Debian package created, and its folder is under /tmp so that user can reach it.
if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
        echo "with-postgres: running as root but there is no postgres system user" >&2
        exit 1
    fi
    tmp=$(mktemp -d /tmp/with-postgres.XXXXXX)
    chown postgres: "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/with-postgres.XXXXXX")
fi
data=$tmp/data
log=$tmp/postgres.log

# Runs a command as the cluster's owner, from the cluster's folder (root's working directory
# may be closed to the postgres user).
as_owner() {
    if [ "$(id -u)" -ne 0 ]; then
        (cd "$tmp" && "$@")
    elif command -v runuser >/dev/null 2>&1; then
        (cd "$tmp" && runuser -u postgres -- "$@")
    else
        # shellcheck disable=SC2016 # expanded by the postgres user's shell
        (cd "$tmp" && su postgres -s /bin/sh -c 'exec "$0" "$@"' "$@")
    fi
}

# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
    local status=$?
    set +e
    trap - EXIT INT TERM
    if [ -f "$data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$data" -m immediate -w -s stop >/dev/null 2>&1
        # Should pg_ctl not have managed, the postmaster is killed outright.
        if [ -f "$data/postmaster.pid" ]; then
            local pid
            pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null)
            if [ -n "$pid" ]; then
                kill -KILL "$pid" 2>/dev/null
            fi
        fi
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! as_owner "$bin/initdb" -D "$data" -A trust -U postgres --no-sync -E UTF8 --locale=C \
    >"$tmp/initdb.log" 2>&1; then
    echo "with-postgres: initdb failed:" >&2
    cat "$tmp/initdb.log" >&2
    exit 1
fi

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    else
        echo $((20000 + RANDOM % 40000))
    fi
}

# Throw-away data needs no syncing; WITH_POSTGRES_DURABLE=1 (the benchmarks) keeps PostgreSQL's
# defaults, so what is measured is what a real server does at each commit.
durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
if [ "${WITH_POSTGRES_DURABLE:-}" = 1 ]; then
    durability="-c fsync=on"
fi

# The port may be taken between choosing and starting: then another one is tried.
attempts=5
for attempt in $(seq "$attempts"); do
    port=$(free_port)
    rm -f "$log"
    if as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 -s \
        -o "-c listen_addresses=127.0.0.1 -p $port -k '$tmp'" \
        -o "$durability" \
        -o "-c max_connections=400" \
        start >"$tmp/pg_ctl.out" 2>&1; then
        break
    fi
    if [ "$attempt" -lt "$attempts" ] && grep -q "could not bind\|could not create any TCP/IP sockets" "$log" 2>/dev/null; then
        continue
    fi
    echo "with-postgres: the PostgreSQL server did not start:" >&2
    cat "$tmp/pg_ctl.out" >&2
    echo "with-postgres: its log:" >&2
    cat "$log" >&2 2>/dev/null || true
    exit 1
done

export SUBSCRIBER_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres"
# The cluster's own client tools (pg_dump, psql) first.
export PATH="$bin:$PATH"
status=0
"$@" || status=$?
exit "$status"
