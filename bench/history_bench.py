"""What the request history costs the hottest reads, on SQLite: one release build run twice, with
the history (the default, 14 days) and without it (`--request-log-days 0`), each on a fresh
database with the same card, measured in turn (`rounds` alternations of `wrk` on each read) so
the machine's drift falls on both alike. Writes BENCHMARKS.md's "history" section.

    make bench-history    (or: python3 bench/history_bench.py --rounds 3 --duration 8)
"""
import argparse
import statistics
import tempfile

from common import TARGET, Server, expect_backend, machine, write_section
from http_bench import load_average, prepare, wrk


def start(workdir, name, extra):
    return Server([str(TARGET / "release" / "subscriber-server"), "--listen", "127.0.0.1:0", "--database",
                   f"{workdir}/{name}.sqlite3", "--rate-limit", "0", "--credential-rate-limit", "0",
                   "--login-attempts", "1000000", "--directory-size", "50000",
                   "--log", "warn,subscriber_server::server=info", *extra])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=8, help="seconds per wrk run")
    parser.add_argument("--section", default="history")
    arguments = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="subscriber-history-bench-")
    load_before = load_average()
    servers = {"without": start(workdir, "without", ["--request-log-days", "0"]),
               "with": start(workdir, "with", [])}
    try:
        reads = {}
        for name, server in servers.items():
            expect_backend(server.base_url, "sqlite")
            token, card_id, *_ = prepare(server.base_url)
            reads[name] = (server.base_url, token, card_id)
        paths = [("GET /card/{id}", "/card/{card}"),
                 ("GET /card/{id}/transactions?limit=100", "/card/{card}/transactions?limit=100")]
        results = {(label, name): [] for label, _ in paths for name in servers}
        for _ in range(arguments.rounds):
            for label, path in paths:
                for name in servers:
                    base, token, card_id = reads[name]
                    results[(label, name)].append(
                        wrk(base + path.format(card=card_id), token=token, duration=arguments.duration))
        rows = []
        for label, _ in paths:
            without, with_history = results[(label, "without")], results[(label, "with")]
            rps_without = statistics.median(result["rps"] for result in without)
            rps_with = statistics.median(result["rps"] for result in with_history)
            p99_without = statistics.median(result["p99"] for result in without)
            p99_with = statistics.median(result["p99"] for result in with_history)
            errors = sum(result["errors"] for result in without + with_history)
            rows.append(f"| `{label}` | {rps_without:,.0f} | {rps_with:,.0f} | {rps_with / rps_without:.1%} | "
                        f"{p99_without:.2f} | {p99_with:.2f} | {errors} |")
        text = f"""Machine: {machine()}; load average before: {load_before}.
Command: `make bench-history` (`bench/history_bench.py --rounds {arguments.rounds} --duration {arguments.duration}`):
one release build, two servers each on a fresh SQLite file with the same card set-up
(`bench/http_bench.py`'s `prepare`), one with `--request-log-days 0` (no history) and one with
the default history; `wrk -t2 -c64 -d{arguments.duration}s --latency` on loopback on each read, the
two servers in turn, {arguments.rounds} rounds; medians.

| Request | Without history requests/s | With history requests/s | With ÷ without | Without p99 ms | With p99 ms | Non-2xx |
|---|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + "\n"
        print(text)
        write_section(arguments.section, text)
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
