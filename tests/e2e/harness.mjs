// Starts the real dashboard under tauri-driver (which runs WebKitWebDriver) and hands back a
// selenium-webdriver session. Stops tauri-driver with SIGTERM: SIGKILL would leave
// WebKitWebDriver holding its port.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Builder, By, until } from "selenium-webdriver";

export { By, until };

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

/** Stands in for the system browser: records the links the app opens (see open-url.sh). */
const OPEN_URL = join(dirname(fileURLToPath(import.meta.url)), "open-url.sh");

/** The app's data folder and export folder live in a fresh temporary folder per run. Links the
 * app opens in "the system browser" are only recorded (`openedUrls()`): no browser starts. */
export async function launch({ application, env = {}, dataDir } = {}) {
  const binary = application ?? process.env.DASHBOARD_BIN;
  if (!binary) throw new Error("DASHBOARD_BIN names the built dashboard binary");
  const root = mkdtempSync(join(tmpdir(), "dashboard-e2e-"));
  const data = dataDir ?? join(root, "data");
  const exports = join(root, "exports");
  mkdirSync(exports, { recursive: true });
  const opened = join(root, "opened-urls.txt");
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
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  driver.stdout.on("data", (chunk) => driverLog.push(chunk.toString()));
  driver.stderr.on("data", (chunk) => driverLog.push(chunk.toString()));
  await waitForPort(port, 20_000);
  const session = await new Builder()
    .usingServer(`http://127.0.0.1:${port}/`)
    .withCapabilities({ browserName: "wry", "tauri:options": { application: binary } })
    .build();
  async function stop() {
    try {
      await session.quit();
    } catch {
      // The window may already be gone.
    }
    driver.kill("SIGTERM");
    await new Promise((resolve) => (driver.exitCode !== null ? resolve() : driver.once("exit", resolve)));
  }
  const openedUrls = () => (existsSync(opened) ? readFileSync(opened, "utf8").split("\n").filter(Boolean) : []);
  return { session, stop, root, data, exports, openedUrls, log: () => driverLog.join("") };
}

export async function screenshot(session, name) {
  const dir = process.env.SCREENSHOT_DIR ?? "target/screenshots";
  mkdirSync(dir, { recursive: true });
  // Let animations and fonts settle so the picture shows what a person sees.
  await new Promise((resolve) => setTimeout(resolve, 350));
  writeFileSync(join(dir, `${name}.png`), await session.takeScreenshot(), "base64");
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

export async function type(session, testid, value) {
  const element = await find(session, testid);
  await element.clear();
  await element.sendKeys(value);
}

export async function click(session, testid) {
  await (await find(session, testid)).click();
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
