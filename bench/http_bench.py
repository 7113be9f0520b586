#!/usr/bin/env python3
"""HTTP throughput and latency of the service, each as a ratio to a bare axum hello-world
measured in the same run (wrk, 64 connections on loopback); the same reads against Prism
mocking our own /openapi.json (stateless: the ratio says what being a real, stateful service
costs or saves); enrollment latency with a 36-month history; a soak at half the measured
maximum with oha at a constant rate (errors, memory at start and end). Writes the `http`
section of BENCHMARKS.md.

Run through `make bench-http` (builds the release binaries first)."""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from common import ROOT, TARGET, Server, call, expect_backend, free_port, machine, percentile, write_section

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def wrk(url, token=None, method="GET", body=None, duration=10, connections=64, threads=2, script=None,
        script_args=()):
    """wrk on `url` (or with a Lua `script` of the caller's, given `script_args`): requests/s,
    p50 and p99 in ms, and non-2xx answers."""
    lines = []
    if token:
        lines.append(f'wrk.headers["Authorization"] = "Bearer {token}"')
    if body is not None:
        lines.append(f'wrk.method = "{method}"')
        lines.append('wrk.headers["Content-Type"] = "application/json"')
        lines.append("wrk.body = [[" + body + "]]")
    if script is None:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as written:
            written.write("\n".join(lines) + "\n")
    output = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "-s", script or written.name, url,
         *(["--", *script_args] if script_args else [])],
        capture_output=True, text=True, check=True).stdout
    if script is None:
        os.unlink(written.name)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    latency = {}
    for label in ("50%", "99%"):
        match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", output, re.M)
        latency[label] = float(match.group(1)) * UNITS[match.group(2)]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return {"rps": rps, "p50": latency["50%"], "p99": latency["99%"], "errors": int(bad.group(1)) if bad else 0}


def load_average():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def busiest_processes():
    """Other processes using the most CPU over one second (other engineers' builds, say)."""
    output = subprocess.run(["top", "-b", "-n", "2", "-d", "1", "-w", "200"], capture_output=True, text=True).stdout
    ours = {os.getpid(), *(child.process.pid for child in RUNNING)}
    busy = []
    for line in output.split("\ntop - ")[-1].splitlines():
        fields = line.split()
        if len(fields) >= 12 and fields[0].isdigit() and int(fields[0]) not in ours:
            cpu = float(fields[8].replace(",", "."))
            if cpu >= 5.0:
                busy.append(f"{fields[11]} {cpu:.0f}%")
    return ", ".join(busy[:5]) or "none above 5% CPU"


RUNNING = []


def oha_soak(url, token, rate, seconds):
    """oha at a constant `rate` for `seconds`: (requests, non-2xx or failed, p50 ms, p99 ms)."""
    oha = shutil.which("oha") or str(pathlib.Path.home() / ".cargo" / "bin" / "oha")
    output = subprocess.run(
        [oha, "-z", f"{seconds}s", "-q", str(rate), "-c", "64", "--no-tui", "--output-format", "json",
         "-H", f"Authorization: Bearer {token}", url],
        capture_output=True, text=True, check=True).stdout
    report = json.loads(output)
    statuses = report.get("statusCodeDistribution", {})
    total = sum(statuses.values())
    ok = sum(count for status, count in statuses.items() if str(status).startswith("2"))
    failed = sum(report.get("errorDistribution", {}).values())
    percentiles = report.get("latencyPercentiles", {})
    return total + failed, total - ok + failed, percentiles.get("p50", 0) * 1000, percentiles.get("p99", 0) * 1000


