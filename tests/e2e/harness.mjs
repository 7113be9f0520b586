// Starts the real dashboard under tauri-driver (which runs WebKitWebDriver) and hands back a
// selenium-webdriver session. Stops tauri-driver with SIGTERM: SIGKILL would leave
// WebKitWebDriver holding its port.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Builder, By, Key, until } from "selenium-webdriver";

export { By, Key, until };

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function waitForPort(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return null;
  }
}

/** The processes below `root` (WebKitWebDriver, the app, its WebKit helpers): pid → command line. */
function processTree(root) {
  const parentOf = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The name in parentheses may hold anything: the fields after the last ")" are fixed.
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = new Map();
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift();
    for (const [pid, ppid] of parentOf) {
      if (ppid !== parent || found.has(pid)) continue;
      const command = commandLine(pid);
      if (command !== null) found.set(pid, command);
      queue.push(pid);
    }
  }
  return found;
}

/** SIGTERM to those still running (the same pid with the same command line), SIGKILL after 5 s. */
async function endAll(processes) {
  const alive = () => [...processes].filter(([pid, command]) => commandLine(pid) === command).map(([pid]) => pid);
  const signal = (pids, name) => pids.forEach((pid) => {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  });
  signal(alive(), "SIGTERM");
  const deadline = Date.now() + 5_000;
  while (alive().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  signal(alive(), "SIGKILL");
}

/** Stands in for the system browser: records the links the app opens (see open-url.sh). */
const OPEN_URL = join(dirname(fileURLToPath(import.meta.url)), "open-url.sh");

/** The app's data folder and export folder live in a fresh temporary folder per run. Links the
 * app opens in "the system browser" are only recorded (`openedUrls()`): no browser starts.
 * The embedded sandbox answers only requests with the secret of the launch: the test chooses it
 * (`sandboxHeaders`) to act beside the app as another program of the person's would. */
export async function launch({ application, env = {}, dataDir } = {}) {
  const binary = application ?? process.env.DASHBOARD_BIN;
  if (!binary) throw new Error("DASHBOARD_BIN names the built dashboard binary");
  const root = mkdtempSync(join(tmpdir(), "dashboard-e2e-"));
  const data = dataDir ?? join(root, "data");
  const exports = join(root, "exports");
  mkdirSync(exports, { recursive: true });
  const opened = join(root, "opened-urls.txt");
  const sandboxSecret = randomBytes(32).toString("hex");
  const port = await freePort();
  const nativePort = await freePort();
  const driverLog = [];
  const driver = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], {
    env: {
      ...process.env,
      SUBSCRIBER_DASHBOARD_DATA_DIR: data,
      SUBSCRIBER_DASHBOARD_EXPORT_DIR: exports,
      SUBSCRIBER_DASHBOARD_SIMULATE_RATE: "0",
      SUBSCRIBER_DASHBOARD_DIRECTORY_SIZE: "2000",
      SUBSCRIBER_DASHBOARD_BROWSER: OPEN_URL,
      E2E_OPENED_URLS: opened,
      SUBSCRIBER_DASHBOARD_SANDBOX_SECRET: sandboxSecret,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  driver.stdout.on("data", (chunk) => driverLog.push(chunk.toString()));
  driver.stderr.on("data", (chunk) => driverLog.push(chunk.toString()));
  let session = null;
  async function stop() {
    const started = processTree(driver.pid);
    try {
      await session?.quit();
    } catch (error) {
      // The window may already be gone.
      console.error(`closing the WebDriver session failed: ${error.message}`);
    }
    driver.kill("SIGTERM");
    await new Promise((resolve) => (driver.exitCode !== null ? resolve() : driver.once("exit", resolve)));
    // When the session did not close the app, it outlives its driver (holding this process's
    // pipes open, so the test never ends): end what this launch started, by pid.
    await endAll(started);
    driver.stdout.destroy();
    driver.stderr.destroy();
  }
  try {
    await waitForPort(port, 20_000);
    session = await new Builder()
      .usingServer(`http://127.0.0.1:${port}/`)
      .withCapabilities({ browserName: "wry", "tauri:options": { application: binary } })
      .build();
  } catch (error) {
    // A launch that fails halfway leaves nothing running: the driver, and any app it started.
    await stop();
    throw new Error(`${error.message}\ntauri-driver said:\n${driverLog.join("")}`);
  }
  const openedUrls = () => (existsSync(opened) ? readFileSync(opened, "utf8").split("\n").filter(Boolean) : []);
  const sandboxHeaders = { "Subscriber-Local-Secret": sandboxSecret };
  return { session, stop, root, data, exports, openedUrls, sandboxHeaders, log: () => driverLog.join("") };
}

export async function screenshot(session, name) {
  const dir = process.env.SCREENSHOT_DIR ?? "target/screenshots";
  mkdirSync(dir, { recursive: true });
  // Let animations and fonts settle so the picture shows what a person sees.
  await new Promise((resolve) => setTimeout(resolve, 350));
  writeFileSync(join(dir, `${name}.png`), await paintedScreenshot(session), "base64");
}

/** WebKitWebDriver's screenshot waits for the page's next paint. Where WebKit paints without
 *  compositing (a machine with no GPU: see `lean_web_view` in src-tauri's desktop.rs), a page
 *  with nothing to change never paints again, and the command never returns. So while the
 *  picture is taken, a one-pixel mark in the top-left corner changes shade every frame, between
 *  two that look the same (alpha 1/1000 and 2/1000 of black), and a paint always comes. */
async function paintedScreenshot(session) {
  await session.executeScript(`
    const mark = document.createElement("div");
    mark.id = "e2e-paint-mark";
    mark.setAttribute("aria-hidden", "true");
    mark.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;z-index:2147483647";
    document.body.append(mark);
    let shade = 0;
    const step = () => {
      if (!mark.isConnected) return;
      shade = 1 - shade;
      mark.style.background = \`rgba(0, 0, 0, \${shade ? 0.001 : 0.002})\`;
      requestAnimationFrame(step);
    };
    step();`);
  try {
    return await session.takeScreenshot();
  } finally {
    await session.executeScript(`document.getElementById("e2e-paint-mark")?.remove()`);
  }
}

/** The element once it is on the page and visible. */
export async function find(session, testid, timeoutMs = 15_000) {
  const element = await session.wait(until.elementLocated(By.css(`[data-testid="${testid}"]`)), timeoutMs, `no [data-testid=${testid}]`);
  await session.wait(until.elementIsVisible(element), timeoutMs, `[data-testid=${testid}] stays hidden`);
  return element;
}

export async function text(session, testid, timeoutMs) {
  return (await (await find(session, testid, timeoutMs)).getText()).trim();
}

/** Waits until one of the toasts shown says `pattern` (toasts stack: an earlier one may still
 *  be on screen) and returns its text. */
export async function toastSaying(session, pattern, timeoutMs = 15_000) {
  let said = [];
  await waitFor(
    session,
    `a toast saying ${pattern}`,
    async () => {
      const toasts = await session.findElements(By.css('[data-testid="toast-message"]'));
      said = [];
      for (const toast of toasts) said.push((await toast.getText()).trim());
      return said.some((message) => pattern.test(message));
    },
    timeoutMs,
  ).catch((error) => {
    throw new Error(`${error.message}; toasts shown: ${JSON.stringify(said)}`);
  });
  return said.find((message) => pattern.test(message));
}

export async function type(session, testid, value) {
  const element = await find(session, testid);
  await element.clear();
  await element.sendKeys(value);
}

/** Empties the field `testid` as a person does (select all, then Backspace): WebDriver's own
 * `clear()` fires no `input` event, so a bound value would keep what was typed before. */
export async function erase(session, testid) {
  const element = await find(session, testid);
  await element.sendKeys(Key.chord(Key.CONTROL, "a"), Key.BACK_SPACE);
}

/** Picks `value` in the select `testid`, as a person choosing from the list does. */
export async function choose(session, testid, value) {
  await find(session, testid);
  await session.executeScript(
    `const s = document.querySelector('[data-testid="${testid}"]'); s.value = arguments[0]; s.dispatchEvent(new Event('change', { bubbles: true }));`,
    value,
  );
}

/** Clicks `testid` once it is in the middle of the page (as a person scrolls to what they
 *  click: nothing at the window's edge, such as a toast, covers it). */
export async function click(session, testid) {
  // The screen may draw the element anew between finding and clicking it (a form re-rendered
  // as the app settles): then it is found again, as a person looks again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      let element = await find(session, testid);
      // WebKitWebDriver clicks a table row through one of its cells.
      if ((await element.getTagName()).toLowerCase() === "tr") element = await element.findElement(By.css("td"));
      await session.executeScript("arguments[0].scrollIntoView({ block: 'center', inline: 'nearest' })", element);
      await element.click();
      return;
    } catch (error) {
      if (error?.name !== "StaleElementReferenceError" || attempt >= 3) throw error;
    }
  }
}

