#!/usr/bin/env python3
"""Webhook delivery (issue 25): 100 endpoints (5 subscribers with 20 each) on local receivers,
10 test events each, sent at once; deliveries per second and the delay from sending an event to
its arrival (p50, p99), without and with one more endpoint whose receiver answers after 8 s.
On SQLite (one instance) and on PostgreSQL with two instances (events sent through both).
Writes the `webhooks` section of BENCHMARKS.md.

Fairness (issue 37, M1 and M2), on a fresh service of each backend: quiet tenants' delivery
delay alone, then beside a hostile tenant (4 accounts, 80 endpoints whose receiver never
answers within the 15 s an attempt has, 100 events queued for each), as a ratio; and with one
account's 160,000 deliveries stuck (heads waiting an hour for their retry), the idle service's
CPU and another tenant's write time beside them, as a ratio of its time before. Writes the
`webhook-fairness` section.

Run through `make bench-webhooks` (part of `make bench`): it builds the release server and runs
this under tests/support/with-postgres.sh."""
import argparse
import http.server
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from common import TARGET, Server, call, expect_backend, machine, percentile, write_section

SERVER = TARGET / "release" / "subscriber-server"
SLOW_SECONDS = 8
# Longer than an attempt may take (15 s): every hostile attempt holds its slot until it times out.
HOSTILE_SECONDS = 20


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
        if self.path.startswith("/stall"):
            self.send_response(503)
            self.send_header("Retry-After", "3600")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith("/hostile"):
            time.sleep(HOSTILE_SECONDS)
        elif self.path.startswith("/slow"):
            time.sleep(SLOW_SECONDS)
        else:
            with self.server.lock:
                self.server.arrived.setdefault(self.headers.get("webhook-id"), time.monotonic())
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_):
        pass


def service(database, keys, binary=SERVER, extra=()):
    return Server([str(binary), "--listen", "127.0.0.1:0", "--database", database, "--keys", keys,
                   "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
                   "--directory-size", "1000", "--webhooks-allow-private", "--log", "warn,subscriber_server::server=info",
                   *extra])


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


def cpu_seconds(pids):
    """CPU time (user and system) the processes have used, in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def cluster_pids(admin):
    """The PostgreSQL cluster's processes: its postmaster and every child of it."""
    data = subprocess.run(["psql", admin, "-XAtqc", "SHOW data_directory"], check=True, capture_output=True,
                          text=True).stdout.strip()
    postmaster = int(pathlib.Path(data, "postmaster.pid").read_text().split()[0])
    pids = [postmaster]
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                pids.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            pass
    return pids


def merchant(base, token, name):
    status, body = call("POST", f"{base}/merchant", {"name": name, "category": "5812", "countryCode": "USA"}, token)
    assert status == 201, body


def location(base, token, street):
    body = {"location": {"countryCode": "USA", "street": street, "streetNo": "600", "city": "San Francisco",
                         "zip": "94110", "latitude": 37.7609, "longitude": -122.4212}}
    status, answer = call("POST", f"{base}/merchant/location", body, token)
    assert status == 201, answer


def quiet_delays(bases, receivers, label, tenants=4, endpoints=2, events=10):
    """Quiet tenants, each with `endpoints` endpoints on a fast receiver: one test event at a time
    per endpoint (sent, then waited for), `events` each; the delays (s) from sending to arrival."""
    port = receivers.server_address[1]
    slug = "".join(character for character in label.lower() if character.isalnum())
    hooks = []
    for tenant in range(tenants):
        token = subscriber(bases[0], f"{slug}-quiet-{tenant}-{time.time_ns()}@example.com")
        for index in range(endpoints):
            hooks.append((token, endpoint(bases[0], token, f"http://127.0.0.1:{port}/quiet/{tenant}/{index}")))

    def one_endpoint(job):
        n, (token, webhook_id) = job
        delays = []
        for event in range(events):
            base = bases[(n + event) % len(bases)]
            at = time.monotonic()
            status, body = call("POST", f"{base}/webhooks/{webhook_id}/test", {}, token)
            assert status == 200, body
            deadline = at + 60
            while time.monotonic() < deadline:
                with receivers.lock:
                    arrived = receivers.arrived.get(body["eventId"])
                if arrived is not None:
                    delays.append(arrived - at)
                    break
                time.sleep(0.002)
        return delays

    with ThreadPoolExecutor(len(hooks)) as pool:
        return [delay for delays in pool.map(one_endpoint, enumerate(hooks)) for delay in delays]


def hostile_tenant(bases, receivers, label, accounts=4, per_account=20, queued=100):
    """Accounts whose endpoints' receiver never answers in time, each endpoint with `queued`
    events waiting (one location write queues one for each endpoint of its account)."""
    port = receivers.server_address[1]
    slug = "".join(character for character in label.lower() if character.isalnum())

    def account(index):
        base = bases[index % len(bases)]
        token = subscriber(base, f"{slug}-hostile-{index}-{time.time_ns()}@example.com")
        for n in range(per_account):
            status, body = call("POST", f"{base}/webhooks", {
                "url": f"http://127.0.0.1:{port}/hostile/{index}/{n}", "events": ["merchant.location.created"]}, token)
            assert status == 201, body
        merchant(base, token, f"Hostile {index}")
        for n in range(queued):
            location(base, token, f"Hostile Street {n}")

    with ThreadPoolExecutor(accounts) as pool:
        list(pool.map(account, range(accounts)))


