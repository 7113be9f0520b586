// End to end, the real app: enroll as a merchant → add two locations (one with coordinates the
// service derives, one with coordinates given) → a sandbox purchase at one of them arrives live
// with the card's last four → the merchant's sales exported → merchant lookup finds the
// merchant by its location's descriptor, and a published sandbox descriptor, address and
// position. Then the app again in the dark theme. A screenshot of every screen, light and dark,
// goes to target/screenshots/.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { By, click, find, launch, screenshot, text, type, waitFor, signUpOnSandbox, toastSaying } from "./harness.mjs";

const email = `e2e-merchant-${Date.now()}@example.com`;
let app;
let session;
const locations = {};

before(async () => {
  app = await launch();
  session = app.session;
});

after(async () => {
  await app?.stop();
});

/** Chooses an option of a <select> as a person does: the value changes and `change` fires. */
async function choose(testid, value) {
  await find(session, testid);
  await session.executeScript(
    `const s = document.querySelector('[data-testid="${testid}"]'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));`,
    value,
  );
}

async function count(testid) {
  const shown = await session.findElements(By.css(`[data-testid="${testid}"]`));
  return shown.length ? Number((await shown[0].getText()).replace(/,/g, "")) : 0;
}

test("signed up on the sandbox with a test card", async () => {
  await signUpOnSandbox(session, email);
  await click(session, "continue");
  await click(session, "open-enroll");
  await find(session, "test-card");
  await type(session, "first-name", "Grace");
  await type(session, "last-name", "Hopper");
  await click(session, "enroll-submit");
  await find(session, "card-list", 30_000);
  assert.equal(await text(session, "card-last-four"), "•••• 4242");
});

test("the merchant form checks fields inline and searches categories by words", async () => {
  await click(session, "nav-merchant");
  await find(session, "merchant-form", 30_000);
  assert.equal(await text(session, "page-title"), "Merchant");
  await screenshot(session, "20-merchant-enroll");

  // Leaving the name empty says so next to it, in the service's words.
  await click(session, "merchant-name");
  await click(session, "merchant-phone");
  assert.match(await text(session, "merchant-name-error"), /name is required/i);
  await click(session, "merchant-submit");
  assert.match(await text(session, "merchant-category-error"), /category/i);
  await screenshot(session, "21-merchant-validation");

  await type(session, "merchant-name", "E2E Diner");
  await waitFor(session, "the name error goes away", async () =>
    (await session.findElements(By.css('[data-testid="merchant-name-error"]'))).length === 0);
  await type(session, "category-input", "eating pla");
  await waitFor(session, "5812 is offered", async () => {
    const options = await session.findElements(By.css('[data-testid="category-option"]'));
    return options.length > 0 && (await options[0].getAttribute("data-code")) === "5812";
  });
  await screenshot(session, "22-merchant-category-picker");
  await (await find(session, "category-input")).sendKeys("\uE007");
  assert.equal(await (await find(session, "category-input")).getAttribute("value"), "5812 Eating Places, Restaurants");
  await choose("merchant-country", "USA");
  await click(session, "merchant-submit");

  await find(session, "merchant-title", 30_000);
  assert.equal(await text(session, "merchant-title"), "E2E Diner");
  assert.match(await text(session, "merchant-id"), /^\d+$/);
  assert.equal(await text(session, "merchant-category"), "5812 Eating Places, Restaurants");
});

