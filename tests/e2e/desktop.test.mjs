// The dashboard as a desktop app, end to end in the real app: the command palette by keyboard
// (Ctrl+K, fuzzy search, Enter), the `?` shortcuts sheet, a `subscriber-data://` link handed to
// the running app by a second start (which exits 0), a notification asked of a real
// notification server (dunst, on the test's own D-Bus session) for a purchase made while the
// window is in the background, a click on it opening the card, the notification settings, and
// the window's size and place across restarts. Light and dark screenshots (`desktop-*`).
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { after, afterEach, before, test } from "node:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { By, Key, callService, click, find, launch, screenshot, signUpOnSandbox, text, type, waitFor, toastSaying } from "./harness.mjs";

const run = promisify(execFile);
const email = `e2e-desktop-${Date.now()}@example.com`;
let app;
let session;
let secret;
let serviceUrl;
let cardId;
let theme = "light";
let notifier;
let otherWindow;
let dunstConfig;
let received;

async function shot(name) {
  await screenshot(session, `desktop-${theme}-${name}`);
}

async function all(testid) {
  return session.findElements(By.css(`[data-testid="${testid}"]`));
}

/** Presses keys on the page, as a person does (Ctrl+K: `press(Key.CONTROL, "k")`). */
async function press(...keys) {
  const actions = session.actions({ async: true });
  for (const key of keys) actions.keyDown(key);
  for (const key of [...keys].reverse()) actions.keyUp(key);
  await actions.perform();
}

/** Starts the built dashboard a second time with `args`; resolves with its exit code. */
function secondStart(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.DASHBOARD_BIN, args, {
      env: { ...process.env, SUBSCRIBER_DASHBOARD_DATA_DIR: app.data },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the second start did not exit:\n${output}`));
    }, 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** How many notifications the server shows now. */
async function displayed() {
  const { stdout } = await run("dunstctl", ["count", "displayed"]);
  return Number(stdout.trim());
}

/** Every notification the server received, oldest first: summary and body. */
function notifications() {
  if (!existsSync(received)) return [];
  return readFileSync(received, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [summary, body] = line.split("\t");
      return { summary, body };
    });
}

/** The service's API beside the app, as the account of `token` when given. */
function service(method, path, body, token) {
  return callService({ app, serviceUrl, token }, method, path, body);
}

before(async () => {
  // A real notification server on the test's session bus (dunst draws on the Xvfb display).
  // Notifications stay until clicked (or closed), as a person would find them on return.
  // Each one is also written to a file by dunst's own `script` rule, as it arrives.
  const dir = mkdtempSync(join(tmpdir(), "e2e-dunst-"));
  dunstConfig = join(dir, "dunstrc");
  received = join(dir, "received.txt");
  const recorder = join(dir, "record.sh");
  writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\t%s\\n' "$2" "$3" >> '${received}'\n`, { mode: 0o755 });
  writeFileSync(
    dunstConfig,
    ["low", "normal", "critical"].map((urgency) => `[urgency_${urgency}]\n    timeout = 0\n`).join("") +
      `[record]\n    summary = "*"\n    script = ${recorder}\n`,
  );
  notifier = spawn("dunst", ["-config", dunstConfig], { stdio: "ignore" });
  await new Promise((resolve) => setTimeout(resolve, 500));
  app = await launch();
  session = app.session;
});

afterEach(async (context) => {
  if (context.passed === false && session) {
    await screenshot(session, `desktop-failed-${theme}-${context.name.replace(/\W+/g, "-")}`).catch(() => undefined);
  }
});

after(async () => {
  otherWindow?.kill("SIGTERM");
  await app?.stop();
  notifier?.kill("SIGTERM");
});

test("a sandbox account with a card", async () => {
  await signUpOnSandbox(session, email);
  secret = await text(session, "new-secret");
  await click(session, "continue");
  serviceUrl = (await (await find(session, "environment-switcher")).getAttribute("data-service-url")).trim();
  await click(session, "open-enroll");
  await find(session, "test-card");
  await type(session, "first-name", "Ada");
  await type(session, "last-name", "Lovelace");
  await click(session, "enroll-submit");
  cardId = Number(await (await find(session, "card-row", 30_000)).getAttribute("data-card-id"));
  assert.ok(cardId > 0);
});