def write_times(base, token, label, count=60):
    times = []
    for n in range(count):
        at = time.monotonic()
        location(base, token, f"{label} {n}")
        times.append(time.monotonic() - at)
    return times


def stuck_rows(bases, receivers, label, writes=8000, per_account=20):
    """One account, `per_account` endpoints whose heads wait an hour for their retry, and
    `writes` location events queued behind them (per_account × writes deliveries stuck)."""
    port = receivers.server_address[1]
    slug = "".join(character for character in label.lower() if character.isalnum())
    base = bases[0]
    token = subscriber(base, f"{slug}-stuck-{time.time_ns()}@example.com")
    for n in range(per_account):
        status, body = call("POST", f"{base}/webhooks", {
            "url": f"http://127.0.0.1:{port}/stall/{n}", "events": ["merchant.location.created"]}, token)
        assert status == 201, body
    merchant(base, token, "Stuck Hooks")
    location(base, token, "Head")
    time.sleep(2)  # each head attempted once: 503, Retry-After: 3600

    def some(start):
        for n in range(start, writes, 8):
            location(bases[n % len(bases)], token, f"Stuck {n}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(some, range(8)))
    return per_account * writes


def fairness(bases, pids, receivers, label):
    """One backend's fairness rows (a fresh database: nothing else queued)."""
    quiet = quiet_delays(bases, receivers, label + " alone")
    hostile_tenant(bases, receivers, label)
    time.sleep(2)
    beside = quiet_delays(bases, receivers, label + " beside")
    return {"label": label, "quiet_p50": percentile(quiet, 0.5), "quiet_p99": percentile(quiet, 0.99),
            "beside_p50": percentile(beside, 0.5), "beside_p99": percentile(beside, 0.99)}


def stuck(bases, pids, receivers, label):
    other = subscriber(bases[0], f"{label.lower().replace(' ', '')}-writer-{time.time_ns()}@example.com")
    merchant(bases[0], other, "Quiet Writer")
    before = write_times(bases[0], other, "Before")
    rows = stuck_rows(bases, receivers, label)
    time.sleep(3)
    started, cpu = time.monotonic(), cpu_seconds(pids())
    time.sleep(10)
    idle = (cpu_seconds(pids()) - cpu) / (time.monotonic() - started)
    after = write_times(bases[0], other, "Beside")
    return {"label": label, "rows": rows, "idle_cpu": idle,
            "write_before": percentile(before, 0.5), "write_beside": percentile(after, 0.5),
            "write_before_p99": percentile(before, 0.99), "write_beside_p99": percentile(after, 0.99)}


def postgres_services(admin, name, workdir, binary):
    """Two instances on a new database `name`; the instances and the URL."""
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    database = admin.rsplit("/", 1)[0] + f"/{name}"
    first = service(database, f"{workdir}/{name}.keys", binary)
    second = service(database, f"{workdir}/{name}.keys", binary)
    for base in (first.base_url, second.base_url):
        expect_backend(base, "postgresql")
    return [first, second]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--server", default=str(SERVER), help="the service binary (default: the release build)")
    parser.add_argument("--only", choices=["delivery", "fairness"], help="run one part (default: both)")
    parser.add_argument("--dry-run", action="store_true", help="print the rows; BENCHMARKS.md stays as it is")
    arguments = parser.parse_args()
    admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
    if not admin:
        sys.exit("run under tests/support/with-postgres.sh: the PostgreSQL rows need a cluster")
    receivers = Receivers()
    threading.Thread(target=receivers.serve_forever, daemon=True).start()
    rows, fair, stalled = [], [], []
    running = []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as workdir:
        try:
            if arguments.only in (None, "delivery"):
                sqlite = service(f"{workdir}/hooks.sqlite3", f"{workdir}/sqlite.keys", arguments.server)
                running.append(sqlite)
                expect_backend(sqlite.base_url, "sqlite")
                for slow in (False, True):
                    label = "SQLite, one instance" + (", one slow receiver" if slow else "")
                    rows.append(run([sqlite.base_url], receivers, label, events=arguments.events, slow=slow))
                    print(rows[-1], flush=True)
                first, second = postgres_services(admin, "hooks_bench", workdir, arguments.server)
                running += [first, second]
                for slow in (False, True):
                    label = "PostgreSQL, two instances" + (", one slow receiver" if slow else "")
                    rows.append(run([first.base_url, second.base_url], receivers, label, events=arguments.events,
                                    slow=slow))
                    print(rows[-1], flush=True)
            if arguments.only in (None, "fairness"):
                for server in running:
                    server.stop()
                running.clear()
                for part, measure, table in (("fair", fairness, fair), ("stuck", stuck, stalled)):
                    sqlite = service(f"{workdir}/{part}.sqlite3", f"{workdir}/{part}.keys", arguments.server)
                    running.append(sqlite)
                    expect_backend(sqlite.base_url, "sqlite")
                    table.append(measure([sqlite.base_url], lambda: [sqlite.process.pid], receivers,
                                         "SQLite, one instance"))
                    print(table[-1], flush=True)
                    sqlite.stop()
                    running.remove(sqlite)
                    pair = postgres_services(admin, f"hooks_{part}", workdir, arguments.server)
                    running += pair
                    table.append(measure([server.base_url for server in pair],
                                         lambda pair=pair: [server.process.pid for server in pair] + cluster_pids(admin),
                                         receivers, "PostgreSQL, two instances"))
                    print(table[-1], flush=True)
                    for server in pair:
                        server.stop()
                        running.remove(server)
        finally:
            for server in running:
                server.stop()
            receivers.shutdown()
    if arguments.dry_run:
        return
    if rows:
        write_delivery(rows, arguments.events)
    if fair:
        write_fairness(fair, stalled, load)


def write_delivery(rows, events):
    table = "\n".join(
        f"| {row['label']} | {row['deliveries']} | {row['missing']} | {row['per_second']:.0f} | "
        f"{row['p50'] * 1000:.0f} ms | {row['p99'] * 1000:.0f} ms |" for row in rows)
    write_section("webhooks", f"""## Webhook delivery

Command: `make bench-webhooks` (`bench/webhook_bench.py`, release build).
Machine: {machine()}.

100 endpoints (5 subscribers with 20 each) on local receivers, {events} test events each sent at once from
16 client threads; "one slow receiver": one more endpoint, whose receiver answers after {SLOW_SECONDS} s, got
{events} events first. Delay: from sending an event (`POST /webhooks/<id>/test`) to its arrival, over the
fast endpoints' events only. Deliveries/s: events delivered over the time from the first send to the last
arrival; delivery kept pace with the senders, so it is the senders' rate as much as delivery's. The slow
receiver changes neither figure: its endpoint waits alone. PostgreSQL with fsync on.

| run | delivered | not delivered in 120 s | deliveries/s | delay p50 | delay p99 |
|---|---|---|---|---|---|
{table}
""")


def write_fairness(fair, stalled, load):
    ms = lambda seconds: f"{seconds * 1000:.0f} ms"
    fair_table = "\n".join(
        f"| {row['label']} | {ms(row['quiet_p50'])} ({ms(row['quiet_p99'])}) | "
        f"{ms(row['beside_p50'])} ({ms(row['beside_p99'])}) | "
        f"{row['beside_p50'] / row['quiet_p50']:.2f}× ({row['beside_p99'] / row['quiet_p99']:.2f}×) |" for row in fair)
    stuck_table = "\n".join(
        f"| {row['label']} | {row['rows']:,} | {row['idle_cpu'] * 100:.1f}% | "
        f"{ms(row['write_before'])} ({ms(row['write_before_p99'])}) | "
        f"{ms(row['write_beside'])} ({ms(row['write_beside_p99'])}) | "
        f"{row['write_beside'] / row['write_before']:.2f}× |" for row in stalled)
    write_section("webhook-fairness", f"""## Webhook delivery beside a hostile tenant (issue 37)

Command: `make bench-webhooks` (`bench/webhook_bench.py`, release build; `--only fairness` runs this part alone).
Machine: {machine()}; shared with other work while it ran (load average {load:.1f} at the start), so
the times are this run's, and the ratios, measured in the same run, are what to read.
Backends: SQLite (one instance), and PostgreSQL (two instances on one database, fsync on) on the
same machine; each backend on a fresh database, each service asked which backend serves it.

Quiet tenants: 4 subscribers with 2 endpoints each on a fast local receiver, 10 test events per
endpoint, each sent and waited for before the next; delay from `POST /webhooks/<id>/test` to its
arrival, p50 (p99). Then the same on new endpoints beside a hostile tenant: 4 free accounts with
20 endpoints each whose receiver answers after {HOSTILE_SECONDS} s (every attempt runs out its 15 s), 100
events queued for each endpoint (8,000 deliveries), sent through both instances on PostgreSQL.

| backend | quiet delay alone | beside the hostile tenant | ratio (goal ≤ 2×) |
|---|---|---|---|
{fair_table}

Stuck deliveries: one account with 20 endpoints whose heads answered 503 with `Retry-After: 3600`,
then 8,000 location writes queued behind them. Idle CPU: the service's (and on PostgreSQL the
cluster's) CPU time over 10 s with nothing due, as a share of one core. Another tenant's location
write (`POST /merchant/location`), 60 in a row, p50 (p99), before the stuck deliveries existed and
beside them.

| backend | deliveries stuck | idle CPU | another tenant's write before | beside them | ratio |
|---|---|---|---|---|---|
{stuck_table}
""")


if __name__ == "__main__":
    main()