def prepare(base):
    """A subscriber with an enrolled card and its history; what the reads measure."""
    status, signup = call("POST", f"{base}/subscriber/signup", {"email": "bench@example.com"})
    assert status == 201, signup
    login_body = {"email": "bench@example.com", "api_key": signup["secret"]}
    token = call("POST", f"{base}/subscriber/login", login_body)[1]["token"]
    card = {"pan": "4242424242424242", "firstName": "Bench", "lastName": "Mark", "expMonth": 12,
            "expYear": 2030, "countryCode": "USA"}
    status, enrolled = call("POST", f"{base}/card", card, token)
    assert status == 201, enrolled
    card_id = enrolled["cardId"]
    status, page = call("GET", f"{base}/card/{card_id}/transactions?limit=100", token=token)
    if len(page["transactions"]) < 100:
        # A service without sandbox card histories: make 120 purchases at a location of our own.
        call("POST", f"{base}/merchant", {"name": "Bench Cafe", "category": "5812", "countryCode": "USA"}, token)
        location = {"countryCode": "USA", "street": "Market St", "streetNo": "1", "city": "San Francisco",
                    "zip": "94103"}
        call("POST", f"{base}/merchant/location", {"location": location}, token)
        for _ in range(120):
            status, body = call("POST", f"{base}/sandbox/transactions", {"cardId": card_id}, token)
            assert status == 201, body
        status, page = call("GET", f"{base}/card/{card_id}/transactions?limit=100", token=token)
    assert status == 200 and len(page["transactions"]) == 100, page
    descriptor = page["transactions"][0]["descriptor"]
    discover = f"/merchant/discover?merchid={urllib.parse.quote(descriptor)}"
    status, found = call("GET", base + discover, token=token)
    discovery_served = status == 200
    assert not discovery_served or found["result"]["merchants"], found

    return token, card_id, login_body, card, discover, discovery_served