test("the command palette: Ctrl+K, fuzzy search, Enter opens; actions run", async () => {
  await click(session, "nav-overview");
  await press(Key.CONTROL, "k");
  await find(session, "palette");
  assert.equal(await session.executeScript("return document.activeElement?.dataset.testid"), "palette-input");
  await shot("palette");
  // A card by its last four.
  await (await find(session, "palette-input")).sendKeys("4242");
  await waitFor(session, "the card is found", async () =>
    (await (await find(session, "palette-item")).getAttribute("data-item")) === `card:${cardId}`, 30_000);
  await shot("palette-card");
  await (await find(session, "palette-input")).sendKeys(Key.ENTER);
  await waitFor(session, "the page is titled by the card", async () => /•••• 4242$/.test(await text(session, "page-title")), 30_000);
  // A screen by letters in order.
  await press(Key.CONTROL, "k");
  await find(session, "palette");
  await (await find(session, "palette-input")).sendKeys("dvlprs");
  await waitFor(session, "Developers comes first", async () =>
    (await (await find(session, "palette-item")).getAttribute("data-item")) === "screen:developers");
  await (await find(session, "palette-input")).sendKeys(Key.ENTER);
  await waitFor(session, "Developers shows", async () => (await text(session, "page-title")) === "Developers");
  // Recent first: the card chosen before leads the empty palette.
  await press(Key.CONTROL, "k");
  const first = await find(session, "palette-item");
  assert.equal(await first.getAttribute("data-item"), "screen:developers");
  // An action: a sandbox purchase, told in a toast.
  await (await find(session, "palette-input")).sendKeys("simulate");
  await waitFor(session, "the action is offered", async () =>
    (await (await find(session, "palette-item")).getAttribute("data-item")) === "action:simulate-purchase");
  await (await find(session, "palette-input")).sendKeys(Key.ENTER);
  await toastSaying(session, /Purchase made/, 30_000);
  await press(Key.ESCAPE);
});

test("the ? sheet lists the shortcuts; Ctrl+1 goes to the first section", async () => {
  await click(session, "page-title");
  await press("?");
  await find(session, "shortcuts");
  assert.match(await text(session, "shortcuts"), /Search and commands/);
  await shot("shortcuts");
  await press(Key.ESCAPE);
  await waitFor(session, "the sheet closes", async () => (await all("shortcuts")).length === 0);
  await press(Key.CONTROL, "1");
  await waitFor(session, "Overview shows", async () => (await text(session, "page-title")) === "Overview");
  assert.match(await (await find(session, "nav-cards")).getAttribute("title"), /Ctrl\+2/);
});

test("a second start with a link hands it to the running app and exits 0", async () => {
  await click(session, "nav-overview");
  const { code, output } = await secondStart([`subscriber-data://card/${cardId}`]);
  assert.equal(code, 0, output);
  await waitFor(session, "the page is titled by the card", async () => /•••• 4242$/.test(await text(session, "page-title")), 30_000);
  // An event, by its id: the Developers area opens its detail.
  const { events } = await service("GET", "/events?limit=1", null, (await service("POST", "/subscriber/login", { email, api_key: secret })).token);
  const second = await secondStart([`subscriber-data://event/${events[0].id}`]);
  assert.equal(second.code, 0, second.output);
  await find(session, "event-detail-json", 30_000);
  assert.match(await text(session, "event-detail-json"), new RegExp(`"id": "${events[0].id}"`));
  await shot("deep-link-event");
  await click(session, "event-detail-close");
  // A link the app does not know opens nothing, and the second start still ends well.
  const unknown = await secondStart(["subscriber-data://admin"]);
  assert.equal(unknown.code, 0, unknown.output);
  assert.equal(await text(session, "page-title"), "Developers");
});

