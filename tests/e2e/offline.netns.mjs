// The app on a computer with no network: run inside a network namespace of its own with only
// the loopback interface (the Makefile runs it under `unshare`), so the OS's network monitor
// reports no network, as on a laptop with Wi-Fi off. The embedded sandbox keeps working (it is on
// loopback); the app says it is offline, and a service elsewhere waits for the network (Connect
// disabled, with the reason) rather than failing as a broken service. Photographed light and dark
// (`polish-*-offline*`).
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { By, choose, click, find, launch, screenshot, signUpOnSandbox, text, type, waitFor } from "./harness.mjs";

let app;
let session;
let theme = "light";

before(async () => {
  app = await launch();
  session = app.session;
});

afterEach(async (context) => {
  if (context.passed === false && session) {
    await screenshot(session, `polish-failed-offline-${theme}`).catch(() => undefined);
  }
});

after(async () => {
  await app?.stop();
});

async function all(testid) {
  return session.findElements(By.css(`[data-testid="${testid}"]`));
}

/** A service at an address this computer cannot reach without a network (TEST-NET-1). */
async function tryElsewhere() {
  await click(session, "environment-switcher");
  await find(session, "connect-form");
  await click(session, "choose-remote");
  await choose(session, "remote-environment", "expansion");
  await type(session, "base-url", "https://192.0.2.10");
  // The app knows it is offline: Connect waits for the network, and says why.
  await find(session, "offline", 30_000);
  assert.match(await text(session, "offline"), /You are offline/);
  assert.equal(await (await find(session, "connect")).isEnabled(), false, "Connect waits for the network");
  await screenshot(session, `polish-${theme}-offline-service`);
}

test("light: the embedded sandbox works offline, and the app says it is offline", async () => {
  assert.equal(await session.executeScript("return navigator.onLine"), false, "the namespace has no network");
  await signUpOnSandbox(session, `e2e-offline-${Date.now()}@example.com`);
  await click(session, "continue");
  await find(session, "offline-banner");
  // WebKitWebDriver's visible text leaves out the sentence of a strip that clips what overflows
  // (it shows whole in the screenshot): read what the strip says, and that the sentence lies
  // inside it.
  const strip = await session.executeScript(`
    const band = document.querySelector('[data-testid="offline-banner"]');
    const why = band.querySelector(".why").getBoundingClientRect();
    const box = band.getBoundingClientRect();
    return { text: band.textContent, inside: why.width > 0 && why.left >= box.left && why.right <= box.right };`);
  assert.match(strip.text, /Offline[\s\S]*local sandbox keeps working/);
  assert.ok(strip.inside, "the sentence shows inside the strip");
  await click(session, "nav-overview");
  await find(session, "overview", 30_000);
  await screenshot(session, "polish-light-offline");
  await tryElsewhere();
});

test("dark: the same, in the OS's dark theme", async () => {
  const dataDir = app.data;
  await app.stop();
  theme = "dark";
  app = await launch({ dataDir, env: { GTK_THEME: "Adwaita:dark" } });
  session = app.session;
  // The environment tried last cannot be reached offline: back to the sandbox.
  await waitFor(session, "the app says where it stands", async () =>
    (await all("offline")).length + (await all("connect-form")).length + (await all("login-form")).length > 0, 60_000);
  if ((await all("offline")).length) {
    await session.findElement(By.xpath("//button[contains(., 'Choose another environment')]")).click();
  }
  if ((await all("login-form")).length === 0) {
    await find(session, "connect-form", 30_000);
    await click(session, "choose-sandbox");
    await click(session, "connect");
  }
  await find(session, "login-form", 60_000);
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
  await click(session, "nav-overview");
  await find(session, "offline-banner");
  await find(session, "overview", 30_000);
  await screenshot(session, "polish-dark-offline");
  await tryElsewhere();
});