export async function waitFor(session, what, condition, timeoutMs = 15_000) {
  return session.wait(async () => {
    try {
      return await condition();
    } catch {
      return false;
    }
  }, timeoutMs, what);
}

/** The service's API as a program of the person's calls it beside the app (with the launch's
 *  secret, `app.sandboxHeaders`): `method` `path` at `serviceUrl`, `body` sent as JSON, as the
 *  account of `token` when there is one. The answer's JSON; an error status fails the test with
 *  what the service said. */
export async function callService({ app, serviceUrl, token }, method, path, body) {
  const response = await fetch(`${serviceUrl}${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...app.sandboxHeaders,
    },
    body: body == null ? undefined : JSON.stringify(body),
  });
  const answer = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${answer}`);
  return JSON.parse(answer);
}

/** Connects to the embedded sandbox and signs up with `email`: ends on the sign-up's done page,
 *  before "continue", so a test can read the new secret first. */
export async function signUpOnSandbox(session, email) {
  await find(session, "connect-form", 30_000);
  await click(session, "connect");
  await find(session, "signup-form", 60_000);
  await type(session, "email", email);
  await click(session, "submit-signup");
  await find(session, "signup-done", 30_000);
}

/** Stops `app` and starts it again on its data folder in the OS's dark theme (WebKitGTK takes
 *  prefers-color-scheme from the GTK theme). */
export async function relaunchDark(app) {
  const dataDir = app.data;
  await app.stop();
  return launch({ dataDir, env: { GTK_THEME: "Adwaita:dark" } });
}

/** Signs in from the sign-in screen with the account the app remembers. */
export async function signIn(session) {
  await find(session, "login-form", 60_000);
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
}
