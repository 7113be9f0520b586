// The dashboard's polish, end to end, in the real app: every state a demanding user meets, each
// photographed light and dark (`polish-light-*`, `polish-dark-*` in target/screenshots/): the
// overview's table, the date-range control empty, open and set, a card's chart filtered (its
// time axis kept), a transaction's detail, identity information with its country and date
// pickers and an error, a question unanswered, the webhook form and the page after an add, the
// request log filtered with a detail open, a service error, a loading state, an unreachable
// service, and the expansion and established environments (real service binaries of their own).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, afterEach, before, test } from "node:test";
import {
  By,
  choose,
  click,
  find,
  launch,
  relaunchDark,
  screenshot,
  signUpOnSandbox,
  text,
  type,
  waitFor,
  toastSaying,
} from "./harness.mjs";
import { startService, startSlowLink } from "./service.mjs";

const email = `e2e-polish-${Date.now()}@example.com`;
const remoteEmail = `e2e-remote-${Date.now()}@example.com`;
let app;
let session;
let secret;
let receiver;
let established;
let expansion;
let slowLink;
let theme = "light";

async function shot(name) {
  await screenshot(session, `polish-${theme}-${name}`);
}

async function all(testid) {
  return session.findElements(By.css(`[data-testid="${testid}"]`));
}

async function gone(testid) {
  await waitFor(session, `${testid} closes`, async () => (await all(testid)).length === 0);
}

