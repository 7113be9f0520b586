#!/usr/bin/env python3
"""Sandbox snapshots (issue 41): how long a restore takes for a subscriber with 10 cards of 36
months (every card's generated history, a merchant with a location, purchases and a webhook
endpoint), and what another subscriber's reads wait meanwhile. On SQLite (one instance) and on
PostgreSQL (two instances on one database: restores through the first, the other subscriber
reads through the second), in one run.

Each round changes the sandbox (a purchase, a tip, a new card) and restores the snapshot; the
time is the whole request as a client sees it. Beside the restores, a second subscriber reads
its own card's transactions in a loop: its p50 and worst read during the restores against the
same reads with no restore running. Writes the `snapshots` section of BENCHMARKS.md.

Run through `make bench-snapshots` (part of `make bench`): it builds the release server and runs
this under tests/support/with-postgres.sh."""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

from common import TARGET, Server, call, expect_backend, machine, percentile, write_section

SERVER = TARGET / "release" / "subscriber-server"


def service(database, keys, binary):
    return Server([str(binary), "--listen", "127.0.0.1:0", "--database", database, "--keys", keys,
                   "--rate-limit", "0", "--credential-rate-limit", "0", "--directory-size", "2000",
                   "--simulate-rate", "0", "--settle-after-seconds", "3600", "--webhooks-allow-private",
                   "--log", "warn,subscriber_server::server=info"])


def subscriber(base, email):
    secret = call("POST", f"{base}/subscriber/signup", {"email": email})[1]["secret"]
    return call("POST", f"{base}/subscriber/login", {"email": email, "api_key": secret})[1]["token"]


def ok(result, expected=(200, 201)):
    status, body = result
    assert status in expected, (status, body)
    return body


def enroll(base, token, card, first="Ada"):
    body = {"pan": card["pan"], "firstName": first, "lastName": "Lovelace", "expMonth": 12, "expYear": 2030,
            "countryCode": card["countryCode"]}
    return ok(call("POST", f"{base}/card", body, token))["cardId"]


def prepare(base, label):
    """A subscriber with 10 cards, a merchant, a location, purchases and an endpoint."""
    slug = "".join(character for character in label.lower() if character.isalnum())
    token = subscriber(base, f"snap-{slug}-{time.time_ns()}@example.com")
    cards = ok(call("GET", f"{base}/sandbox/cards", token=token))["cards"]
    card_ids = [enroll(base, token, card) for card in cards[:10]]
    ok(call("POST", f"{base}/merchant", {"name": "Snapshot Bakery", "category": "5462", "countryCode": "USA"}, token))
    place = {"countryCode": "USA", "street": "Market Street", "streetNo": "1", "city": "San Francisco",
             "zip": "94105", "latitude": 37.79, "longitude": -122.40}
    location = ok(call("POST", f"{base}/merchant/location", {"location": place}, token))["locationId"]
    for card_id in card_ids:
        ok(call("POST", f"{base}/sandbox/transactions", {"cardId": card_id, "locationId": location, "amount": 12.5},
                token))
    ok(call("POST", f"{base}/webhooks", {"url": "http://127.0.0.1:9/hooks", "events": ["webhook.test"]}, token))
    return token, card_ids, location, cards


def reader(base):
    """Another subscriber with one card, and the path of its transactions."""
    token = subscriber(base, f"reader-{time.time_ns()}@example.com")
    cards = ok(call("GET", f"{base}/sandbox/cards", token=token))["cards"]
    card_id = enroll(base, token, cards[0], first="Grace")
    return token, f"{base}/card/{card_id}/transactions?limit=100"


def reads_while(base_token_path, busy):
    """Reads in a loop while `busy` runs; their times (ms)."""
    token, url = base_token_path
    times, done = [], threading.Event()

    def loop():
        while not done.is_set():
            started = time.perf_counter()
            ok(call("GET", url, token=token))
            times.append((time.perf_counter() - started) * 1000)

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        busy()
    finally:
        done.set()
        thread.join()
    return times