test("two locations: coordinates derived from the address, and given", async () => {
  // Enrolling opens the location form on the locations tab.
  await find(session, "location-form");
  await type(session, "location-streetNo", "1022");
  await type(session, "location-street", "Valencia St");
  await type(session, "location-zip", "94110");
  await type(session, "location-latitude", "37.75");
  await click(session, "location-submit");
  assert.match(await text(session, "location-city-error"), /city is required/i);
  assert.match(await text(session, "location-longitude-error"), /^Add the longitude too, or leave both coordinates empty\.$/);
  await screenshot(session, "23-location-validation");

  await type(session, "location-city", "San Francisco");
  // "E2E DINER SAN FRANCISCO" is 23 characters: the counter says the limit is reached and the end cut.
  await waitFor(session, "the descriptor is counted", async () =>
    (await text(session, "location-descriptor-count")) === "22/22");
  assert.match(await text(session, "location-descriptor-preview"), /the end is cut/);
  await screenshot(session, "23b-location-descriptor-count");
  await (await find(session, "location-latitude")).clear();
  await (await find(session, "location-latitude")).sendKeys("x");
  await (await find(session, "location-latitude")).sendKeys("\uE003");
  await waitFor(session, "the form is valid", async () =>
    (await session.findElements(By.css('[data-testid="location-form"] .field-error'))).length === 0);
  await click(session, "location-submit");
  const added = await text(session, "location-added", 30_000);
  assert.match(added, /1022 Valencia St, San Francisco[\s\S]*coordinates were found from the address/);
  await screenshot(session, "24-location-added-derived");

  await click(session, "open-add-location");
  await type(session, "location-streetNo", "312");
  await type(session, "location-street", "W 46th St");
  await type(session, "location-zip", "10036");
  await type(session, "location-city", "New York");
  await type(session, "location-latitude", "40.7590");
  await type(session, "location-longitude", "-73.9845");
  await click(session, "location-submit");
  assert.match(await text(session, "location-added", 30_000), /312 W 46th St[\s\S]*Coordinates as you gave them: 40\.75900, -73\.98450/);

  await waitFor(session, "both locations are listed", async () =>
    (await session.findElements(By.css('[data-testid="location-row"]'))).length === 2);
  for (const row of await session.findElements(By.css('[data-testid="location-row"]'))) {
    const rowText = await row.getText();
    const id = Number(await row.getAttribute("data-location-id"));
    const descriptor = (await row.findElement(By.css('[data-testid="location-descriptor"]')).getText()).trim();
    if (rowText.includes("Valencia")) locations.valencia = { id, descriptor };
    if (rowText.includes("46th")) locations.times = { id, descriptor };
  }
  assert.ok(locations.valencia?.id && locations.times?.id, JSON.stringify(locations));
  const coordinates = await Promise.all(
    (await session.findElements(By.css('[data-testid="location-coordinates"]'))).map((cell) => cell.getText()),
  );
  assert.ok(coordinates.some((cell) => /Found from the address/.test(cell)), coordinates.join(" | "));
  assert.ok(coordinates.some((cell) => /40\.75900, -73\.98450\s*As you gave them/.test(cell)), coordinates.join(" | "));
  await screenshot(session, "25-merchant-locations");
});

