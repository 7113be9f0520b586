// The private D-Bus session bus the app runs when the desktop has none (a bare X server): it
// lives in a folder only the user can use, and the app refuses what someone else put there
// first. The real binary, started without a session bus and without XDG_RUNTIME_DIR, with its
// cache folder in a temporary folder: a hostile stand-in (a folder open to everyone, a folder of
// another user) is refused and never connected to; a clean start makes the folder 0700 with the
// bus in it, and a second start joins that bus, hands its link over and exits 0.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const binary = process.env.DASHBOARD_BIN;
const started = [];

/** The app's environment without a session bus: only the X display and its own folders. */
function environment(root) {
  const env = { ...process.env };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  delete env.XDG_RUNTIME_DIR;
  return {
    ...env,
    XDG_CACHE_HOME: join(root, "cache"),
    SUBSCRIBER_DASHBOARD_DATA_DIR: join(root, "data"),
    SUBSCRIBER_DASHBOARD_SIMULATE_RATE: "0",
    SUBSCRIBER_DASHBOARD_LOG: "info",
  };
}

/** Starts the app; `output()` is what it wrote so far, `exited` its exit code. */
function start(root, args = []) {
  const child = spawn(binary, args, { env: environment(root), stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitUntil(what, condition, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Ends an app this test started (SIGTERM: it ends as closing its window does). An app that
 * still runs 15 s later fails the test (and is killed): quitting must never hang.
 */
async function stop(app) {
  if (app.child.exitCode !== null) return;
  app.child.kill("SIGTERM");
  const ended = await Promise.race([app.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 15_000))]);
  if (!ended) {
    app.child.kill("SIGKILL");
    assert.fail(`the app did not end within 15 s of SIGTERM:\n${app.output()}`);
  }
}

after(async () => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The names owned on the bus at `socket` (`dbus-send`'s answer, as text). */
function busNames(socket) {
  return new Promise((resolve) =>
    execFile(
      "dbus-send",
      [`--bus=unix:path=${socket}`, "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"],
      (error, stdout) => resolve(error ? "" : stdout),
    ),
  );
}

/** A stand-in bus someone else made first: it records every connection. */
function hostileBus(path) {
  const connections = [];
  const server = net.createServer((socket) => {
    connections.push(socket);
    socket.destroy();
  });
  return new Promise((resolve) => server.listen(path, () => resolve({ server, connections })));
}

test("a bus folder open to everyone is refused, and its socket never answered", async () => {
  const root = mkdtempSync(join(tmpdir(), "e2e-bus-"));
  const folder = join(root, "cache", "subscriber-dashboard");
  mkdirSync(folder, { recursive: true });
  chmodSync(folder, 0o777);
  const hostile = await hostileBus(join(folder, "bus"));
  const app = start(root);
  await waitUntil("the refusal in the log", () => /no private session bus/.test(app.output()));
  assert.match(app.output(), /open to other users/);
  assert.equal(hostile.connections.length, 0, "the app never connected to the stand-in");
  assert.equal(lstatSync(folder).mode & 0o777, 0o777, "left as it was");
  await stop(app);
  hostile.server.close();
});

test("a bus folder of another user is refused", { skip: process.getuid() !== 0 && "needs root to make another user's folder" }, async () => {
  const root = mkdtempSync(join(tmpdir(), "e2e-bus-"));
  const folder = join(root, "cache", "subscriber-dashboard");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const hostile = await hostileBus(join(folder, "bus"));
  chownSync(join(folder, "bus"), 65534, 65534);
  chownSync(folder, 65534, 65534);
  const app = start(root);
  await waitUntil("the refusal in the log", () => /no private session bus/.test(app.output()));
  assert.match(app.output(), /belongs to user 65534/);
  assert.equal(hostile.connections.length, 0, "the app never connected to the stand-in");
  await stop(app);
  hostile.server.close();
});

test("a clean start runs the bus in a folder of its own, and a second start joins it", async () => {
  const root = mkdtempSync(join(tmpdir(), "e2e-bus-"));
  const folder = join(root, "cache", "subscriber-dashboard");
  const socket = join(folder, "bus");
  const first = start(root);
  await waitUntil("the private bus", () => existsSync(socket));
  const made = lstatSync(folder);
  assert.equal(made.mode & 0o777, 0o700, "the folder is the user's alone");
  assert.equal(made.uid, process.getuid());
  assert.ok(lstatSync(socket).isSocket());
  assert.equal(lstatSync(socket).uid, process.getuid());
  // The first start, started again on that bus, holds the single-instance name there.
  await waitUntil("the single-instance name on the private bus", async () => {
    const names = await busNames(socket);
    return names.includes("SingleInstance");
  });
  const second = start(root, ["subscriber-data://cards"]);
  const code = await Promise.race([second.exited, new Promise((resolve) => setTimeout(() => resolve("timeout"), 30_000))]);
  assert.equal(code, 0, `the second start hands its link over and exits 0:\n${second.output()}`);
  assert.equal(first.child.exitCode, null, "the first start still runs");
  await stop(first);
});
