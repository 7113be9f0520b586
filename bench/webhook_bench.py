#!/usr/bin/env python3
"""Webhook delivery (issue 25): 100 endpoints (5 subscribers with 20 each) on local receivers,
10 test events each, sent at once; deliveries per second and the delay from sending an event to
its arrival (p50, p99), without and with one more endpoint whose receiver answers after 8 s.
On SQLite (one instance) and on PostgreSQL with two instances (events sent through both).
Writes the `webhooks` section of BENCHMARKS.md.

Run through `make bench-webhooks` (part of `make bench`): it builds the release server and runs
this under tests/support/with-postgres.sh."""
import argparse
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from common import TARGET, Server, call, expect_backend, machine, percentile, write_section

SERVER = TARGET / "release" / "subscriber-server"
SLOW_SECONDS = 8


class Receivers(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Receive)
        self.arrived = {}
        self.lock = threading.Lock()


class Receive(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.startswith("/slow"):
            time.sleep(SLOW_SECONDS)
        else:
            with self.server.lock:
                self.server.arrived.setdefault(self.headers.get("webhook-id"), time.monotonic())
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_):
        pass


def service(database, keys, binary=SERVER):
    return Server([str(binary), "--listen", "127.0.0.1:0", "--database", database, "--keys", keys,
                   "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
                   "--directory-size", "1000", "--webhooks-allow-private", "--log", "warn,subscriber_server::server=info"])


def subscriber(base, email):
    secret = call("POST", f"{base}/subscriber/signup", {"email": email})[1]["secret"]
    return call("POST", f"{base}/subscriber/login", {"email": email, "api_key": secret})[1]["token"]


def endpoint(base, token, url):
    status, body = call("POST", f"{base}/webhooks", {"url": url, "events": ["webhook.test"]}, token)
    assert status == 201, body
    return body["webhookId"]


def run(bases, receivers, label, tenants=5, per_tenant=20, events=10, slow=False):
    """Every endpoint gets `events` test events, sent from 16 threads through `bases` in turn;
    returns deliveries/s and the delays (s) of the fast endpoints' events."""
    port = receivers.server_address[1]
    slug = "".join(character for character in label.lower() if character.isalnum())
    endpoints = []
    for tenant in range(tenants):
        token = subscriber(bases[0], f"{slug}-{tenant}-{time.time_ns()}@example.com")
        for index in range(per_tenant):
            endpoints.append((token, endpoint(bases[0], token, f"http://127.0.0.1:{port}/hooks/{tenant}/{index}")))
    if slow:
        token = subscriber(bases[0], f"{slug}-slow-{time.time_ns()}@example.com")
        slow_endpoint = endpoint(bases[0], token, f"http://127.0.0.1:{port}/slow")
        for _ in range(events):
            call("POST", f"{bases[0]}/webhooks/{slow_endpoint}/test", {}, token)
    with receivers.lock:
        # Event ids start again on another database.
        receivers.arrived.clear()
    sent = {}
    jobs = [(n, token, webhook_id) for n in range(events) for token, webhook_id in endpoints]

    def send(job):
        n, token, webhook_id = job
        base = bases[(webhook_id + n) % len(bases)]
        at = time.monotonic()
        status, body = call("POST", f"{base}/webhooks/{webhook_id}/test", {}, token)
        assert status == 200, body
        return body["eventId"], at

    started = time.monotonic()
    with ThreadPoolExecutor(16) as pool:
        for event_id, at in pool.map(send, jobs):
            sent[event_id] = at
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with receivers.lock:
            if all(event_id in receivers.arrived for event_id in sent):
                break
        time.sleep(0.05)
    with receivers.lock:
        delays = [receivers.arrived[event_id] - at for event_id, at in sent.items() if event_id in receivers.arrived]
        last = max((receivers.arrived[event_id] for event_id in sent if event_id in receivers.arrived), default=started)
    missing = len(sent) - len(delays)
    return {"label": label, "deliveries": len(delays), "missing": missing,
            "per_second": len(delays) / max(last - started, 1e-9),
            "p50": percentile(delays, 0.5), "p99": percentile(delays, 0.99)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--server", default=str(SERVER), help="the service binary (default: the release build)")
    parser.add_argument("--dry-run", action="store_true", help="print the rows; BENCHMARKS.md stays as it is")
    arguments = parser.parse_args()
    admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
    if not admin:
        sys.exit("run under tests/support/with-postgres.sh: the PostgreSQL rows need a cluster")
    receivers = Receivers()
    threading.Thread(target=receivers.serve_forever, daemon=True).start()
    rows = []
    running = []
    with tempfile.TemporaryDirectory() as workdir:
        try:
            sqlite = service(f"{workdir}/hooks.sqlite3", f"{workdir}/sqlite.keys", arguments.server)
            running.append(sqlite)
            expect_backend(sqlite.base_url, "sqlite")
            for slow in (False, True):
                label = "SQLite, one instance" + (", one slow receiver" if slow else "")
                rows.append(run([sqlite.base_url], receivers, label, events=arguments.events, slow=slow))
                print(rows[-1], flush=True)
            subprocess.run(["psql", admin, "-qc", "CREATE DATABASE hooks_bench"], check=True)
            database = admin.rsplit("/", 1)[0] + "/hooks_bench"
            first = service(database, f"{workdir}/pg.keys", arguments.server)
            running.append(first)
            second = service(database, f"{workdir}/pg.keys", arguments.server)
            running.append(second)
            for base in (first.base_url, second.base_url):
                expect_backend(base, "postgresql")
            for slow in (False, True):
                label = "PostgreSQL, two instances" + (", one slow receiver" if slow else "")
                rows.append(run([first.base_url, second.base_url], receivers, label, events=arguments.events,
                                slow=slow))
                print(rows[-1], flush=True)
        finally:
            for server in running:
                server.stop()
            receivers.shutdown()
    if arguments.dry_run:
        return
    table = "\n".join(
        f"| {row['label']} | {row['deliveries']} | {row['missing']} | {row['per_second']:.0f} | "
        f"{row['p50'] * 1000:.0f} ms | {row['p99'] * 1000:.0f} ms |" for row in rows)
    write_section("webhooks", f"""## Webhook delivery

Command: `make bench-webhooks` (`bench/webhook_bench.py`, release build).
Machine: {machine()}.

100 endpoints (5 subscribers with 20 each) on local receivers, {arguments.events} test events each sent at once from
16 client threads; "one slow receiver": one more endpoint, whose receiver answers after {SLOW_SECONDS} s, got
{arguments.events} events first. Delay: from sending an event (`POST /webhooks/<id>/test`) to its arrival, over the
fast endpoints' events only. Deliveries/s: events delivered over the time from the first send to the last
arrival; delivery kept pace with the senders, so it is the senders' rate as much as delivery's. The slow
receiver changes neither figure: its endpoint waits alone. PostgreSQL with fsync on.

| run | delivered | not delivered in 120 s | deliveries/s | delay p50 | delay p99 |
|---|---|---|---|---|---|
{table}
""")


if __name__ == "__main__":
    main()
