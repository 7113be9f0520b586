#!/usr/bin/env python3
"""Schemathesis against the real service: starts the server binary on a free port with a
temporary database, signs up and logs in, then runs `schemathesis run <url>/openapi.json
--checks all` with the bearer token. Fails unless Schemathesis finds nothing and generated
at least `--min-requests` requests across every operation.

Usage: run.py --server PATH [--max-examples N] [--min-requests N] [--seed N]"""
import argparse
import html
import http.cookiejar
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def linked_account(base, token):
    """An account linked through the sandbox bank's pages, as a person's browser would: the
    transactions of an account are readable (not 403) only once it is linked."""
    enrolled = call(base, "POST", "/account", {"bank": "northwind"}, token)
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def submit(page, fields):
        action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page).group(1))
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        data = urllib.parse.urlencode({"csrf": csrf, **fields}).encode()
        with browser.open(urllib.parse.urljoin(base, action), data=data, timeout=60) as response:
            return response.read().decode()

    with browser.open(enrolled["url"], timeout=60) as response:
        login = response.read().decode()
    consent = submit(login, {"username": "user_good", "password": "pass_good"})
    submit(consent, {"balances": "on", "cards": "on", "transactions": "on", "decision": "allow"})
    account = call(base, "GET", f"/account/{enrolled['accountId']}", token=token)
    if account["status"] != "linked":
        sys.exit(f"the sandbox bank did not link the account: {account}")
    return account["accountId"]


def start(server, workdir):
    process = subprocess.Popen(
        [server, "--listen", "127.0.0.1:0", "--database", f"{workdir}/fuzz.sqlite3",
         # The fuzzer sends thousands of requests a minute from one address and token.
         "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
         "--directory-size", "2000", "--simulate-rate", "0", "--log", "warn,subscriber_server::server=info",
         # Webhook URLs as the document describes them for a sandbox on this machine (loopback).
         "--webhooks-allow-private"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found = threading.Event()
    base = []
    log = []

    def pump():
        for line in process.stdout:
            log.append(line)
            match = re.search(r"listening on (http://\S+)", line)
            if match and not base:
                base.append(match.group(1))
                found.set()
        found.set()

    threading.Thread(target=pump, daemon=True).start()
    found.wait(300)
    if not base:
        process.kill()
        sys.exit("the server did not start:\n" + "".join(log[-30:]))
    return process, base[0], log


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--schemathesis", default=str(HERE.parent.parent / ".venv" / "bin" / "schemathesis"))
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--min-requests", type=int, default=5000)
    parser.add_argument("--seed", type=int)
    # One worker: Hypothesis's caches are not safe across Schemathesis's worker threads.
    parser.add_argument("--workers", default="1")
    parser.add_argument("extra", nargs="*", help="more arguments for schemathesis run")
    arguments = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="schemathesis-")
    process, base, log = start(arguments.server, workdir)
    try:
        secret = call(base, "POST", "/subscriber/signup", {"email": "fuzzer@example.com"})["secret"]
        token = call(base, "POST", "/subscriber/login", {"email": "fuzzer@example.com", "api_key": secret})["token"]
        account_id = linked_account(base, token)
        config = pathlib.Path(workdir) / "schemathesis.toml"
        config.write_text((HERE / "schemathesis.toml").read_text() + f"""
# Made by run.py: a linked account, whose transactions the service shows.
[[operations]]
include-path = "/account/{{account_id}}/transactions"
parameters = {{ account_id = {account_id} }}
""")
        report = pathlib.Path(workdir) / "report.json"
        command = [arguments.schemathesis, "--config-file", str(config), "run",
                   f"{base}/openapi.json", "-H", f"Authorization: Bearer {token}", "--checks", "all",
                   "--max-examples", str(arguments.max_examples), "--workers", arguments.workers,
                   "--request-timeout", "30", "--report", "json", "--report-json-path", str(report),
                   *(["--seed", str(arguments.seed)] if arguments.seed is not None else []), *arguments.extra]
        print("+", " ".join(command).replace(token, "<token>"), flush=True)
        hooks = {"SCHEMATHESIS_HOOKS": "hooks", "PYTHONPATH": str(HERE)}
        result = subprocess.run(command, env={**os.environ, **hooks})
        summary = json.loads(report.read_text()) if report.exists() else {}
        generated = count_requests(summary)
        print(f"schemathesis exit code {result.returncode}; {generated} generated requests")
        if result.returncode != 0:
            return result.returncode
        operations = summary.get("operations", {})
        if operations.get("tested") != operations.get("total"):
            print(f"not every operation was tested: {operations}")
            return 1
        if generated < arguments.min_requests:
            print(f"too few requests: {generated} < {arguments.min_requests}")
            return 1
        return 0
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if any("panicked" in line for line in log):
            print("the server panicked:\n" + "".join(line for line in log if "panicked" in line))


def count_requests(summary):
    """The number of test cases Schemathesis generated, from its JSON report."""
    return int(summary.get("test_cases", {}).get("generated", 0))


if __name__ == "__main__":
    sys.exit(main())