def measure(restore_base, read_base, label, rounds):
    token, card_ids, location, cards = prepare(restore_base, label)
    started = time.perf_counter()
    snapshot = ok(call("POST", f"{restore_base}/sandbox/snapshots", {"name": "10 cards"}, token))
    take_ms = (time.perf_counter() - started) * 1000
    other = reader(read_base)
    quiet = reads_while(other, lambda: time.sleep(3))
    restores = []

    def rounds_of_restores():
        for round_ in range(rounds):
            sale = ok(call("POST", f"{restore_base}/sandbox/transactions",
                           {"cardId": card_ids[round_ % 10], "locationId": location, "amount": 3.0}, token))
            ok(call("POST", f"{restore_base}/sandbox/transactions/{sale['transactionId']}/settle", {"amount": 4.0},
                    token))
            started = time.perf_counter()
            ok(call("POST", f"{restore_base}/sandbox/snapshots/{snapshot['snapshotId']}/restore", {}, token))
            restores.append((time.perf_counter() - started) * 1000)

    beside = reads_while(other, rounds_of_restores)
    return {"label": label, "cards": snapshot["cards"], "transactions": snapshot["transactions"],
            "bytes": snapshot["bytes"], "take_ms": take_ms, "restore_p50": percentile(restores, 0.5),
            "restore_max": max(restores), "rounds": rounds,
            "quiet_p50": percentile(quiet, 0.5), "quiet_max": max(quiet),
            "beside_p50": percentile(beside, 0.5), "beside_max": max(beside)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--server", default=str(SERVER), help="the service binary (default: the release build)")
    parser.add_argument("--dry-run", action="store_true", help="print the rows; BENCHMARKS.md stays as it is")
    arguments = parser.parse_args()
    admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
    if not admin:
        sys.exit("run under tests/support/with-postgres.sh: the PostgreSQL rows need a cluster")
    load = os.getloadavg()[0]
    rows, running = [], []
    with tempfile.TemporaryDirectory() as workdir:
        try:
            sqlite = service(f"{workdir}/snap.sqlite3", f"{workdir}/sqlite.keys", arguments.server)
            running.append(sqlite)
            expect_backend(sqlite.base_url, "sqlite")
            rows.append(measure(sqlite.base_url, sqlite.base_url, "SQLite, one instance", arguments.rounds))
            print(rows[-1], flush=True)
            subprocess.run(["psql", admin, "-qc", "CREATE DATABASE snapshots_bench"], check=True)
            database = admin.rsplit("/", 1)[0] + "/snapshots_bench"
            first = service(database, f"{workdir}/pg.keys", arguments.server)
            running.append(first)
            second = service(database, f"{workdir}/pg.keys", arguments.server)
            running.append(second)
            for base in (first.base_url, second.base_url):
                expect_backend(base, "postgresql")
            rows.append(measure(first.base_url, second.base_url, "PostgreSQL, two instances", arguments.rounds))
            print(rows[-1], flush=True)
        finally:
            for server in running:
                server.stop()
    table = "\n".join(
        f"| {row['label']} | {row['cards']} | {row['transactions']:,} | {row['bytes'] / 1e6:.1f} MB "
        f"| {row['take_ms']:.0f} ms | {row['restore_p50']:.0f} ms | {row['restore_max']:.0f} ms "
        f"| {row['quiet_p50']:.1f} / {row['quiet_max']:.1f} ms | {row['beside_p50']:.1f} / {row['beside_max']:.1f} ms |"
        for row in rows)
    text = f"""## Sandbox snapshots: a restore of 10 cards (issue 41)

Machine: {machine()}; load average {load:.2f} at the start. Command: `make bench-snapshots`
(`bench/snapshot_bench.py`, release build; "Stored" is the JSON the parts hold, before PostgreSQL compresses it). One subscriber with 10 cards (each with its
generated 36-month history), a merchant with a location, a purchase per card and a webhook
endpoint takes a snapshot; then {arguments.rounds} rounds of a purchase, its settlement with a
tip, and a restore of the snapshot, timed as a client sees the request. Beside them a second
subscriber reads its own card's transactions (100 rows) in a loop: its median and worst read
with no restore running, and during the restores (on PostgreSQL through the other instance).
Goal: a restore ≤ 1 s; the other subscriber does not pause.

| Backend | Cards | Transactions | Stored | Take | Restore p50 | Restore worst | Other's reads, quiet (p50 / worst) | Other's reads, during restores |
|---|---|---|---|---|---|---|---|---|
{table}
"""
    if arguments.dry_run:
        print(text)
    else:
        write_section("snapshots", text)


if __name__ == "__main__":
    main()
