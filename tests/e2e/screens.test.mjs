// Every screen of the app, as a subscriber with something on each one sees it: photographed
// light and dark, at 1280 and at 1024 pixels wide (`screens-<theme>-<width>-<screen>.png` in
// target/screenshots/), and checked by axe-core inside the real app on each, in both themes,
// with no serious or critical violation allowed. The data comes from the service's API, as an
// integration would make it (the test signs in with the secret the app showed): a test card
// with its history, a merchant with two locations and sales, an endpoint whose deliveries fail,
// a bank link the bank refused, a person locked after three wrong attempts and one who has not
// started. So the overview has money and things that need attention.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { assertAccessible } from "./a11y.mjs";
import { By, callService, choose, click, erase, find, launch, screenshot, text, type, waitFor } from "./harness.mjs";
import { PersonBrowser } from "./person.mjs";

const email = `e2e-screens-${Date.now()}@example.com`;
const WIDTHS = [1280, 1024];
const HEIGHT = 800;
let app;
let session;
let serviceUrl;
let token;
let theme = "light";
let width = WIDTHS[0];

before(async () => {
  app = await launch();
  session = app.session;
});

afterEach(async (context) => {
  if (context.passed === false && session)
    await screenshot(session, `screens-failed-${theme}-${context.name.replace(/\W+/g, "-")}`).catch(() => undefined);
});

after(async () => {
  await app?.stop();
});

async function all(testid) {
  return session.findElements(By.css(`[data-testid="${testid}"]`));
}

/** Waits until nothing on the page is loading (skeletons gone). */
async function settled(what) {
  await waitFor(session, `${what} has loaded`, async () => (await all("state-loading")).length === 0, 60_000);
}

/** The service's API as an integration calls it (beside the app: with the launch's secret). */
function service(method, path, body) {
  return callService({ app, serviceUrl, token }, method, path, body);
}

async function shot(name) {
  await screenshot(session, `screens-${theme}-${width}-${name}`);
}

/** The screen photographed, and checked by axe at the first width. */
async function look(name) {
  await shot(name);
  if (width === WIDTHS[0]) await assertAccessible(session, `${theme} ${name}`);
}

async function resize(to) {
  width = to;
  await session.manage().window().setRect({ width: to, height: HEIGHT });
  await waitFor(session, `the window is ${to} wide`, async () =>
    (await session.executeScript("return window.innerWidth")) === to, 10_000).catch(() => undefined);
}

