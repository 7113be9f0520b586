#!/usr/bin/env python3
"""Reads at scale: many tenants, many cards, and more distinct pages than any cache holds.

30 subscribers enroll 6 test cards each (180 cards, each with its 36-month sandbox history).
The URLs a dashboard or an integration reads are collected from the service itself: every
card's details, every page of every card's history by cursor, month filters and every page of
every card's sync from the start. wrk then picks one of them at random for each request, with
its subscriber's token. Measured on SQLite and on PostgreSQL in the same run, each as a share of
a bare axum hello-world measured in that run, beside the single-URL reads (one card's details
and first page over and over: what the caches answer). Writes the `reads` section of
BENCHMARKS.md.

Run through `make bench-reads` (builds the release binaries first)."""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import urllib.parse

from common import TARGET, Server, call, expect_backend, machine, write_section
from http_bench import busiest_processes, load_average, wrk, RUNNING

PANS = ["4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222",
        "6011111111111117", "4000002760003184"]

# Each request is one of the collected URLs, at random, with its subscriber's token.
MIXED_SCRIPT = r"""
local requests = {}
init = function(args)
  for line in io.lines(args[1]) do
    local token, path = line:match("^(%S+)\t(.+)$")
    requests[#requests + 1] = wrk.format("GET", path, { ["Authorization"] = "Bearer " .. token })
  end
  math.randomseed(os.time() + tonumber(tostring(requests):match("0x(%x+)") or "0", 16))
end
request = function()
  return requests[math.random(#requests)]
end
"""


def service_args(database, workdir, directory_size):
    return [str(TARGET / "release" / "subscriber-server"), "--listen", "127.0.0.1:0", "--database", database,
            "--keys", f"{workdir}/{abs(hash(database))}.keys", "--rate-limit", "0", "--credential-rate-limit", "0",
            "--login-attempts", "1000000", "--directory-size", str(directory_size),
            "--log", "warn,subscriber_server::server=info"]


def next_cursor(page):
    """The page's cursor, under either version's name (an account without a pin reads the first
    version, `next_cursor`; later ones say `nextCursor`)."""
    return page.get("nextCursor", page.get("next_cursor"))


def pages_by_cursor(base, token, first, cursor_name, next_of):
    """The URL of every page reached from `first` by following its cursors."""
    urls, url = [], first
    while url:
        urls.append(url)
        status, body = call("GET", base + url, token=token)
        assert status == 200 and isinstance(body, dict), (url, status, str(body)[:300])
        cursor = next_of(body)
        separator = "&" if "?" in first else "?"
        url = f"{first}{separator}{cursor_name}={urllib.parse.quote(cursor)}" if cursor else None
    return urls


def tenants(base, subscribers, cards_each, months_each, seed):
    """Signs up `subscribers`, enrolls their cards and collects the URLs to read:
    (token, path) pairs, and how many of each kind."""
    rng = random.Random(seed)
    requests, kinds = [], {"card details": 0, "history pages by cursor": 0, "month filters": 0, "sync pages": 0}
    card = {"firstName": "Read", "lastName": "Bench", "expMonth": 12, "expYear": 2030, "countryCode": "USA"}
    for index in range(subscribers):
        email = f"reader-{index}@example.com"
        status, signup = call("POST", f"{base}/subscriber/signup", {"email": email})
        assert status == 201, signup
        token = call("POST", f"{base}/subscriber/login", {"email": email, "api_key": signup["secret"]})[1]["token"]
        for pan in PANS[:cards_each]:
            status, enrolled = call("POST", f"{base}/card", {**card, "pan": pan}, token)
            assert status == 201, enrolled
            card_id = enrolled["cardId"]
            paths = [f"/card/{card_id}"]
            kinds["card details"] += 1
            history = pages_by_cursor(base, token, f"/card/{card_id}/transactions?limit=100", "cursor",
                                      next_cursor)
            paths += history
            kinds["history pages by cursor"] += len(history)
            first_page = call("GET", f"{base}/card/{card_id}/transactions?limit=500", token=token)[1]
            months = sorted({row["createdAt"][:7] for row in first_page["transactions"]})
            for month in rng.sample(months, min(months_each, len(months))):
                paths.append(f"/card/{card_id}/transactions?from={month}-01&to={month}-28&limit=100")
                kinds["month filters"] += 1
            sync = pages_by_cursor(base, token, f"/card/{card_id}/transactions/sync?count=100", "cursor",
                                   lambda page: next_cursor(page) if page.get("hasMore", page.get("has_more")) else None)
            paths += sync
            kinds["sync pages"] += len(sync)
            requests += [(token, path) for path in paths]
    return requests, kinds


def mixed(base, requests, duration):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as listing:
        listing.write("".join(f"{token}\t{path}\n" for token, path in requests))
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(MIXED_SCRIPT)
    try:
        return wrk(base + "/", duration=duration, script=script.name, script_args=[listing.name])
    finally:
        os.unlink(listing.name)
        os.unlink(script.name)


def measured(service, run, duration):
    """`run()`'s wrk result, with the server's CPU time per request (µs) during it."""
    before = service.cpu_seconds()
    result = run()
    result["cpu_us"] = (service.cpu_seconds() - before) / max(result["rps"] * duration, 1) * 1e6
    return result