test("a location's address corrected in its drawer, then the location removed", async () => {
  await click(session, "open-add-location");
  await type(session, "location-streetNo", "500");
  await type(session, "location-street", "Howard St");
  await type(session, "location-zip", "94105");
  await type(session, "location-city", "San Francisco");
  await click(session, "location-submit");
  await text(session, "location-added", 30_000);
  const rowOf = async (pattern) => {
    for (const row of await session.findElements(By.css('[data-testid="location-row"]')))
      if (pattern.test(await row.getAttribute("textContent"))) return row;
    return null;
  };
  await waitFor(session, "the third location is listed", async () => (await rowOf(/500 Howard St/)) !== null);
  const id = Number(await (await rowOf(/500 Howard St/)).getAttribute("data-location-id"));

  // A click on the row opens it; the address is corrected there and the list follows.
  await (await (await rowOf(/500 Howard St/)).findElement(By.css("td"))).click();
  assert.match(await text(session, "location-facts"), /500 Howard St[\s\S]*94105 San Francisco, USA/);
  await click(session, "edit-location");
  assert.equal(await (await find(session, "edit-location-street")).getAttribute("value"), "Howard St");
  await type(session, "edit-location-streetNo", "600");
  await type(session, "edit-location-zip", "94107");
  await screenshot(session, "25b-location-correct-address");
  await click(session, "edit-location-submit");
  await toastSaying(session, /^Address saved/);
  assert.match(await text(session, "location-facts"), /600 Howard St[\s\S]*94107 San Francisco/);
  await waitFor(session, "the list shows the new address", async () => (await rowOf(/600 Howard St[\s\S]*94107/)) !== null);

  // Removing asks first, saying what stays and what goes; then the row leaves the list.
  await click(session, "remove-location");
  assert.match(await text(session, "location-detail"), /Remove 600 Howard St\?[\s\S]*Past sales keep the address/);
  await screenshot(session, "25c-location-remove-confirm");
  await click(session, "remove-location-confirm");
  await toastSaying(session, /^Location removed/);
  await waitFor(session, "the drawer closed and the row left", async () =>
    (await session.findElements(By.css('[data-testid="location-detail"]'))).length === 0 &&
    (await session.findElements(By.css(`[data-testid="location-row"][data-location-id="${id}"]`))).length === 0);
  assert.equal((await session.findElements(By.css('[data-testid="location-row"]'))).length, 2);
});

test("a sandbox purchase at a location arrives live with the card's last four", async () => {
  await click(session, "merchant-tab-transactions");
  await waitFor(session, "the sales stream is live", async () =>
    (await (await find(session, "live-indicator")).getAttribute("data-live")) === "true", 30_000);
  await find(session, "state-empty");
  await screenshot(session, "26-merchant-sales-empty");

  await choose("filter-location", String(locations.valencia.id));
  assert.match(await (await find(session, "simulate-sale")).getAttribute("aria-label"), /1022 Valencia St/);
  await click(session, "simulate-sale");
  const row = await session.wait(
    async () => (await session.findElements(By.css('[data-testid="merchant-table-row"]')))[0],
    15_000,
    "the sale arrives live",
  );
  assert.equal((await row.findElement(By.css('[data-testid="sale-last-four"]')).getAttribute("textContent")).trim(), "•••• 4242");
  assert.equal(Number(await row.findElement(By.css("[data-location-id]")).getAttribute("data-location-id")), locations.valencia.id);
  assert.match(await row.getAttribute("class"), /flash/);
  assert.match(await row.getAttribute("textContent"), /1022 Valencia St[\s\S]*pending/);
  // Text that may be cut with an ellipsis is read as text content: WebKitWebDriver's visible
  // text leaves out elements that clip their overflow.
  // The figures per location follow: the sale counts at its location, against the 30 days before.
  await waitFor(session, "the location's figures count the sale", async () =>
    /1022 Valencia St[\s\S]*?[1-9][\d,]*\.\d\d USD[\s\S]*?new/.test(
      await (await find(session, "location-sales")).getAttribute("textContent"),
    ), 15_000);
  await screenshot(session, "27-merchant-sale-live");

  // A second sale, through the service, at the other location: both show, per location.
  await choose("filter-location", "all");
  await choose("filter-location", String(locations.times.id));
  await click(session, "simulate-sale");
  await choose("filter-location", "all");
  await waitFor(session, "both sales are listed", async () => (await count("merchant-row-count")) === 2, 15_000);
  const lastFours = await Promise.all(
    (await session.findElements(By.css('[data-testid="sale-last-four"]'))).map((cell) => cell.getAttribute("textContent")),
  );
  assert.deepEqual(lastFours.map((cell) => cell.trim()), ["•••• 4242", "•••• 4242"]);

  await choose("filter-location", String(locations.times.id));
  await waitFor(session, "the location filter applies", async () => (await count("merchant-row-count")) === 1);
  await choose("filter-location", "all");
  await type(session, "filter-text", "valencia");
  await waitFor(session, "the text filter applies", async () => (await count("merchant-row-count")) === 1);
  await screenshot(session, "28-merchant-sales-filtered");
  await click(session, "export-merchant-csv");
  await toastSaying(session, /^Exported 1 row$/);
  const file = join(app.exports, "merchant-transactions.csv");
  assert.ok(existsSync(file), file);
  const lines = readFileSync(file, "utf8").trim().split(/\r\n/);
  assert.equal(lines.length, 2, "a header and the one sale shown");
  assert.match(lines[0], /^transactionId,createdAt,pending,amount,currency,locationId,lastFour/);
  assert.match(lines[1], new RegExp(`,${locations.valencia.id},4242,`));
  await (await find(session, "filter-text")).clear();
  await (await find(session, "filter-text")).sendKeys("x", "\uE003");
  await waitFor(session, "the filter cleared", async () => (await count("merchant-row-count")) === 2);
  await screenshot(session, "29-merchant-sales");
});

