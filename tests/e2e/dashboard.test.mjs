// End to end, the real app: sign up → credentials shown → enroll a test card → its last four in
// the list → its transactions → a sandbox purchase arrives live → sign out and back in with the
// remembered secret. A screenshot of every screen goes to target/screenshots/.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { By, click, find, launch, screenshot, text, type, waitFor, toastSaying } from "./harness.mjs";

const email = `e2e-${Date.now()}@example.com`;
let app;
let session;
let credentials;
let serviceUrl;
let cardId;

before(async () => {
  app = await launch();
  session = app.session;
});

after(async () => {
  await app?.stop();
});

test("a fresh app offers the local sandbox and starts it", async () => {
  await find(session, "connect-form", 30_000);
  assert.equal(await (await find(session, "choose-sandbox")).isSelected(), true, "the sandbox is the default");
  await screenshot(session, "01-connect");
  await click(session, "connect");
  await find(session, "environment-band", 60_000);
  assert.equal(await text(session, "environment-band"), "Sandbox — test data");
});

test("sign up shows client id, public key and the secret once", async () => {
  await find(session, "signup-form");
  await type(session, "email", email);
  await screenshot(session, "02-sign-up");
  await click(session, "submit-signup");
  await find(session, "signup-done", 30_000);
  credentials = {
    clientId: await text(session, "client-id"),
    publicKey: await text(session, "public-key"),
    secret: await text(session, "new-secret"),
  };
  assert.ok(credentials.clientId.length > 8, credentials.clientId);
  assert.ok(credentials.publicKey.length > 8, credentials.publicKey);
  assert.ok(credentials.secret.length > 16, "the secret is shown");
  assert.match(await text(session, "secret-notice"), /only time the secret is shown[\s\S]*OS keyring/);
  await screenshot(session, "03-credentials-shown-once");
  await click(session, "continue");
});

test("enrolling a test card puts its last four in the list", async () => {
  await find(session, "page-title");
  assert.equal(await text(session, "page-title"), "Cards");
  await find(session, "state-empty");
  await screenshot(session, "04-cards-empty");
  serviceUrl = await (await find(session, "environment-switcher")).getAttribute("data-service-url");
  assert.match(serviceUrl.trim(), /^http:\/\/127\.0\.0\.1:\d+$/);
  serviceUrl = serviceUrl.trim();

  await click(session, "open-enroll");
  await find(session, "test-card");
  await type(session, "first-name", "Ada");
  await type(session, "last-name", "Lovelace");
  await screenshot(session, "05-enroll-test-card");
  await click(session, "enroll-submit");
  await find(session, "card-list", 30_000);
  const lastFours = await Promise.all((await session.findElements(By.css('[data-testid="card-last-four"]'))).map((e) => e.getText()));
  assert.deepEqual(lastFours, ["•••• 4242"]);
  cardId = Number(await (await find(session, "card-row")).getAttribute("data-card-id"));
  assert.ok(cardId > 0);
  await screenshot(session, "06-cards");
});

test("the card's transactions screen opens, live", async () => {
  await click(session, "open-card");
  await waitFor(session, "the page is titled by the card", async () => /•••• 4242$/.test(await text(session, "page-title")), 30_000);
  // The sandbox's generated history (if any) loads; an empty card says what comes next.
  await waitFor(session, "the transactions loaded", async () =>
    (await session.findElements(By.css('[data-testid="transaction-table"], [data-testid="state-empty"]'))).length > 0, 60_000);
  await waitFor(session, "the stream is live", async () => (await (await find(session, "live-indicator")).getAttribute("data-live")) === "true", 30_000);
  await screenshot(session, "07-transactions");
  // Each row names its counterparty beside its mark, the raw descriptor under it.
  const firstRow = await find(session, "transaction-row");
  assert.ok((await firstRow.findElements(By.css(".mark"))).length === 1, "a counterparty's mark");
});

test("the card's subscriptions and bills, each with the next due date", async () => {
  await click(session, "recurring-toggle");
  await waitFor(session, "the streams are in", async () =>
    (await session.findElements(By.css('[data-testid="recurring-stream"]'))).length > 0, 30_000);
  const next = await text(session, "recurring-next");
  assert.match(next, /^(next|was due|last) \d{1,2} [A-Z][a-z]{2} \d{4}$/, next);
  await screenshot(session, "07b-recurring");
  await click(session, "recurring-toggle");
});

