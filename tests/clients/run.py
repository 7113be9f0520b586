#!/usr/bin/env python3
"""Clients generated from the newest version's OpenAPI document, as an outside developer makes
them, drive the service: signup → card → transactions → merchant → webhook → event.

Starts the server binary, fetches `/openapi.json?version=<newest>`, then
- generates a Python package with openapi-python-client, installs it into the venv and runs
  `python_flow.py` with it;
- generates TypeScript types with openapi-typescript, compiles `typescript/flow.ts` (which calls
  the service through openapi-fetch) with strict `tsc`, and runs it with node.
Each flow receives the webhook on a server of its own on 127.0.0.1.

Usage: run.py --server PATH [--python VENV_PYTHON] [--only python|typescript]"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
from service import start, stop  # noqa: E402

NEWEST = "2026-12-01"
PACKAGE = "subscriber_data_api_client"


def run(command, **options):
    print("+", " ".join(str(part) for part in command), flush=True)
    subprocess.run(command, check=True, **options)


def python_client(arguments, document, workdir, base):
    bin_dir = pathlib.Path(arguments.python).absolute().parent
    generated = workdir / "python"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    run([bin_dir / "openapi-python-client", "generate", "--path", document, "--output-path", generated,
         "--meta", "setup", "--overwrite"], env=env)
    # The package's own modules, next to the flow: no install into the shared venv.
    run([bin_dir / "python", HERE / "python_flow.py", base, NEWEST],
        env={**env, "PYTHONPATH": str(generated)})


def typescript_client(document, workdir, base):
    project = workdir / "typescript"
    shutil.copytree(HERE / "typescript", project, ignore=shutil.ignore_patterns("node_modules", "build", "generated"))
    (project / "node_modules").symlink_to(HERE / "typescript" / "node_modules")
    (project / "generated").mkdir()
    tools = HERE / "typescript" / "node_modules" / ".bin"
    run([tools / "openapi-typescript", document, "--output", project / "generated" / "schema.d.ts"], cwd=project)
    run([tools / "tsc", "--project", project / "tsconfig.json"], cwd=project)
    run(["node", project / "build" / "flow.js", base, NEWEST], cwd=project)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--python", default=str(HERE.parent.parent / ".venv-clients" / "bin" / "python"))
    parser.add_argument("--only", choices=["python", "typescript"])
    arguments = parser.parse_args()

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="generated-clients-"))
    process, base, log = start(arguments.server, workdir)
    passed = False
    try:
        with urllib.request.urlopen(f"{base}/openapi.json?version={NEWEST}", timeout=60) as response:
            document = json.loads(response.read())
        assert document["info"]["version"] == NEWEST, document["info"]
        path = workdir / "openapi.json"
        path.write_text(json.dumps(document, indent=1))
        if arguments.only in (None, "python"):
            python_client(arguments, path, workdir, base)
        if arguments.only in (None, "typescript"):
            typescript_client(path, workdir, base)
        passed = True
    except subprocess.CalledProcessError as failure:
        print(f"failed: {failure}")
        return 1
    finally:
        if not stop(process, log):
            passed = False
        if passed:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