async function lookUp(mode, fields) {
  await click(session, `lookup-mode-${mode}`);
  for (const [field, value] of Object.entries(fields)) await type(session, `lookup-${field}`, value);
  const before = (await session.findElements(By.css('[data-testid="recent-lookup"]'))).length;
  await click(session, "lookup-submit");
  await waitFor(session, "the lookup is among the recent ones", async () =>
    (await session.findElements(By.css('[data-testid="recent-lookup"]'))).length > before ||
    (await session.findElements(By.css('[data-testid="error"]'))).length > 0, 15_000);
  return Promise.all(
    (await session.findElements(By.css('[data-testid="lookup-match"]'))).map(async (match) => ({
      name: (await match.findElement(By.css('[data-testid="match-name"]')).getText()).trim(),
      text: await match.getText(),
      locationId: Number(await match.getAttribute("data-location-id")),
      confidence: Number(await match.findElement(By.css('[data-testid="match-confidence"]')).getAttribute("aria-valuenow")),
    })),
  );
}

test("lookup finds the merchant by its descriptor, and the sandbox's merchants by descriptor, address and position", async () => {
  await click(session, "nav-lookup");
  await find(session, "lookup-form");
  await find(session, "state-empty");
  await screenshot(session, "30-lookup-empty");

  const own = await lookUp("descriptor", { descriptor: locations.valencia.descriptor });
  assert.ok(own.length > 0, "a match");
  assert.equal(own[0].name, "E2E Diner");
  assert.equal(own[0].locationId, locations.valencia.id);
  assert.match(own[0].text, /your location/);
  assert.match(own[0].text, /5812 Eating Places, Restaurants/);
  await screenshot(session, "31-lookup-own-merchant");

  // As statements print it: another case, no spaces, a store number.
  const heron = await lookUp("descriptor", { descriptor: "sq*blueheroncoffee #12" });
  assert.equal(heron[0]?.name, "Blue Heron Coffee", JSON.stringify(heron.map((match) => match.name)));
  assert.ok(heron[0].confidence > 50, `confidence ${heron[0].confidence}`);
  assert.match(heron[0].text, /5814 Fast Food Restaurants[\s\S]*1022 Valencia St, San Francisco, CA 94110/);
  await screenshot(session, "32-lookup-descriptor");

  const byAddress = await lookUp("address", { streetNo: "312", street: "W 46th St", zip: "10036" });
  assert.ok(byAddress.some((match) => match.name === "Golden Lantern"), JSON.stringify(byAddress.map((match) => match.name)));
  await screenshot(session, "33-lookup-address");

  const nearby = await lookUp("position", { latitude: "37.7557", longitude: "-122.4211", radius: "200" });
  const found = nearby.find((match) => match.name === "Blue Heron Coffee");
  assert.ok(found, JSON.stringify(nearby.map((match) => match.name)));
  assert.match(found.text, /\d+ m away/);
  const recent = await Promise.all(
    (await session.findElements(By.css('[data-testid="recent-lookup"]'))).map((item) => item.getAttribute("textContent")),
  );
  assert.equal(recent.length, 4);
  assert.match(recent[0], /37\.75570, -122\.42110 \(200 m\)/, "newest first");
  await screenshot(session, "34-lookup-position");

  // A recent lookup shows its matches again without asking the service.
  const items = await session.findElements(By.css('[data-testid="recent-lookup"]'));
  await items[items.length - 1].click();
  await waitFor(session, "the first lookup is shown again", async () =>
    (await (await find(session, "lookup-descriptor")).getAttribute("value")) === locations.valencia.descriptor);
  assert.equal((await session.findElements(By.css('[data-testid="match-own"]'))).length > 0, true);
});