/** Another window in front: an X message box takes the keyboard focus from the app. */
async function anotherWindowInFront() {
  // One at a time: a box left behind would keep this test file's process alive.
  otherWindow?.kill("SIGTERM");
  otherWindow = spawn("xmessage", ["-name", "e2e-other-window", "Another application"], { stdio: "ignore" });
  const id = await waitFor(session, "the other window exists", async () => {
    const { stdout } = await run("xdotool", ["search", "--classname", "e2e-other-window"]).catch(() => ({ stdout: "" }));
    return stdout.trim().split("\n")[0] || false;
  });
  await run("xdotool", ["windowfocus", "--sync", id]);
  await waitFor(session, "the app's window lost the focus", async () => !(await session.executeScript("return document.hasFocus()")));
}

/** The other window goes away; the app's window takes the focus back. */
async function appInFront() {
  otherWindow?.kill("SIGTERM");
  otherWindow = null;
  await run("xdotool", ["search", "--name", "^Subscriber Data$", "windowfocus", "--sync"]).catch(() => undefined);
}

test("a purchase while the window is in the background is notified; a click opens the card", async () => {
  await click(session, "nav-settings");
  await find(session, "notification-settings", 30_000);
  await shot("settings");
  await anotherWindowInFront();
  try {
    const token = (await service("POST", "/subscriber/login", { email, api_key: secret })).token;
    await run("dunstctl", ["close-all"]);
    // The app notes where things stand before it tells anything new.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await service("POST", "/sandbox/transactions", { cardId, amount: 12.34, merchantName: "E2E Notified Cafe" }, token);
    await waitFor(session, "the notification server shows the purchase", async () => (await displayed()) === 1, 30_000);
    const notice = notifications().at(-1);
    assert.equal(notice.summary, "A purchase on your card •••• 4242");
    assert.match(notice.body, /^12\.34 [A-Z]{3} at E2E Notified Cafe$/);
    // The person clicks it: the app comes to the front on the card.
    await run("dunstctl", ["action", "0"]);
    await waitFor(session, "the page is titled by the card", async () => /•••• 4242$/.test(await text(session, "page-title")), 30_000);
    await waitFor(session, "the app's window has the focus", async () => session.executeScript("return document.hasFocus()"));

    // Switched off: the next purchase is not told.
    await click(session, "nav-settings");
    await click(session, "notify-purchases");
    await anotherWindowInFront();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const told = notifications().length;
    await service("POST", "/sandbox/transactions", { cardId, amount: 1.11, merchantName: "E2E Quiet Cafe" }, token);
    await new Promise((resolve) => setTimeout(resolve, 8000));
    assert.equal(notifications().length, told, "nothing told");
  } finally {
    await appInFront();
  }
  await click(session, "notify-purchases");
});

test("the window's size and place come back after a restart", async () => {
  await session.manage().window().setRect({ x: 40, y: 30, width: 1180, height: 760 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const kept = await session.manage().window().getRect();
  const dataDir = app.data;
  await app.stop();
  theme = "dark";
  app = await launch({ dataDir, env: { GTK_THEME: "Adwaita:dark" } });
  session = app.session;
  await find(session, "login-form", 60_000);
  const rect = await session.manage().window().getRect();
  assert.deepEqual([rect.width, rect.height], [kept.width, kept.height]);
  assert.deepEqual([rect.x, rect.y], [kept.x, kept.y]);
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
  // The last screen came back too.
  assert.equal(await text(session, "page-title"), "Settings");
});

test("dark: the palette, the shortcuts and the settings", async () => {
  await shot("settings");
  await press(Key.CONTROL, "k");
  await find(session, "palette");
  await (await find(session, "palette-input")).sendKeys("qqqzzz");
  await waitFor(session, "nothing found, said so", async () => (await all("palette-none")).length === 1);
  await (await find(session, "palette-input")).sendKeys(...Array(6).fill(Key.BACK_SPACE), "visa");
  await waitFor(session, "the card is found", async () =>
    (await (await find(session, "palette-item")).getAttribute("data-item")) === `card:${cardId}`, 30_000);
  await shot("palette");
  await press(Key.ESCAPE);
  await click(session, "page-title");
  await press("?");
  await find(session, "shortcuts");
  await shot("shortcuts");
  await press(Key.ESCAPE);
});
