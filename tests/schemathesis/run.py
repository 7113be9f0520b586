#!/usr/bin/env python3
"""Schemathesis against the real service: starts the server binary on a free port with a
temporary database, signs up and logs in at the API version asked for, then runs `schemathesis
run <url>/openapi.json?version=<version> --checks all` with the bearer token and the
`Subscriber-Version` header. Fails unless Schemathesis finds nothing and generated at least
`--min-requests` requests across every operation.

Usage: run.py --server PATH [--api-version YYYY-MM-DD] [--max-examples N] [--min-requests N] [--seed N]"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
from service import call, linked_account, start, stop  # noqa: E402

# The versions of the API; each has its own document, fuzzed by its own run.
VERSIONS = ["2026-11-21", "2026-12-01"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--schemathesis", default=str(HERE.parent.parent / ".venv" / "bin" / "schemathesis"))
    parser.add_argument("--api-version", default=VERSIONS[0], choices=VERSIONS)
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--min-requests", type=int, default=5000)
    parser.add_argument("--seed", type=int)
    # One worker: Hypothesis's caches are not safe across Schemathesis's worker threads.
    parser.add_argument("--workers", default="1")
    parser.add_argument("extra", nargs="*", help="more arguments for schemathesis run")
    arguments = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="schemathesis-")
    process, base, log = start(arguments.server, workdir)
    version = {"Subscriber-Version": arguments.api_version}
    key = "api_key" if arguments.api_version == VERSIONS[0] else "apiKey"
    passed = False
    try:
        secret = call(base, "POST", "/subscriber/signup", {"email": "fuzzer@example.com"}, headers=version)["secret"]
        token = call(base, "POST", "/subscriber/login", {"email": "fuzzer@example.com", key: secret},
                     headers=version)["token"]
        account_id = linked_account(base, token, version)
        config = pathlib.Path(workdir) / "schemathesis.toml"
        config.write_text((HERE / "schemathesis.toml").read_text() + f"""
# Made by run.py: a linked account, whose transactions the service shows.
[[operations]]
include-path = "/account/{{account_id}}/transactions"
parameters = {{ account_id = {account_id} }}
""")
        report = pathlib.Path(workdir) / "report.json"
        command = [arguments.schemathesis, "--config-file", str(config), "run",
                   f"{base}/openapi.json?version={arguments.api_version}", "-H", f"Authorization: Bearer {token}",
                   "-H", f"Subscriber-Version: {arguments.api_version}", "--checks", "all",
                   "--max-examples", str(arguments.max_examples), "--workers", arguments.workers,
                   "--request-timeout", "30", "--report", "json", "--report-json-path", str(report),
                   *(["--seed", str(arguments.seed)] if arguments.seed is not None else []), *arguments.extra]
        print("+", " ".join(command).replace(token, "<token>"), flush=True)
        hooks = {"SCHEMATHESIS_HOOKS": "hooks", "PYTHONPATH": str(HERE)}
        result = subprocess.run(command, env={**os.environ, **hooks})
        summary = json.loads(report.read_text()) if report.exists() else {}
        generated = count_requests(summary)
        print(f"schemathesis ({arguments.api_version}) exit code {result.returncode}; {generated} generated requests")
        if result.returncode != 0:
            return result.returncode
        operations = summary.get("operations", {})
        if operations.get("tested") != operations.get("total"):
            print(f"not every operation was tested: {operations}")
            return 1
        if generated < arguments.min_requests:
            print(f"too few requests: {generated} < {arguments.min_requests}")
            return 1
        passed = True
        return 0
    finally:
        if not stop(process, log) and passed:
            sys.exit(1)


def count_requests(summary):
    """The number of test cases Schemathesis generated, from its JSON report."""
    return int(summary.get("test_cases", {}).get("generated", 0))


if __name__ == "__main__":
    sys.exit(main())