test("the sign-up screen, and a subscriber with something on every screen", async () => {
  await resize(WIDTHS[0]);
  await find(session, "connect-form", 30_000);
  await look("environment");
  await click(session, "connect");
  await find(session, "signup-form", 60_000);
  await look("sign-up");
  await type(session, "email", email);
  await click(session, "submit-signup");
  await find(session, "signup-done", 30_000);
  const secret = await text(session, "new-secret");
  await look("signup-done");
  await click(session, "continue");
  serviceUrl = (await (await find(session, "environment-switcher")).getAttribute("data-service-url")).trim();
  token = (await service("POST", "/subscriber/login", { email, api_key: secret })).token;

  // A test card, with the history the sandbox gives it.
  const { cards } = await service("GET", "/sandbox/cards");
  const test = cards.find((card) => card.countryCode === "USA") ?? cards[0];
  const card = await service("POST", "/card", {
    pan: test.pan,
    firstName: "Grace",
    lastName: "Hopper",
    expMonth: 12,
    expYear: new Date().getUTCFullYear() + 3,
    countryCode: test.countryCode,
  });

  // A merchant with two locations and sales at both.
  await service("POST", "/merchant", { name: "Harbor Light Coffee", category: "5814", countryCode: "USA" });
  const valencia = await service("POST", "/merchant/location", {
    location: { countryCode: "USA", street: "Valencia St", streetNo: "1022", city: "San Francisco", zip: "94110" },
  });
  const times = await service("POST", "/merchant/location", {
    location: {
      countryCode: "USA",
      street: "W 46th St",
      streetNo: "312",
      city: "New York",
      zip: "10036",
      latitude: 40.759,
      longitude: -73.9845,
    },
  });
  const amounts = [[valencia, 12.5], [valencia, 4.75], [valencia, 23.1], [times, 8.2], [times, 61.4], [valencia, 9.95]];
  for (const [place, amount] of amounts)
    await service("POST", "/sandbox/transactions", { cardId: card.cardId, locationId: place.locationId, amount });

  // An endpoint nothing answers at: its deliveries fail.
  const endpoint = await service("POST", "/webhooks", {
    url: "http://127.0.0.1:9/webhooks",
    events: ["*"],
    description: "Order service",
  });
  await service("POST", `/webhooks/${endpoint.webhookId}/test`);

  // A bank link the bank refused.
  const link = await service("POST", "/account", { bank: "harbor-cu" });
  const browser = new PersonBrowser();
  await browser.submit(await browser.open(link.url), { username: "user_locked", password: "anything" });

  // A person locked after three wrong attempts, and one who has not given their details.
  const locked = await service("POST", "/persons", { firstName: "Charles", lastName: "Babbage", email: "charles@example.com" });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const asked = await service("POST", "/persons/authenticate", {
      personId: locked.personId,
      dateOfBirth: "1971-12-26",
      address: { street: "Valencia St", streetNo: "1022", city: "San Francisco", zip: "94110", countryCode: "USA" },
    });
    const { answers } = await service("GET", `/sandbox/persons/${locked.personId}/answers`);
    const wrong = asked.questions.map((question) => {
      const right = answers.find((answer) => answer.questionId === question.questionId)?.choiceId;
      return { questionId: question.questionId, choiceId: question.choices.find((choice) => choice.choiceId !== right).choiceId };
    });
    await service("POST", "/persons/verify", { personId: locked.personId, answers: wrong });
  }
  await service("POST", "/persons", { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" });

  // The failed delivery is known to the endpoint's queue before the tour starts.
  await waitFor(session, "the test delivery failed", async () =>
    (await service("GET", `/webhooks/${endpoint.webhookId}`)).queue?.lastError != null, 30_000);
});

/** Every screen at the current theme and width. */
async function tour() {
  await click(session, "nav-overview");
  await find(session, "overview", 30_000);
  await settled("the overview");
  await waitFor(session, "what needs attention", async () => (await all("attention-item")).length >= 3, 30_000);
  await look("overview");

  await click(session, "nav-cards");
  await settled("cards");
  await look("cards");
  await click(session, "open-card");
  await waitFor(session, "the card's transactions", async () => (await all("transaction-row")).length > 0, 60_000);
  await look("card-transactions");
  const bars = await all("monthly-chart-bar");
  if (bars.length) {
    await bars[bars.length - 1].click();
    await waitFor(session, "the month filters the table", async () =>
      (await (await find(session, "date-range-label")).getText()) !== "All time");
    await look("card-transactions-month");
    await click(session, "reset-filters");
  }

  await click(session, "nav-merchant");
  await click(session, "merchant-tab-transactions");
  await find(session, "merchant-performance", 30_000);
  await settled("the sales");
  await look("merchant-sales");
  await (await all("location-sales-pick"))[1].click();
  await waitFor(session, "the sales of one location", async () => (await text(session, "merchant-row-count")) === "2");
  await look("merchant-sales-location");
  await click(session, "merchant-tab-locations");
  await find(session, "location-list", 30_000);
  await look("merchant-locations");
  await click(session, "open-add-location");
  await type(session, "location-city", "San Francisco");
  await type(session, "location-latitude", "37.7");
  await (await find(session, "location-zip")).click();
  await type(session, "location-zip", "#");
  await (await find(session, "location-street")).click();
  await find(session, "location-descriptor-text");
  await look("merchant-add-location");

  await click(session, "nav-lookup");
  await settled("lookup");
  await look("lookup");

  await click(session, "nav-accounts");
  await settled("accounts");
  await find(session, "account-row", 30_000);
  await look("accounts");

  await click(session, "nav-identity");
  await find(session, "identity-wizard", 30_000);
  const lockedRow = await session.findElement(By.xpath('//*[@data-testid="person-row"][.//*[contains(text(), "Charles")]]'));
  await lockedRow.click();
  await find(session, "locked-next-step", 30_000);
  await look("identity-locked");
  const adaRow = await session.findElement(By.xpath('//*[@data-testid="person-row"][.//*[contains(text(), "Ada")]]'));
  await adaRow.click();
  await find(session, "information-form", 30_000);
  await look("identity-information-usa");
  await choose(session, "info-country", "FRA");
  await waitFor(session, "no SSN outside the US", async () => (await all("info-ssn")).length === 0);
  await look("identity-information-france");
  await click(session, "hand-to-person");
  await find(session, "identity-handed", 15_000);
  await look("identity-handed");
  await click(session, "hand-back");
  await find(session, "nav-developers", 15_000);

  await click(session, "nav-developers");
  for (const tab of ["endpoints", "deliveries", "events", "requests", "inspector", "shell", "versions", "sandbox"]) {
    await click(session, `developers-tab-${tab}`);
    await settled(`the ${tab} tab`);
    if (tab === "deliveries") await find(session, "delivery-row", 30_000);
    await look(`developers-${tab}`);
  }

  await click(session, "nav-credentials");
  await settled("credentials");
  await look("credentials");
  await click(session, "nav-settings");
  await settled("settings");
  await look("settings");
}

test("every screen, light, at 1280 and 1024 wide, accessible", async () => {
  for (const to of WIDTHS) {
    await resize(to);
    await tour();
  }
});

test("every screen, dark, at 1280 and 1024 wide, accessible; the sign-in error on one line", async () => {
  const dataDir = app.data;
  await app.stop();
  theme = "dark";
  app = await launch({ dataDir, env: { GTK_THEME: "Adwaita:dark" } });
  session = app.session;
  await resize(WIDTHS[0]);
  await find(session, "login-form", 60_000);
  await look("sign-in");
  await type(session, "api-key", "sk_wrong_key");
  await click(session, "submit-login");
  await find(session, "error", 30_000);
  const height = await session.executeScript(
    "return document.querySelector('[data-testid=error]').getBoundingClientRect().height",
  );
  assert.ok(height <= 44, `the error is one line (${height} px)`);
  await look("sign-in-error");
  await click(session, "error-details-toggle");
  await find(session, "request-id");
  await shot("sign-in-error-details");
  await erase(session, "api-key");
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);
  for (const to of WIDTHS) {
    await resize(to);
    await tour();
  }
});