test("lookup enriches a CSV of descriptors and saves it with what was found for each row", async () => {
  const csv = "Date,Description,Amount\n2026-11-02,SQ *BLUE HERON COFFEE,4.50\n2026-11-03,TST* GOLDEN LANTERN,31.00\n2026-11-04,***,1.00\n";
  // The page reads the file the person chose; a script chooses it here (as a drop would).
  await session.executeScript(
    `const input = document.querySelector('[data-testid="enrich-file-input"]');
     const files = new DataTransfer();
     files.items.add(new File([arguments[0]], "statement.csv", { type: "text/csv" }));
     input.files = files.files;
     input.dispatchEvent(new Event("change", { bubbles: true }));`,
    csv,
  );
  await click(session, "enrich-file-go");
  const result = await text(session, "enrich-file-result", 30_000);
  assert.match(result, /^3 rows: 2 matched, 2 at high confidence or better, 1 refused/, result);
  const file = join(app.exports, "statement-enriched.csv");
  assert.ok(existsSync(file), file);
  const lines = readFileSync(file, "utf8").trim().split(/\r\n/);
  assert.equal(lines.length, 4, lines.join("\n"));
  assert.match(lines[0], /^Date,Description,Amount,counterparty,brandId,confidence,score,/);
  assert.match(lines[1], /,Blue Heron Coffee,brd_[0-9a-f]{16},very_high,/);
  assert.match(lines[3], /must contain letters or digits/);
  await screenshot(session, "35-lookup-enrich-file");
});

test("the merchant screens and lookup follow the OS's dark theme", async () => {
  const dataDir = app.data;
  await app.stop();
  // WebKitGTK takes prefers-color-scheme from the GTK theme.
  app = await launch({ dataDir, env: { GTK_THEME: "Adwaita:dark" } });
  session = app.session;
  await find(session, "login-form", 60_000);
  const dark = await session.executeScript("return matchMedia('(prefers-color-scheme: dark)').matches");
  assert.equal(dark, true, "WebKitGTK reports the dark scheme");
  await click(session, "submit-login");
  await find(session, "signed-in-email", 30_000);

  await click(session, "nav-merchant");
  await click(session, "merchant-tab-transactions");
  await waitFor(session, "the sales are listed", async () => (await count("merchant-row-count")) === 2, 30_000);
  await waitFor(session, "the sales stream is live", async () =>
    (await (await find(session, "live-indicator")).getAttribute("data-live")) === "true", 30_000);
  await screenshot(session, "dark-merchant-sales");
  await click(session, "merchant-tab-locations");
  await click(session, "open-add-location");
  await type(session, "location-street", "Mission St");
  await click(session, "location-submit");
  await find(session, "location-city-error");
  await screenshot(session, "dark-merchant-locations");
  await click(session, "location-row");
  await find(session, "location-facts");
  await screenshot(session, "dark-location-detail");
  await click(session, "location-detail-close");

  await click(session, "nav-lookup");
  await lookUp("descriptor", { descriptor: "TST* GOLDEN LANTERN" });
  await find(session, "lookup-results");
  await screenshot(session, "dark-lookup");
});
