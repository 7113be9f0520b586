#!/usr/bin/env python3
"""Writes at scale: PostgreSQL with two instances, the database one round trip away (a forwarder
that holds every byte 1 ms each way, `write_load proxy`), beside one SQLite instance, in the same
run. Measures what issue 24's table asks: many tenants writing sales and locations at once
(writes/s), one sale alone (p50, p99), one tenant's sale while others enroll cards and reset
(p99), and the first start of an instance on a fresh database until `/readyz` answers 200.
Writes the `scale` section of BENCHMARKS.md.

Run through `make bench-scale` (part of `make bench`): it builds the release binaries and runs
this under tests/support/with-postgres.sh with fsync on."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from common import TARGET, Server, machine, write_section

RELEASE = TARGET / "release"
LOAD = RELEASE / "examples" / "write_load"
SERVER = RELEASE / "subscriber-server"


def load(*args):
    output = subprocess.run([str(LOAD), *map(str, args)], capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def proxy(upstream, delay_ms):
    process = subprocess.Popen([str(LOAD), "proxy", upstream, str(delay_ms)], stdout=subprocess.PIPE, text=True)
    address = json.loads(process.stdout.readline())["listening"]
    return process, address


def service(database, keys, extra=()):
    return Server([str(SERVER), "--listen", "127.0.0.1:0", "--database", database, "--keys", keys,
                   "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
                   "--directory-size", "50000", "--log", "warn,subscriber_server::server=info", *extra])


def backend_of(base):
    """Which database the instance says it serves from: `/readyz`'s `Subscriber-Backend` header."""
    with urllib.request.urlopen(f"{base}/readyz", timeout=30) as response:
        return response.headers.get("Subscriber-Backend", "")


def wait_ready(base, since):
    while True:
        try:
            with urllib.request.urlopen(f"{base}/readyz", timeout=30) as response:
                if response.status == 200:
                    return time.monotonic() - since
        except OSError:
            pass
        time.sleep(0.05)