test("a sandbox purchase arrives live and flashes once", async () => {
  const login = await fetch(`${serviceUrl}/subscriber/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...app.sandboxHeaders },
    body: JSON.stringify({ email, api_key: credentials.secret }),
  });
  assert.equal(login.status, 200);
  const { token } = await login.json();
  const before = await rowCount();
  const created = await fetch(`${serviceUrl}/sandbox/transactions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...app.sandboxHeaders },
    body: JSON.stringify({ cardId, amount: 4.2, merchantName: "E2E Live Coffee" }),
  });
  const body = await created.text();
  assert.equal(created.status, 201, body);
  const { transactionId } = JSON.parse(body);
  await waitFor(session, "the purchase is in the table", async () =>
    (await session.findElements(By.css(`[data-transaction-id="${transactionId}"]`))).length === 1, 15_000);
  assert.equal(await rowCount(), before + 1);
  const arrived = await session.findElement(By.css(`[data-transaction-id="${transactionId}"]`));
  assert.match(await arrived.getAttribute("class"), /flash/);
  assert.match(await arrived.getAttribute("textContent"), /E2E Live Coffee[\s\S]*pending[\s\S]*4\.20/);
  await find(session, "monthly-chart");
  await screenshot(session, "08-live-arrival");
});

async function rowCount() {
  const shown = await session.findElements(By.css('[data-testid="row-count"]'));
  return shown.length ? Number((await shown[0].getText()).replace(/,/g, "")) : 0;
}

test("simulated purchases, filters, totals and the CSV export of what is shown", async () => {
  const before = await rowCount();
  await click(session, "simulate");
  await click(session, "simulate");
  await waitFor(session, "two more purchases arrive live", async () => (await rowCount()) === before + 2, 15_000);
  const total = await rowCount();

  await type(session, "filter-text", "e2e live");
  await waitFor(session, "the text filter applies", async () => (await rowCount()) === 1);
  assert.match(await text(session, "totals"), /All 1 [\s\S]*of [\d,]+[\s\S]*Total 4\.20 [A-Z]{3}/);
  await screenshot(session, "09-filtered");
  await click(session, "export-csv");
  await toastSaying(session, /^Exported 1 row$/);
  const file = join(app.exports, `card-${cardId}-transactions.csv`);
  assert.ok(existsSync(file), file);
  const lines = readFileSync(file, "utf8").trim().split(/\r\n/);
  assert.equal(lines.length, 2, "a header and the one row shown");
  assert.match(lines[1], /E2E Live Coffee/);

  await (await find(session, "filter-text")).clear();
  await (await find(session, "filter-text")).sendKeys("x");
  await (await find(session, "filter-text")).sendKeys("\uE003");
  await waitFor(session, "the filter cleared", async () => (await rowCount()) === total);
  await session.executeScript(
    "const s = document.querySelector('[data-testid=filter-pending]'); s.value = 'settled'; s.dispatchEvent(new Event('change'));",
  );
  await waitFor(session, "new purchases are pending, so none is settled", async () => (await rowCount()) <= total - 3);
  await session.executeScript(
    "const s = document.querySelector('[data-testid=filter-pending]'); s.value = 'all'; s.dispatchEvent(new Event('change'));",
  );
});