def row(name, result, baseline, target=None):
    ratio = result["rps"] / baseline["rps"]
    goal = f"≥ {target:.0%} {'met' if ratio >= target else 'missed'}" if target else "—"
    return (f"| {name} | {result['rps']:,.0f} | {result['p50']:.2f} | {result['p99']:.2f} | {ratio:.1%} | {goal} | "
            f"{result['cpu_us']:.0f} | {result['errors']} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=15, help="seconds per wrk run")
    parser.add_argument("--subscribers", type=int, default=30)
    parser.add_argument("--cards", type=int, default=6, help="cards per subscriber")
    parser.add_argument("--months", type=int, default=6, help="month filters per card")
    parser.add_argument("--directory-size", type=int, default=50000)
    parser.add_argument("--section", default="reads")
    arguments = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="subscriber-reads-")
    load_before, busy_before = load_average(), busiest_processes()
    hello = Server([str(TARGET / "release" / "examples" / "hello_world"), "127.0.0.1:0"])
    RUNNING.append(hello)
    databases = [("SQLite", "sqlite", f"{workdir}/reads.sqlite3")]
    admin = os.environ.get("SUBSCRIBER_TEST_POSTGRES")
    if admin:
        subprocess.run(["psql", admin, "-qc", "CREATE DATABASE reads"], check=True)
        databases.append(("PostgreSQL", "postgresql", admin.rsplit("/", 1)[0] + "/reads"))
    rows, notes = [], []
    try:
        for label, backend, database in databases:
            service = Server(service_args(database, workdir, arguments.directory_size))
            RUNNING.append(service)
            try:
                expect_backend(service.base_url, backend)
                requests, kinds = tenants(service.base_url, arguments.subscribers, arguments.cards, arguments.months,
                                          seed=7)
                baseline = wrk(hello.base_url + "/", duration=arguments.duration)
                token, card_path = requests[0]
                single = [("one card's details, over and over", card_path, 0.50),
                          ("one card's first page of 100, over and over", f"{card_path}/transactions?limit=100", 0.25)]
                for name, path, target in single:
                    result = measured(service, lambda path=path: wrk(service.base_url + path, token=token,
                                                                     duration=arguments.duration), arguments.duration)
                    rows.append(row(f"{label}: {name}", result, baseline, target))
                result = measured(service, lambda: mixed(service.base_url, requests, arguments.duration),
                                  arguments.duration)
                target = 0.20 if backend == "sqlite" else 0.12
                rows.append(row(f"**{label}: mixed reads, {len(requests):,} URLs at random**", result, baseline, target))
                notes.append(f"{label}: hello-world {baseline['rps']:,.0f} requests/s in its turn; URLs: "
                             + ", ".join(f"{count:,} {kind}" for kind, count in kinds.items())
                             + f"; server memory (RSS) after the run {service.rss_kib() / 1024:.0f} MiB"
                             + " ({:.0f} MiB its own, {:.0f} MiB of mapped files).".format(
                                 *(part / 1024 for part in service.rss_parts_kib())))
            finally:
                service.stop()
        load_after, busy_after = load_average(), busiest_processes()
        command = (("WITH_POSTGRES_DURABLE=1 tests/support/with-postgres.sh " if admin else "")
                   + f"python3 bench/read_bench.py --duration {arguments.duration}")
        text = f"""## Reads at scale

Machine: {machine()}; load average (1, 5, 15 min) {load_before} before the run and {load_after} after
it. Busiest other processes at the start: {busy_before}; at the end: {busy_after}.
Command: `{command}` (`make bench-reads`) — release builds; `wrk -t2 -c64 -d{arguments.duration}s --latency` on
loopback, sharing the machine's cores with the server; the service with `--rate-limit 0` and a directory of
{arguments.directory_size:,} merchants; each backend checked through `/readyz` (`Subscriber-Backend`) before
measuring. PostgreSQL: {"a throw-away local cluster with fsync on, one instance, over TCP on loopback" if admin else "not measured (run under `tests/support/with-postgres.sh`)"}.

{arguments.subscribers} subscribers enroll {arguments.cards} test cards each ({arguments.subscribers * arguments.cards} cards,
each with its 36-month sandbox history). The mixed load picks, for every request, one URL at random
among all collected from the service: each card's details, every page of every history by cursor
(`limit=100`), {arguments.months} month filters per card and every page of each card's sync from the
start (`count=100`), each with its subscriber's token. Each share is of the hello-world measured
just before, on the same machine in the same run.

What answers: a card's rows are read once (all of its 36-month window, each row's JSON written
then) and kept while no event of the card comes (`crates/server/src/card_rows.rs`, up to 256 MiB;
these 180 cards' histories fit). Every page, month filter and sync page of the card is then cut
from them by copying, so no two URLs share a cached answer and no page is cached as such. A card
not kept costs one read of its whole window (a few ms) before its first page. On PostgreSQL each
read still asks the database for the card's newest event (another instance may have changed
it); the asks of concurrent reads go together, one statement per batch
(`storage/postgres/events.rs`, `answer_newest`), which is still what separates the two backends
here. The service runs on mimalloc (glibc's malloc took ~15% of a cached read's CPU).

Every request is also kept in the request history, as in production (contract: "Request
history"): masked and written by a writer task in chunks of at most 2,048 requests, a successful
read's answer cut to 2 KiB. The server CPU column is the server process's user and system time
during the run divided by the requests answered: unlike the share, it does not move with how the
two cores were shared with wrk.

| Read | Requests/s | p50 ms | p99 ms | Share of hello-world | Goal | Server CPU µs per request | Non-2xx |
|---|---:|---:|---:|---:|---|---:|---:|
""" + "\n".join(rows) + "\n\n" + "\n".join(f"- {note}" for note in notes) + "\n"
        write_section(arguments.section, text)
        print(text)
    finally:
        hello.stop()


if __name__ == "__main__":
    sys.exit(main())
