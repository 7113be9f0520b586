"""Helpers shared by the benchmark scripts: the machine, starting servers, calling the API,
and writing a section of BENCHMARKS.md between markers."""
import json
import os
import pathlib
import platform
import re
import socket
import subprocess
import threading
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def machine():
    cpu = "unknown CPU"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        kib = int(re.search(r"MemTotal:\s+(\d+)", pathlib.Path("/proc/meminfo").read_text()).group(1))
        ram = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, AttributeError):
        pass
    return f"{os.cpu_count()} cores ({cpu}), {ram} RAM, {platform.system()} {platform.release()}"


class Server:
    """A process that prints `listening on http://ADDR` when ready."""

    def __init__(self, argv, env=None, ready_pattern=r"listening on (http://[0-9.:]+)"):
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, **(env or {})})
        self.base_url = None
        self.log = []
        ready = threading.Event()

        def pump():
            for line in self.process.stdout:
                self.log.append(line)
                match = re.search(ready_pattern, line)
                if match and not self.base_url:
                    self.base_url = match.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        ready.wait(600)
        if not self.base_url:
            raise RuntimeError("server did not start:\n" + "".join(self.log[-30:]))

    def status_kib(self, *names):
        """The server's `/proc/<pid>/status` figures `names`, in KiB."""
        status = pathlib.Path(f"/proc/{self.process.pid}/status").read_text()
        return tuple(int(re.search(rf"{name}:\s+(\d+)", status).group(1)) for name in names)

    def rss_kib(self):
        return self.status_kib("VmRSS")[0]

    def rss_parts_kib(self):
        """The server's memory (RSS) as its own (anonymous) and mapped files' pages (SQLite maps
        its database file: those pages are the kernel's cache, shared and given back at need)."""
        return self.status_kib("RssAnon", "RssFile")

    def cpu_seconds(self):
        """CPU time the server used so far, user and system (a cost per request that does not
        depend on how the machine's cores were shared with the load generator)."""
        fields = pathlib.Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call(method, url, body=None, token=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def backend(base):
    """The backend the service at `base` says serves it (`/readyz`'s `Subscriber-Backend`):
    `sqlite` or `postgresql`. Raises when it does not say: such a run cannot be attributed."""
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=30) as response:
            named = response.headers.get("Subscriber-Backend")
    except urllib.error.HTTPError as error:
        named = error.headers.get("Subscriber-Backend")
    if named not in ("sqlite", "postgresql"):
        raise RuntimeError(f"{base} does not say which backend serves it (Subscriber-Backend: {named!r}): "
                           "its numbers cannot be attributed, so none are written")
    return named


def expect_backend(base, expected):
    """Stops the run unless the service at `base` is served by `expected`."""
    named = backend(base)
    print(f"{base}: measured backend {named}", flush=True)
    if named != expected:
        raise RuntimeError(f"{base} is served by {named}, not {expected}: refusing to write its numbers as {expected}'s")
    return named


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def write_section(name, text):
    """Replaces (or appends) the section between `<!-- name:start -->` and `<!-- name:end -->`."""
    path = ROOT / "BENCHMARKS.md"
    current = path.read_text() if path.exists() else "# Benchmarks\n\nEach section says the machine and the command that produced it.\n"
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{text.rstrip()}\n{end}"
    if start in current and end in current:
        before = current.split(start)[0]
        after = current.split(end, 1)[1]
        current = before + block + after
    else:
        current = current.rstrip() + "\n\n" + block + "\n"
    path.write_text(current)