/** A receiver on 127.0.0.1 that answers 200 to every delivery. */
function startReceiver() {
  return new Promise((resolve) => {
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.end("ok"));
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

before(async () => {
  receiver = await startReceiver();
  established = await startService({ environment: "established" });
  expansion = await startService({ environment: "expansion" });
  // When slowed, reading the card list through this link takes 8 s: long enough to see it load.
  slowLink = await startSlowLink(established.baseUrl, (method, path) => method === "GET" && path === "/card", 0);
  app = await launch();
  session = app.session;
});

// A failed step leaves a picture of where it stood.
afterEach(async (context) => {
  if (context.passed === false && session) {
    await screenshot(session, `polish-failed-${theme}-${context.name.replace(/\W+/g, "-")}`).catch(() => undefined);
  }
});

after(async () => {
  await app?.stop();
  await slowLink?.stop();
  await established?.stop();
  await expansion?.stop();
  receiver?.close();
});

/** Connects to a service at an address and signs up (or in, when it remembers the e-mail). */
async function connectRemote(environment, baseUrl, who) {
  await click(session, "environment-switcher");
  await connectForm(environment, baseUrl, who);
}

/** From "the service cannot be reached" to the environment form (the panel may still be
 *  settling when first clicked: click until the form shows). */
async function chooseAnotherEnvironment() {
  await waitFor(
    session,
    "the environment form opens",
    async () => {
      if ((await all("connect-form")).length) return true;
      const links = await session.findElements(By.xpath("//button[contains(., 'Choose another environment')]"));
      if (links.length) await links[0].click().catch(() => undefined);
      return false;
    },
    30_000,
  );
}

/** Fills the environment form with a service at an address, then signs up or in. */
async function connectForm(environment, baseUrl, who) {
  await find(session, "connect-form");
  await click(session, "choose-remote");
  await choose(session, "remote-environment", environment);
  await type(session, "base-url", baseUrl);
  await click(session, "connect");
  await waitFor(session, "the sign-in shows", async () =>
    (await all("signup-form")).length + (await all("login-form")).length > 0, 30_000);
  if ((await all("signup-form")).length) {
    await type(session, "email", who);
    await click(session, "submit-signup");
    await find(session, "signup-done", 30_000);
    await click(session, "continue");
  } else {
    await click(session, "submit-login");
  }
  await find(session, "signed-in-email", 30_000);
  await click(session, "nav-overview");
}

/** Back to the embedded sandbox, signed in with the remembered secret. */
async function backToSandbox() {
  await click(session, "environment-switcher");
  await find(session, "connect-form");
  await click(session, "choose-sandbox");
  await click(session, "connect");
  await find(session, "login-form", 60_000);
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
}

async function firstCard() {
  await click(session, "nav-cards");
  await click(session, "open-card");
  await find(session, "transaction-table", 60_000);
  await waitFor(session, "every transaction loaded", async () => !/loading/.test(await text(session, "totals")), 60_000);
}

async function barCount() {
  return (await session.findElements(By.css('[data-testid="monthly-chart"] rect.bar'))).length;
}

/** The screens every theme is photographed on (the sandbox account exists by then). */
async function tour() {
  await click(session, "nav-overview");
  await waitFor(session, "recent transactions", async () => (await all("recent-transaction")).length > 0, 30_000);
  const widths = await session.executeScript(`
    return [...document.querySelectorAll('[data-testid="recent-transaction"] td')].filter((cell, index) => index % 5 !== 1 && index % 5 !== 2)
      .map((cell) => cell.scrollHeight > 40 ? cell.textContent : null).filter(Boolean);`);
  assert.deepEqual(widths, [], "dates, card masks and amounts stay on one line");
  await shot("overview");

  await firstCard();
  assert.equal(await text(session, "date-range-label"), "All time");
  await shot("date-range-empty");
  const everyMonth = await barCount();
  await click(session, "date-range");
  await find(session, "date-range-popover");
  await shot("date-range-open");
  await click(session, "range-12m");
  await gone("date-range-popover");
  assert.equal(await text(session, "date-range-label"), "Last 12 months");
  await shot("date-range-set");
  const rangeMonths = await barCount();
  assert.ok(rangeMonths > 0 && rangeMonths <= 13, `the chart spans the range's months, not ${rangeMonths}`);

  // A custom range on the calendar.
  await click(session, "date-range");
  await click(session, "range-custom");
  await click(session, "range-custom-from-calendar");
  await find(session, "range-custom-from-popover");
  await shot("date-range-custom");
  await (await find(session, "range-custom-from-popover")).sendKeys("\uE00C");
  await click(session, "date-range");
  await gone("date-range-popover");

  const axisMonths = await barCount();
  const merchant = await session.executeScript(
    "return document.querySelector('[data-testid=transaction-row] .merchant').textContent",
  );
  const word = merchant.trim().split(/\s+/)[0];
  await type(session, "filter-text", word);
  await waitFor(session, "the text filter applies", async () =>
    Number((await text(session, "row-count")).replace(/,/g, "")) > 0);
  assert.equal(await barCount(), axisMonths, "filtering keeps the time axis");
  await shot("card-chart-filtered");
  await click(session, "transaction-row");
  await find(session, "transaction-detail-json");
  await shot("transaction-detail");
  await click(session, "transaction-detail-close");
  await gone("transaction-detail");
  await click(session, "date-range");
  await click(session, "range-all");

  // Identity: the country and date pickers, and an error in a full sentence.
  await click(session, "nav-identity");
  await click(session, "new-person");
  await type(session, "person-first-name", "Mary");
  await type(session, "person-last-name", "Somerville");
  await type(session, "person-email", `mary-${theme}@example.com`);
  await click(session, "onboard-submit");
  await find(session, "information-form", 15_000);
  await type(session, "info-dob", "2030-01-01");
  await type(session, "info-street", "Rue de Bretagne");
  await type(session, "info-street-no", "18");
  await type(session, "info-city", "Paris");
  await type(session, "info-zip", "75003");
  await choose(session, "info-country", "FRA");
  assert.equal(await text(session, "error-dateOfBirth"), "The date of birth is in the future.");
  await shot("identity-information");
  await click(session, "info-dob-calendar");
  await find(session, "info-dob-popover");
  await shot("identity-date-picker");
  await (await find(session, "info-dob-popover")).sendKeys("\uE00C");
  await type(session, "info-dob", "23 Apr 1987");
  await gone("error-dateOfBirth");
  await click(session, "info-submit");
  await find(session, "questions", 15_000);
  const chosen = await session.executeScript(
    "return [...document.querySelectorAll('[data-testid=choice]')].filter((radio) => radio.checked).length",
  );
  assert.equal(chosen, 0, "no answer is chosen yet");
  await shot("question");

  // Developers: the form in a drawer, the page after an add.
  await click(session, "nav-developers");
  await click(session, "webhook-open-form");
  await find(session, "webhook-form");
  await type(session, "webhook-url", `http://127.0.0.1:${receiver.address().port}/${theme}`);
  await type(session, "webhook-description", `Polish receiver (${theme})`);
  await shot("webhook-form");
  await click(session, "webhook-add");
  await find(session, "webhook-secret-value", 30_000);
  await gone("webhook-form");
  await toastSaying(session, /Endpoint added/);
  await shot("webhook-added");

  // The request log, filtered, with a detail open.
  await click(session, "developers-tab-requests");
  await click(session, "requests-refresh");
  await waitFor(session, "the add is listed", async () => (await text(session, "request-list")).includes("POST /webhooks"), 30_000);
  await choose(session, "request-filter-route", "POST /webhooks");
  await waitFor(session, "only that route", async () => {
    const rows = await all("request-row");
    for (const row of rows) if (!(await row.getText()).includes("POST /webhooks")) return false;
    return rows.length > 0;
  });
  await click(session, "request-row");
  assert.match(await text(session, "request-detail-curl"), /^curl[\s\S]*-X POST[\s\S]*\/webhooks'[\s\S]*\$SUBSCRIBER_TOKEN/);
  await session.executeScript(`document.querySelector('[data-testid="request-log"]').scrollIntoView({block: "start"})`);
  await shot("request-log");
  await click(session, "request-detail-close");

  // A service error: a wrong API key, with the service's message, code and request id.
  await click(session, "sign-out");
  await find(session, "login-form");
  await type(session, "api-key", "sk_test_not-the-right-key-at-all");
  await click(session, "submit-login");
  await find(session, "error", 30_000);
  await shot("error");
  // One line; the code, the status and the request id behind "Details".
  await click(session, "error-details-toggle");
  assert.match(await text(session, "error-details"), /HTTP 401/);
  await find(session, "request-id");
  await shot("error-details");
  await type(session, "api-key", secret);
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
}

test("light: a sandbox account with two cards", async () => {
  await signUpOnSandbox(session, email);
  secret = await text(session, "new-secret");
  await click(session, "continue");
  for (const first of ["Ada", "Grace"]) {
    await click(session, "open-enroll");
    await find(session, "test-card");
    if (first === "Grace") await choose(session, "test-card", "5555555555554444");
    await type(session, "first-name", first);
    await type(session, "last-name", "Tester");
    await click(session, "enroll-submit");
    await waitFor(session, "the card is listed", async () => (await text(session, "card-list")).includes(first), 30_000);
  }
  await toastSaying(session, /Test card enrolled/);
  await shot("cards-enrolled");
});

/** On the established environment (behind the slow link): its overview, then the cards screen
 *  loading while the link holds each answer 8 s. */
async function establishedAndLoading() {
  await find(session, "usage", 30_000);
  await shot("established-overview");
  slowLink.setDelay(8000);
  await click(session, "nav-cards");
  await find(session, "state-loading");
  await shot("loading");
  await find(session, "state-empty", 30_000);
  slowLink.setDelay(0);
}

test("light: every polished screen", async () => {
  await tour();
});

test("light: loading, established and expansion, unreachable", async () => {
  await connectRemote("established", slowLink.baseUrl, remoteEmail);
  assert.match(await text(session, "environment-band"), /Established/);
  await establishedAndLoading();

  await connectRemote("expansion", expansion.baseUrl, remoteEmail);
  assert.match(await text(session, "environment-band"), /Expansion/);
  await find(session, "overview", 30_000);
  await shot("expansion-overview");

  // The service goes away: the page says so, with one Retry.
  await expansion.stop();
  await click(session, "nav-cards");
  await find(session, "unreachable", 30_000);
  await shot("unreachable");
  expansion = null;
});

test("dark: the same screens in the OS's dark theme", async () => {
  theme = "dark";
  app = await relaunchDark(app);
  session = app.session;
  // The environment used last (expansion, now gone) cannot be reached: choose another. The app
  // may open on its sign-in and turn to the "unreachable" page while we look (its first check
  // of the service ends), so each look reads the screen afresh; a sign-in is tried once (the
  // gone environment's says so when tried).
  let where;
  let triedSignIn = false;
  await waitFor(session, "the app says where it stands", async () => {
    if ((await all("unreachable")).length) where = "unreachable";
    else if ((await all("signed-in-email")).length) where = "signed-in";
    else if ((await all("connect-form")).length) where = "connect";
    else if (!triedSignIn && (await all("login-form")).length) {
      const submit = await all("submit-login");
      if (submit.length) {
        await submit[0].click();
        triedSignIn = true;
      }
    }
    return where !== undefined;
  }, 60_000);
  assert.equal(await session.executeScript("return matchMedia('(prefers-color-scheme: dark)').matches"), true);
  if (where === "unreachable") {
    await shot("unreachable");
    await chooseAnotherEnvironment();
    await connectForm("established", slowLink.baseUrl, remoteEmail);
  } else if (where === "signed-in") {
    await connectRemote("established", slowLink.baseUrl, remoteEmail);
  } else {
    await connectForm("established", slowLink.baseUrl, remoteEmail);
  }
  await establishedAndLoading();
  await backToSandbox();
  await tour();
});