def enroll_many(base, card, count=25):
    """Enrollment with a 36-month history, one at a time: `count` subscribers x 8 test cards."""
    pans = ["4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222",
            "6011111111111117", "4000002760003184", "4000002500003155", "5200828282828210"]
    latencies = []
    for index in range(count):
        email = f"enroll-{index}@example.com"
        secret = call("POST", f"{base}/subscriber/signup", {"email": email})[1]["secret"]
        subscriber_token = call("POST", f"{base}/subscriber/login", {"email": email, "api_key": secret})[1]["token"]
        for pan in pans:
            started = time.perf_counter()
            status, body = call("POST", f"{base}/card", {**card, "pan": pan}, subscriber_token)
            latencies.append((time.perf_counter() - started) * 1000)
            assert status == 201, body
    # The history of the last card enrolled: what one enrollment generated and stored.
    history = call("GET", f"{base}/card/{body['cardId']}/transactions?limit=5000", token=subscriber_token)[1]
    return latencies, len(history.get("transactions", []))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--soak-seconds", type=int, default=600, help="length of the soak (0: none)")
    parser.add_argument("--directory-size", type=int, default=50000)
    parser.add_argument("--section", default="http", help="the BENCHMARKS.md section to write")
    arguments = parser.parse_args()
    release = TARGET / "release"
    workdir = tempfile.mkdtemp(prefix="subscriber-bench-")
    load_before, busy_before = load_average(), busiest_processes()
    hello = Server([str(release / "examples" / "hello_world"), "127.0.0.1:0"])
    # The service logs only warnings (and the line that says where it listens): a log line per
    # request would measure the terminal.
    service = Server([str(release / "subscriber-server"), "--listen", "127.0.0.1:0", "--database",
                      f"{workdir}/bench.sqlite3", "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
                      "--directory-size", str(arguments.directory_size),
                      "--log", "warn,subscriber_server::server=info"])
    prism = None
    RUNNING.extend([hello, service])
    try:
        base = service.base_url
        expect_backend(base, "sqlite")
        token, card_id, login_body, card, discover, discovery_served = prepare(base)

        reads = [
            ("GET /card/{id}", f"/card/{card_id}", 0.50),
            ("GET /card/{id}/transactions?limit=100", f"/card/{card_id}/transactions?limit=100", 0.25),
        ]
        if discovery_served:
            reads.append(("GET /merchant/discover?merchid=…", discover, 0.10))
        baseline = wrk(hello.base_url + "/", duration=arguments.duration)
        rows = []
        measured = {}
        for name, path, target in reads:
            result = wrk(base + path, token=token, duration=arguments.duration)
            measured[name] = result
            ratio = result["rps"] / baseline["rps"]
            verdict = "met" if ratio >= target else "missed"
            rows.append(f"| `{name}` | {result['rps']:,.0f} | {result['p50']:.2f} | {result['p99']:.2f} | "
                        f"{ratio:.1%} | ≥ {target:.0%} {verdict} | {result['errors']} |")
        login = wrk(f"{base}/subscriber/login", method="POST", body=json.dumps(login_body), duration=arguments.duration)
        rows.append(f"| `POST /subscriber/login` | {login['rps']:,.0f} | {login['p50']:.2f} | {login['p99']:.2f} | "
                    f"{login['rps'] / baseline['rps']:.1%} | — | {login['errors']} |")

        # Prism mocking our own document: the same three reads.
        prism_rows = []
        prism_bin = ROOT / "bench" / "node_modules" / ".bin" / "prism"
        document = pathlib.Path(workdir) / "openapi.json"
        document.write_text(json.dumps(call("GET", f"{base}/openapi.json")[1]))
        prism = Server([str(prism_bin), "mock", str(document), "--host", "127.0.0.1", "--port", str(free_port())],
                       ready_pattern=r"Prism is listening on (http://[0-9.:]+)")
        for name, path, _ in reads:
            result = wrk(prism.base_url + path, token=token, duration=arguments.duration)
            ours = measured[name]["rps"]
            ratio = ours / result["rps"] if result["rps"] else float("inf")
            prism_rows.append(f"| `{name}` | {result['rps']:,.0f} | {result['p50']:.2f} | {result['p99']:.2f} | "
                              f"{result['errors']} | {ratio:.1f}× | ≥ 20× {'met' if ratio >= 20 else 'missed'} |")
        prism.stop()
        prism = None

        latencies, rows_per_card = enroll_many(base, card)
        p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)

        # The same requests on PostgreSQL (`make bench-http` runs this under
        # tests/support/with-postgres.sh, with fsync on): one service on a fresh database.
        postgres_text = "Not measured: no PostgreSQL (run under `tests/support/with-postgres.sh`)."
        admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
        if admin:
            subprocess.run(["psql", admin, "-qc", "CREATE DATABASE bench"], check=True)
            on_postgres = Server([str(release / "subscriber-server"), "--listen", "127.0.0.1:0", "--database",
                                  admin.rsplit("/", 1)[0] + "/bench", "--keys", f"{workdir}/postgres.keys",
                                  "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
                                  "--directory-size", str(arguments.directory_size),
                                  "--log", "warn,subscriber_server::server=info"])
            RUNNING.append(on_postgres)
            try:
                pg_base = on_postgres.base_url
                expect_backend(pg_base, "postgresql")
                pg_token, pg_card, _, _, pg_discover, _ = prepare(pg_base)
                pg_paths = {"GET /card/{id}": f"/card/{pg_card}",
                            "GET /card/{id}/transactions?limit=100": f"/card/{pg_card}/transactions?limit=100",
                            "GET /merchant/discover?merchid=…": pg_discover}
                pg_rows = []
                for name, _, _ in reads:
                    result = wrk(pg_base + pg_paths[name], token=pg_token, duration=arguments.duration)
                    ours = measured[name]
                    pg_rows.append(f"| `{name}` | {ours['rps']:,.0f} | {result['rps']:,.0f} | "
                                   f"{result['rps'] / ours['rps']:.0%} | {ours['p99']:.2f} | {result['p99']:.2f} | "
                                   f"{result['errors']} |")
                pg_latencies, _ = enroll_many(pg_base, card)
                pg_p50, pg_p99 = percentile(pg_latencies, 0.50), percentile(pg_latencies, 0.99)
                pg_rows.append(f"| `POST /card` (enrollment, one at a time) | {1000 / p50:,.1f} | {1000 / pg_p50:,.1f} | "
                               f"{p50 / pg_p50:.0%} | {p99:.1f} | {pg_p99:.1f} | 0 |")
                version = subprocess.run(["psql", admin, "-tAc", "SHOW server_version"], capture_output=True,
                                         text=True).stdout.strip()
                postgres_text = (f"PostgreSQL {version} on the same machine (a throw-away cluster with fsync and "
                                 "synchronous commit on, over TCP on loopback), the same service binary with "
                                 "`--database postgres://…` (its `/readyz` says `Subscriber-Backend: postgresql`, checked before "
                                 "measuring), the same requests and wrk settings in the same run:\n\n"
                                 "| Request | SQLite requests/s | PostgreSQL requests/s | PostgreSQL ÷ SQLite | "
                                 "SQLite p99 ms | PostgreSQL p99 ms | Non-2xx |\n|---|---:|---:|---:|---:|---:|---:|\n"
                                 + "\n".join(pg_rows) + "\n\nEnrollment requests/s is one client's rate (1000 ÷ p50 "
                                 "ms). Reads of a page or a card are answered from memory on both once read; "
                                 "PostgreSQL adds a network round trip per statement where SQLite calls into "
                                 "the process.")
            finally:
                on_postgres.stop()

        # Soak: half the measured maximum of card details, at a constant rate.
        soak_text = "Not run (`--soak-seconds 0`)."
        if arguments.soak_seconds:
            rate = int(measured["GET /card/{id}"]["rps"] / 2)
            rss_start = service.rss_kib()
            total, bad, soak_p50, soak_p99 = oha_soak(f"{base}/card/{card_id}", token, rate, arguments.soak_seconds)
            rss_end = service.rss_kib()
            soak_text = (f"`oha -z {arguments.soak_seconds}s -q {rate} -c 64` on `GET /card/{{id}}` (half of the "
                         f"{measured['GET /card/{id}']['rps']:,.0f} requests/s measured above): {total:,} requests, "
                         f"{bad} errors or non-2xx, p50 {soak_p50:.2f} ms, p99 {soak_p99:.2f} ms. Server memory (RSS): "
                         f"{rss_start / 1024:.1f} MiB at the start, {rss_end / 1024:.1f} MiB at the end.")
        load_after, busy_after = load_average(), busiest_processes()

        command = (("WITH_POSTGRES_DURABLE=1 tests/support/with-postgres.sh " if admin else "")
                   + f"python3 bench/http_bench.py --duration {arguments.duration} "
                   f"--soak-seconds {arguments.soak_seconds} --section {arguments.section}")
        text = f"""## HTTP throughput and latency

Machine: {machine()}; load average (1, 5, 15 min) {load_before} before the run and {load_after} after
it (the machine is shared with other engineers' builds and tests). Busiest processes at the start:
{busy_before}; at the end: {busy_after}.
Command: `{command}` — release builds; `wrk -t2 -c64 -d{arguments.duration}s --latency` on loopback
(wrk shares the machine's cores with the server); the service runs with `--rate-limit 0 --credential-rate-limit 0` and a
directory of {arguments.directory_size:,} merchants, on SQLite (`/readyz` names the backend that serves; checked
before measuring).
Baseline: a bare axum hello-world (`crates/server/examples/hello_world.rs`) in the same run:
{baseline['rps']:,.0f} requests/s, p50 {baseline['p50']:.2f} ms, p99 {baseline['p99']:.2f} ms.

| Request | Requests/s | p50 ms | p99 ms | Share of hello-world | Target | Non-2xx |
|---|---:|---:|---:|---:|---|---:|
""" + "\n".join(rows) + f"""

""" + ("" if discovery_served else "`GET /merchant/discover` is not measured: this build does not serve it yet.\n\n") + f"""Login is bound by argon2id (19 MiB, 2 passes) by design: it is the price of a guessable secret
being slow to guess.

### The same reads against Prism

Prism (`@stoplight/prism-cli`, `bench/package.json`) mocking the service's own `/openapi.json`
(static examples, request validation on), same wrk settings:

| Request | Prism requests/s | p50 ms | p99 ms | Non-2xx | Ours ÷ Prism | Target |
|---|---:|---:|---:|---:|---:|---|
""" + "\n".join(prism_rows) + f"""

### Card enrollment with a 36-month history

{len(latencies)} enrollments, one at a time, each generating and storing {rows_per_card} transactions
of sandbox history{" (this build generates none yet: the histories land with the directory work)" if not rows_per_card else ""}
(synchronous=FULL: every commit reaches the disk): p50 {p50:.1f} ms, p99 {p99:.1f} ms
(target p99 ≤ 100 ms: {"met" if p99 <= 100 else "missed"}).

### The same requests on PostgreSQL

{postgres_text}

### Soak

{soak_text}
"""
        if arguments.section != "http":
            text = text.replace("## HTTP throughput and latency", f"## HTTP throughput and latency ({arguments.section})", 1)
        write_section(arguments.section, text)
        print(text)
    finally:
        if prism:
            prism.stop()
        service.stop()
        hello.stop()


if __name__ == "__main__":
    sys.exit(main())
