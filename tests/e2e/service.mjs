// A real service binary of its own for a test (an expansion or established environment the
// embedded sandbox cannot be), and a slow link in front of it (a loading state that stays long
// enough to be seen). Both stop with the test, also when it fails.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as forward } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Starts `subscriber-server` (SERVER_BIN) on a free port; resolves once it listens. */
export async function startService({ environment = "sandbox" } = {}) {
  const binary = process.env.SERVER_BIN;
  if (!binary) throw new Error("SERVER_BIN names the built subscriber-server binary");
  const dir = mkdtempSync(join(tmpdir(), "e2e-service-"));
  const child = spawn(
    binary,
    [
      "--listen", "127.0.0.1:0",
      "--database", join(dir, "service.sqlite3"),
      "--environment", environment,
      "--directory-size", "500",
      "--simulate-rate", "0",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  const baseUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${log}`)), 60_000);
    const read = (chunk) => {
      log += chunk.toString();
      const match = log.match(/listening on (http:\/\/[0-9.:]+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}):\n${log}`));
    });
  });
  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return { baseUrl, stop, log: () => log };
}

/** A proxy to `target` on a free port that holds back answers to requests `slow(method, path)`
 *  picks for `delayMs`; `setDelay` changes it. */
export async function startSlowLink(target, slow, delayMs = 8000) {
  let delay = delayMs;
  const server = createServer((incoming, outgoing) => {
    const url = new URL(incoming.url, target);
    const pass = () => {
      const upstream = forward(
        url,
        { method: incoming.method, headers: { ...incoming.headers, host: url.host } },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on("error", () => outgoing.destroy());
      incoming.pipe(upstream);
    };
    if (slow(incoming.method, url.pathname)) setTimeout(pass, delay);
    else pass();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    setDelay: (ms) => (delay = ms),
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}