def create_database(admin, name, through):
    """A new database, addressed through the forwarder at `through`."""
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    user = admin.split("://", 1)[1].split("@", 1)[0]
    return f"postgres://{user}@{through}/{name}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--tenants", type=int, default=32)
    parser.add_argument("--delay-ms", type=int, default=1)
    arguments = parser.parse_args()
    admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
    if not admin:
        sys.exit("run under tests/support/with-postgres.sh: the PostgreSQL rows need a cluster")
    host_port = admin.split("@", 1)[1].split("/", 1)[0]
    forwarder, forwarded = proxy(host_port, arguments.delay_ms)
    running = [forwarder]
    results = {}
    with tempfile.TemporaryDirectory() as workdir:
        try:
            # First start on a fresh database through the forwarder: migrate, generate and store
            # the 50,000-merchant directory, load it.
            first_start = create_database(admin, "scale_first", forwarded)
            started = time.monotonic()
            cold = service(first_start, f"{workdir}/first.keys")
            running.append(cold)
            results["first_start_s"] = wait_ready(cold.base_url, started)
            assert backend_of(cold.base_url) in ("", "postgresql"), "the cold start is on PostgreSQL"
            cold.stop()
            running.remove(cold)

            sqlite = service(f"{workdir}/scale.sqlite3", f"{workdir}/sqlite.keys")
            running.append(sqlite)
            wait_ready(sqlite.base_url, time.monotonic())
            database = create_database(admin, "scale", forwarded)
            primary = service(database, f"{workdir}/pg.keys")
            running.append(primary)
            wait_ready(primary.base_url, time.monotonic())
            secondary = service(database, f"{workdir}/pg.keys")
            running.append(secondary)
            wait_ready(secondary.base_url, time.monotonic())
            for base, expected in ((sqlite.base_url, "sqlite"), (primary.base_url, "postgresql"),
                                   (secondary.base_url, "postgresql")):
                said = backend_of(base)
                assert said in ("", expected), f"{base} serves from {said}, not {expected}"

            pg = [primary.base_url, secondary.base_url]
            results["throughput_sqlite"] = load("throughput", arguments.seconds, arguments.tenants, sqlite.base_url)
            results["throughput_pg"] = load("throughput", arguments.seconds, arguments.tenants, *pg)
            results["alone_sqlite"] = load("alone", 300, sqlite.base_url)
            results["alone_pg"] = load("alone", 300, primary.base_url)
            results["contended_sqlite"] = load("contended", 300, 6, sqlite.base_url)
            results["contended_pg"] = load("contended", 300, 6, *pg)
        finally:
            for process in running:
                if isinstance(process, Server):
                    process.stop()
                else:
                    process.terminate()
                    process.wait(10)

    version = subprocess.run(["psql", admin, "-tAc", "SHOW server_version"], capture_output=True, text=True).stdout.strip()
    round_trip = 2 * arguments.delay_ms
    rows = []
    sqlite_rate, pg_rate = results["throughput_sqlite"]["writes_per_second"], results["throughput_pg"]["writes_per_second"]
    rows.append(f"| {arguments.tenants} tenants writing sales and locations at once | {sqlite_rate:,.0f} writes/s "
                f"({results['throughput_sqlite']['failed']} failed) | {pg_rate:,.0f} writes/s "
                f"({results['throughput_pg']['failed']} failed) | ≥ half of SQLite's: "
                f"{'met' if pg_rate >= sqlite_rate / 2 else 'missed'} ({pg_rate / sqlite_rate:.0%}) |")
    alone_sqlite, alone_pg = results["alone_sqlite"]["sale"], results["alone_pg"]["sale"]
    budget = 3 * round_trip + 2
    rows.append(f"| one sale alone, p50 (p99) | {alone_sqlite['p50_ms']:.1f} ms ({alone_sqlite['p99_ms']:.1f}) | "
                f"{alone_pg['p50_ms']:.1f} ms ({alone_pg['p99_ms']:.1f}) | ≤ 3 round trips (≤ {budget} ms here): "
                f"{'met' if alone_pg['p50_ms'] <= budget else 'missed'} |")
    contended_sqlite, contended_pg = results["contended_sqlite"]["sale"], results["contended_pg"]["sale"]
    limit = 3 * alone_pg["p99_ms"] + 20
    rows.append(f"| one tenant's sale while 6 others enroll cards and reset, p99 | {contended_sqlite['p99_ms']:.1f} ms | "
                f"{contended_pg['p99_ms']:.1f} ms | ≤ 3× its idle p99 + 20 ms (≤ {limit:.0f} ms): "
                f"{'met' if contended_pg['p99_ms'] <= limit else 'missed'} |")
    first = results["first_start_s"]
    rows.append(f"| first start (migrate, store and load the 50,000-merchant directory) until `/readyz` is 200 | — | "
                f"{first:.1f} s | ≤ 15 s: {'met' if first <= 15 else 'missed'} |")
    command = ("WITH_POSTGRES_DURABLE=1 tests/support/with-postgres.sh python3 bench/scale_bench.py "
               f"--seconds {arguments.seconds} --tenants {arguments.tenants} --delay-ms {arguments.delay_ms}")
    text = f"""## Writes at scale (PostgreSQL, two instances, the database {round_trip} ms away)

Machine: {machine()}. Command: `{command}` (`make bench-scale`): release builds; PostgreSQL {version}
on the same machine with fsync and synchronous commit on, reached through `write_load proxy`
(`crates/testkit/examples/write_load.rs`), which holds every byte {arguments.delay_ms} ms each way, as a
database on another host in the same data centre; two instances of the service on that database
beside one instance on SQLite, the same load in the same run (`write_load`, each tenant with two
requests at a time: three sales to a new location). Each instance is asked which database it serves
(`/readyz`'s `Subscriber-Backend` header) before anything is measured.

| Measure | SQLite, one instance | PostgreSQL, two instances, {round_trip} ms away | Goal |
|---|---:|---:|---|
""" + "\n".join(rows) + f"""

Failed writes are non-201 answers (0 expected). The contended row's busy tenants went through
{results['contended_pg']['enroll_reset_rounds']} rounds of three enrollments and a reset on
PostgreSQL ({results['contended_sqlite']['enroll_reset_rounds']} on SQLite) while the one tenant's 300
sales were timed. The machine's two cores serve the load generator, the forwarder, PostgreSQL and
both instances at once.
"""
    write_section("scale", text)
    print(text)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    sys.exit(main())
