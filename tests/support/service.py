"""The real service for the Python-driven suites (Schemathesis, the generated clients): the server
binary on a free port with a temporary database, and plain JSON calls to it.

    process, base, log = start(server, workdir)"""
import html
import http.cookiejar
import json
import re
import subprocess
import sys
import threading
import urllib.parse
import urllib.request


def call(base, method, path, body=None, token=None, headers=None):
    """One JSON request; the answer's body."""
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def linked_account(base, token, headers=None):
    """An account linked through the sandbox bank's pages, as a person's browser would: the
    transactions of an account are readable (not 403) only once it is linked."""
    enrolled = call(base, "POST", "/account", {"bank": "northwind"}, token, headers)
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
    account = call(base, "GET", f"/account/{enrolled['accountId']}", token=token, headers=headers)
    if account["status"] != "linked":
        sys.exit(f"the sandbox bank did not link the account: {account}")
    return account["accountId"]


def flags_of(server):
    """The flags the server binary knows (another branch may not have them all yet)."""
    return subprocess.run([server, "--help"], capture_output=True, text=True, check=False).stdout


def start(server, workdir, extra=()):
    """Starts the server on 127.0.0.1:0; returns (process, base URL, its log lines so far)."""
    process = subprocess.Popen(
        [server, "--listen", "127.0.0.1:0", "--database", f"{workdir}/service.sqlite3",
         # The suites send thousands of requests a minute from one address and token.
         "--rate-limit", "0", "--credential-rate-limit", "0", "--login-attempts", "1000000",
         "--directory-size", "2000", "--simulate-rate", "0", "--log", "warn,subscriber_server::server=info",
         # Webhook URLs as the document describes them for a sandbox on this machine (loopback).
         "--webhooks-allow-private", *extra],
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


def stop(process, log):
    """Stops the server; fails loudly if it panicked meanwhile."""
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    panics = [line for line in log if "panicked" in line]
    if panics:
        print("the server panicked:\n" + "".join(panics))
        return False
    return True