test("from its drawer, a purchase settles with a tip, then is refunded in part", async () => {
  await type(session, "filter-text", "e2e live");
  await waitFor(session, "the live purchase alone", async () => (await rowCount()) === 1);
  await click(session, "transaction-row");
  await find(session, "sandbox-actions");
  await type(session, "sandbox-amount", "5.00");
  await screenshot(session, "09b-settle-with-tip");
  await click(session, "sandbox-act");
  await toastSaying(session, /^Purchase settled/);
  const rowText = async () =>
    session.executeScript("return document.querySelector('[data-testid=transaction-row]').textContent");
  await waitFor(session, "the row settled at 5.00", async () => {
    const shown = await rowText();
    return /5\.00/.test(shown) && !/pending/.test(shown);
  }, 15_000);

  await click(session, "transaction-row");
  await find(session, "sandbox-actions");
  assert.match(await text(session, "sandbox-actions"), /refund all that is left/);
  await type(session, "sandbox-amount", "1.50");
  await screenshot(session, "09c-refund-in-drawer");
  await click(session, "sandbox-act");
  await toastSaying(session, /^Refund made/);
  await waitFor(session, "the refund's row arrives", async () => (await rowCount()) === 2, 15_000);
  const rows = await session.executeScript(
    "return [...document.querySelectorAll('[data-testid=transaction-row]')].map((row) => row.textContent)",
  );
  assert.ok(rows.some((row) => /-1\.50/.test(row)), `a row of -1.50: ${rows}`);
  await (await find(session, "filter-text")).clear();
  await (await find(session, "filter-text")).sendKeys("x", "\uE003");

  // A new pending purchase, reversed from its drawer, leaves the list.
  await waitFor(session, "the filter cleared", async () => (await rowCount()) > 2);
  const before = await rowCount();
  await click(session, "simulate");
  await waitFor(session, "the purchase arrives", async () => (await rowCount()) === before + 1, 15_000);
  await click(session, "transaction-row");
  await find(session, "sandbox-reverse");
  await click(session, "sandbox-reverse");
  await toastSaying(session, /^Authorization reversed/);
  await waitFor(session, "the reversed row leaves", async () => (await rowCount()) === before, 15_000);
});

test("credentials show the ids, the masked secret with reveal, and the token's validity", async () => {
  await click(session, "nav-credentials");
  assert.equal(await text(session, "credentials-client-id"), credentials.clientId);
  assert.equal(await text(session, "credentials-public-key"), credentials.publicKey);
  assert.doesNotMatch(await text(session, "secret"), /sk_|[A-Za-z0-9]{16}/, "masked by default");
  assert.match(await text(session, "token-remaining"), /valid for \d+ h/);
  await screenshot(session, "10-credentials");
  await click(session, "secret-reveal");
  await waitFor(session, "the secret is revealed", async () => (await text(session, "secret")) === credentials.secret);
  await click(session, "secret-reveal");
  const stored = await session.executeScript(
    "return JSON.stringify(Object.assign({}, window.localStorage)) + JSON.stringify(Object.assign({}, window.sessionStorage)) + document.cookie;",
  );
  assert.ok(!stored.includes(credentials.secret), "no secret in the web view's storage");
});

test("the overview shows the month's money, and nothing needing attention", async () => {
  await click(session, "nav-overview");
  // The live purchase made earlier is money out this month.
  assert.match(await text(session, "money-out-amount", 30_000), /^[1-9][\d,]*\.\d\d [A-Z]{3}$/);
  await find(session, "attention-none");
  await screenshot(session, "11-overview");
});

test("sign out, then back in with the secret remembered in the OS keyring", async () => {
  await click(session, "sign-out");
  await find(session, "login-form");
  assert.equal(await (await find(session, "email")).getAttribute("value"), email);
  await screenshot(session, "12-sign-in-remembered");
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
  assert.equal(await text(session, "signed-in-email"), email);
  await click(session, "nav-cards");
  await find(session, "card-list");
  await screenshot(session, "13-signed-back-in");
});

test("removing the card asks first, says what goes, and leaves the list without it", async () => {
  await click(session, "open-card");
  await waitFor(session, "the page is titled by the card", async () => /•••• 4242$/.test(await text(session, "page-title")), 30_000);
  await click(session, "remove-card");
  const asked = await find(session, "remove-card-confirm");
  const dialog = await session.findElement(By.css('[role="alertdialog"]'));
  assert.match(await dialog.getText(), /Remove the card ending 4242\?[\s\S]*erased from the service, for good/);
  await screenshot(session, "13b-remove-card-confirm");
  await asked.click();
  await find(session, "state-empty", 30_000);
  assert.equal(await text(session, "page-title"), "Cards");
  await toastSaying(session, /Card removed/);
  await screenshot(session, "13c-card-removed");
});

test("the environment switcher shows where the app is connected", async () => {
  await click(session, "environment-switcher");
  await find(session, "connect-form");
  await screenshot(session, "14-environment");
  await click(session, "connect");
  await find(session, "page-title", 30_000);
});
