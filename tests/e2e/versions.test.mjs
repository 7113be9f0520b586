// End to end, the real app: the Developers area's API version panel shows the account's pin
// (the newest version: the dashboard signed it up), every version with what it changed, and
// moves the pin only after a confirmation; the pin holds after the app restarts; then the dark
// theme. Screenshots go to target/screenshots/.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { By, click, find, launch, relaunchDark, screenshot, signIn, text, waitFor, signUpOnSandbox } from "./harness.mjs";

const email = `e2e-versions-${Date.now()}@example.com`;
let app;
let session;

before(async () => {
  app = await launch();
  session = app.session;
});

after(async () => {
  await app?.stop();
});

async function openPanel() {
  await click(session, "nav-developers");
  await click(session, "developers-tab-versions");
  const panel = await find(session, "api-versions", 30_000);
  await session.executeScript("arguments[0].scrollIntoView({block: 'start'})", panel);
  await find(session, "api-version-pinned", 30_000);
  return panel;
}

test("the pin, the versions and what each changed", async () => {
  await signUpOnSandbox(session, email);
  await click(session, "continue");
  await openPanel();
  assert.equal(await text(session, "api-version-pinned"), "2026-12-01");
  const versions = await session.findElements(By.css('[data-testid="api-version"]'));
  const dates = await Promise.all(versions.map((item) => item.getAttribute("data-version")));
  assert.deepEqual(dates, ["2026-12-01", "2026-11-21"], "newest first");
  assert.match(await versions[0].getText(), /camelCase names/);
  await screenshot(session, "45-developers-api-versions");
});

test("moving the pin asks first, then holds", async () => {
  await click(session, "api-version-pin");
  const dialog = await find(session, "api-version-confirm");
  assert.equal(await text(session, "api-version-pinned"), "2026-12-01", "nothing moved before the confirmation");
  await screenshot(session, "46-developers-api-version-confirm");
  await dialog.click();
  await waitFor(session, "the new pin shows", async () =>
    (await text(session, "api-version-pinned")) === "2026-11-21", 30_000);
  assert.match(await text(session, "api-version-note"), /Pinned to 2026-11-21/);
  await screenshot(session, "47-developers-api-version-pinned");
});

test("the pin is the account's: it holds after a restart, in the dark theme too", async () => {
  app = await relaunchDark(app);
  session = app.session;
  await signIn(session);
  await openPanel();
  assert.equal(await text(session, "api-version-pinned"), "2026-11-21");
  await screenshot(session, "dark-developers-api-versions");
});
