// End to end, the real app and a real receiver: add a webhook endpoint in the Developers area
// (its secret shown once), send a test event, see it delivered in the endpoint's delivery log;
// the receiver checks the signature with the secret the app showed. Then the event in the
// event browser with its JSON, a rotation, sandbox snapshots taken and one restored, sandbox
// purchases made from the form (backdated, declined), and the screen in the dark theme.
// Screenshots go to target/screenshots/.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { By, Key, choose, click, erase, find, launch, relaunchDark, screenshot, signIn, text, toastSaying, type, waitFor, signUpOnSandbox } from "./harness.mjs";

const email = `e2e-developer-${Date.now()}@example.com`;
let app;
let session;
let receiver;
const received = [];
let secret = "";
/** An endpoint's id as the request history names it (`webhookId:3`), for the inspector. */
let webhookRef = "";

/** A receiver on 127.0.0.1 that records every delivery and answers 200. */
function startReceiver() {
  return new Promise((resolve) => {
    const server = createServer((request, response) => {
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("ok");
      });
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/** Whether a delivery's `Subscriber-Signature` holds HMAC-SHA256(secret, "<t>.<body>"). */
/** The HMAC key of a secret, as the contract says: `whsec_` + standard base64 of 32 bytes is
 *  keyed with the bytes. */
function keyOf(secret) {
  const bytes = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return bytes.length === 32 ? bytes : secret;
}

function signedWith(delivery, secret) {
  const key = keyOf(secret);
  const header = String(delivery.headers["subscriber-signature"] ?? "");
  const timestamp = header.split(",").find((part) => part.startsWith("t="))?.slice(2);
  const expected = createHmac("sha256", key).update(`${timestamp}.`).update(delivery.body).digest("hex");
  return header.split(",").some((part) => part === `v1=${expected}`);
}

before(async () => {
  receiver = await startReceiver();
  app = await launch();
  session = app.session;
});

after(async () => {
  await app?.stop();
  receiver?.close();
});

test("an endpoint added in the Developers area shows its secret once", async () => {
  await signUpOnSandbox(session, email);
  await click(session, "continue");
  await click(session, "nav-developers");
  await find(session, "webhook-open-form", 30_000);
  assert.equal(await text(session, "page-title"), "Developers");
  await find(session, "state-empty");
  await screenshot(session, "40-developers-empty");
  await click(session, "webhook-open-form");
  await find(session, "webhook-form");

  // A URL that is not one is refused next to the field, in the service's words.
  await type(session, "webhook-url", "not a url");
  await click(session, "webhook-add");
  await waitFor(session, "the URL error shows", async () =>
    (await session.findElements(By.css(".field-error"))).length > 0);

  const url = `http://127.0.0.1:${receiver.address().port}/webhooks`;
  await type(session, "webhook-url", url);
  await type(session, "webhook-description", "E2E receiver");
  await click(session, "webhook-add");
  secret = await text(session, "webhook-secret-value", 30_000);
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, "Standard Webhooks: base64 of 32 bytes");
  // The form's drawer closed with the add: a second click cannot make the endpoint twice.
  assert.equal((await session.findElements(By.css('[data-testid="webhook-form"]'))).length, 0);
  await find(session, "webhook-list");
  assert.equal(await text(session, "webhook-status"), "enabled");
  await screenshot(session, "41-developers-endpoint-secret");
});

test("a test event is delivered, signed, and shows as delivered in the log", async () => {
  await click(session, "webhook-test");
  // Sending a test opens the endpoint's deliveries.
  await waitFor(session, "the deliveries tab opens", async () =>
    (await (await find(session, "developers-tab-deliveries")).getAttribute("aria-selected")) === "true");
  await waitFor(session, "the receiver gets the test event", async () => received.length > 0, 30_000);
  const delivery = received[0];
  const event = JSON.parse(delivery.body.toString("utf8"));
  assert.equal(event.type, "webhook.test");
  assert.equal(delivery.headers["subscriber-event-id"], event.id);
  assert.ok(signedWith(delivery, secret), "signed with the secret the app showed");
  await waitFor(session, "the delivery log shows it delivered", async () => {
    const rows = await session.findElements(By.css('[data-testid="delivery-row"]'));
    return rows.length > 0 && (await rows[0].getAttribute("data-status")) === "delivered";
  }, 30_000);
  assert.equal(await text(session, "delivery-status"), "delivered");
  await screenshot(session, "42-developers-delivered");

  // Resend: the same event again.
  // No "waiting" beside a delivered row: the queue line agrees with the attempts.
  await waitFor(session, "the queue agrees", async () =>
    (await text(session, "queue-length")) === "Every event delivered, nothing waiting", 30_000);
  // Every time to the second.
  assert.match(await (await find(session, "delivery-row")).getText(), /\d{2}:\d{2}:\d{2}/);
  await click(session, "delivery-resend");
  await waitFor(session, "the receiver gets it again", async () => received.length > 1, 30_000);
  assert.equal(JSON.parse(received[1].body.toString("utf8")).id, event.id);

  // The endpoint's queue, and "Retry all failed since…": nothing failed, nothing queued again.
  await waitFor(session, "nothing waits", async () => (await text(session, "queue-length")) === "Every event delivered, nothing waiting", 30_000);
  await click(session, "recover-failed");
  // Toasts stack: "Event sent again" may still show above it.
  await toastSaying(session, /^No failed deliveries since \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2}$/, 30_000);
  await screenshot(session, "43-developers-queue");
});

test("the event browser lists the event with its JSON", async () => {
  await click(session, "developers-tab-events");
  await click(session, "events-refresh");
  await waitFor(session, "the test event is listed", async () =>
    (await session.findElements(By.css('[data-testid="event-row"][data-event-type="webhook.test"]'))).length > 0, 30_000);
  const row = await session.findElement(By.css('[data-testid="event-row"][data-event-type="webhook.test"]'));
  await session.executeScript("arguments[0].scrollIntoView({ block: 'center' })", row);
  // WebKitWebDriver clicks a table row through one of its cells.
  await (await row.findElement(By.css("td"))).click();
  const json = await text(session, "event-detail-json");
  assert.match(json, /"type": "webhook\.test"/);
  await screenshot(session, "43-developers-events");
  await click(session, "event-detail-close");
});

test("an event of any type is sent on request, marked as the sandbox's, and delivered", async () => {
  const before = received.length;
  await session.executeScript(
    "const s = document.querySelector('[data-testid=event-type]'); s.value = 'account.consent_expiring'; s.dispatchEvent(new Event('change'));",
  );
  await click(session, "send-event");
  await toastSaying(session, /^Sent account\.consent_expiring/);
  const json = await text(session, "event-detail-json", 15_000);
  assert.match(json, /"type": "account\.consent_expiring"/);
  assert.match(json, /"sandbox": true/);
  await screenshot(session, "43b-developers-event-sent");
  await waitFor(session, "the receiver gets it", async () =>
    received.slice(before).some((delivery) => {
      const body = JSON.parse(delivery.body.toString("utf8"));
      return body.type === "account.consent_expiring" && body.sandbox === true;
    }), 30_000);
  await click(session, "event-detail-close");
  await session.executeScript(
    "const s = document.querySelector('[data-testid=event-type]'); s.value = ''; s.dispatchEvent(new Event('change'));",
  );
});

test("the sandbox tab moves the account's clock ahead", async () => {
  await click(session, "developers-tab-sandbox");
  await find(session, "sandbox-controls");
  await click(session, "clock-advance-86400");
  await toastSaying(session, /^Clock moved 1 day ahead/);
  await find(session, "snapshots-empty", 30_000);
  // No card yet: a purchase needs one, and the way to enroll one is right there.
  assert.match(await text(session, "purchase-empty", 30_000), /^Enroll a card first/);
  await find(session, "purchase-enroll");
  await screenshot(session, "44b-developers-sandbox");
});

/** The snapshots listed, newest first: each row's text. */
async function snapshotRows() {
  const rows = await session.findElements(By.css('[data-testid="snapshot-row"]'));
  return Promise.all(rows.map(async (row) => (await row.getAttribute("textContent")).trim()));
}

/** Dismisses the toasts shown, as a person does before going on: they sit over the bottom of
 *  the content, where the next tests click. */
async function dismissToasts() {
  await session.executeScript(
    "document.querySelectorAll('[data-testid=toast] button[aria-label=Dismiss]').forEach((button) => button.click())",
  );
  await waitFor(session, "the toasts are gone", async () =>
    (await session.findElements(By.css('[data-testid="toast"]'))).length === 0);
}

/** Clicks the button `testid` of the snapshot listed `index`th (0: the newest). */
async function clickInRow(index, testid) {
  const rows = await session.findElements(By.css('[data-testid="snapshot-row"]'));
  const button = await rows[index].findElement(By.css(`[data-testid="${testid}"]`));
  await session.executeScript("arguments[0].scrollIntoView({ block: 'center', inline: 'nearest' })", button);
  await button.click();
}

test("a snapshot of the sandbox is taken under a name and listed; restoring it asks first", async () => {
  // A name is needed, said beside the field.
  await click(session, "take-snapshot");
  assert.match(await text(session, "snapshot-name-error"), /name/);
  await type(session, "snapshot-name", "Before forwarding");
  await click(session, "take-snapshot");
  await toastSaying(session, /^Snapshot “Before forwarding” taken/);
  await waitFor(session, "the snapshot is listed", async () => (await snapshotRows()).length === 1, 30_000);
  const [row] = await snapshotRows();
  assert.match(row, /Before forwarding/);
  // Taken at, to the second; its cards, transactions and size.
  assert.match(row, /\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2}/);
  assert.match(row, /\d+(\.\d)? (B|KiB|MiB)/);
  assert.equal(await text(session, "snapshot-count"), "1 of 20 kept");
  await dismissToasts();
  await screenshot(session, "44h-developers-sandbox-snapshots");
  // Restore asks first, saying what goes; Escape backs out and the keyboard is back on the row.
  await click(session, "restore-snapshot");
  const asked = await (await find(session, "restore-snapshot-dialog")).getText();
  assert.match(asked, /Restore “Before forwarding”\?/);
  assert.match(asked, /Everything made since .* is gone: the sandbox goes back to this moment, when it held no cards/);
  await screenshot(session, "44i-developers-sandbox-restore");
  const focused = () => session.executeScript("return document.activeElement?.dataset.testid");
  assert.equal(await focused(), "restore-snapshot-dialog", "the confirmation takes the keyboard");
  await session.actions().sendKeys(Key.ESCAPE).perform();
  await waitFor(session, "the confirmation closes", async () =>
    (await session.findElements(By.css('[data-testid="restore-snapshot-dialog"]'))).length === 0);
  assert.equal(await focused(), "restore-snapshot", "the keyboard is back on the row's Restore");
  await dismissToasts();
});

test("the request log lists the app's own requests", async () => {
  await click(session, "developers-tab-requests");
  await click(session, "requests-refresh");
  await waitFor(session, "the endpoint's creation is listed", async () => {
    const rows = await session.findElements(By.css('[data-testid="request-row"]'));
    for (const row of rows) {
      if ((await row.getText()).includes("POST /webhooks")) return true;
    }
    return false;
  }, 30_000);
  await session.executeScript(`document.querySelector('[data-testid="request-list"]').scrollIntoView({block: "center"})`);
  await screenshot(session, "44-developers-requests");
});

test("a request's detail shows what it sent and got back, masked, and its ids find the others", async () => {
  // The endpoint's creation itself, not a later POST /webhooks/{id}/…
  const cell = await session.findElement(
    By.xpath('//tr[@data-testid="request-row"][td[normalize-space(.)="POST /webhooks"]]/td[1]'),
  );
  await session.executeScript("arguments[0].scrollIntoView({block: 'center'})", cell);
  await cell.click();
  await find(session, "request-detail-answered", 30_000);
  const sent = await text(session, "request-detail-sent");
  assert.match(sent, /"url"/, "the body sent");
  const answered = await text(session, "request-detail-answered");
  assert.match(answered, /"webhookId"/);
  assert.match(answered, /\[masked\]/, "the secret is masked");
  assert.ok(!answered.includes(secret), "the endpoint's secret is not in the history");
  await screenshot(session, "44c-developers-request-detail");
  const chip = await session.findElement(By.xpath('//button[starts-with(normalize-space(.), "webhookId:")]'));
  const id = (await chip.getText()).trim();
  webhookRef = id;
  await session.executeScript("arguments[0].scrollIntoView({block: 'center'})", chip);
  await chip.click();
  await waitFor(session, `only the requests naming ${id}`, async () => {
    const value = await (await find(session, "request-search")).getAttribute("value");
    const listed = await session.findElements(By.css('[data-testid="request-row"]'));
    return value === id && listed.length > 0;
  }, 30_000);
  await screenshot(session, "44d-developers-requests-by-id");
});

test("the inspector shows what an id leads to: the object, its requests, its events' deliveries", async () => {
  await click(session, "developers-tab-inspector");
  await type(session, "inspector-id", webhookRef);
  await click(session, "inspector-go");
  const found = await find(session, "inspected", 30_000);
  assert.match(await found.getText(), /webhook/);
  await find(session, "inspected-requests", 30_000);
  assert.match(await text(session, "inspected-requests"), /POST \/webhooks/);
  await screenshot(session, "44e-developers-inspector");
  // An event's id leads on: its deliveries to the receiver.
  const related = await session.findElements(By.css('[data-testid="inspector-related"]'));
  let event = null;
  for (const chip of related) if ((await chip.getText()).startsWith("evt_")) event = chip;
  if (event) {
    await session.executeScript("arguments[0].scrollIntoView({block: 'center'})", event);
    await event.click();
    await waitFor(session, "the event is inspected", async () =>
      (await (await find(session, "inspected")).getText()).includes("event"), 30_000);
  }
});

test("the API shell sends any operation with the session's token and writes it for other tools", async () => {
  await click(session, "developers-tab-shell");
  await find(session, "shell-operation", 30_000);
  await choose(session, "shell-operation", "GET /webhooks");
  await click(session, "shell-send");
  await waitFor(session, "the answer", async () => (await text(session, "shell-status")).startsWith("200"), 30_000);
  assert.match(await text(session, "shell-answer-body"), /"webhookId"/);
  assert.match(await text(session, "shell-snippet"), /^curl -X GET/);
  await click(session, "shell-snippet-python");
  assert.match(await text(session, "shell-snippet"), /import requests/);
  await find(session, "shell-history");
  await screenshot(session, "44f-developers-api-shell");
  await choose(session, "shell-operation", "POST /webhooks");
  assert.match(await (await find(session, "shell-body")).getAttribute("value"), /"url"/);
  await choose(session, "shell-operation", "GET /card/{card_id}");
  await type(session, "shell-parameter-card_id", "999999");
  await click(session, "shell-send");
  await waitFor(session, "a 404, shown as the service answered it", async () =>
    (await text(session, "shell-status")).startsWith("404"), 30_000);
  await screenshot(session, "44g-developers-api-shell-404");
});

test("a rotated secret is shown once, and both secrets sign for the overlap", async () => {
  await click(session, "developers-tab-endpoints");
  await click(session, "webhook-more");
  await click(session, "webhook-rotate");
  await waitFor(session, "a new secret shows", async () => (await text(session, "webhook-secret-value")) !== secret);
  const rotated = await text(session, "webhook-secret-value");
  const before = received.length;
  await click(session, "webhook-test");
  await waitFor(session, "the receiver gets the next test", async () => received.length > before, 30_000);
  await click(session, "developers-tab-endpoints");
  const delivery = received[received.length - 1];
  assert.ok(signedWith(delivery, secret) && signedWith(delivery, rotated), "old and new secret both sign");
});

test("an endpoint is edited: only the events it now asks for", async () => {
  await click(session, "webhook-edit");
  await waitFor(session, "the form edits the endpoint", async () =>
    (await text(session, "webhook-add")) === "Save changes");
  assert.equal(await (await find(session, "webhook-url")).getAttribute("value"), `http://127.0.0.1:${receiver.address().port}/webhooks`);
  await click(session, "webhook-all-events");
  const testOnly = await session.findElement(By.css('[data-testid="webhook-form"] input[value="webhook.test"]'));
  await testOnly.click();
  await click(session, "webhook-add");
  await waitFor(session, "the endpoint lists the one type", async () => {
    const row = await find(session, "webhook-row");
    return (await row.getText()).includes("webhook.test");
  }, 30_000);
  await waitFor(session, "the drawer closed", async () =>
    (await session.findElements(By.css('[data-testid="webhook-form"]'))).length === 0);
});

test("the forward switch sends the sandbox's events to a server on this computer", async () => {
  await click(session, "developers-tab-endpoints");
  const port = String(receiver.address().port);
  const input = await find(session, "forward-port");
  await input.clear();
  await input.sendKeys(port);
  await click(session, "forward-switch");
  const forwardedSecret = await waitFor(session, "the forward endpoint's secret shows", async () => {
    const shown = await text(session, "webhook-secret-value");
    return shown !== secret && shown;
  }, 30_000);
  // Forwarding is a status line, never a second row of the endpoints.
  await waitFor(session, "forwarding is on", async () => /is on/.test(await text(session, "forward-status")), 30_000);
  for (const candidate of await session.findElements(By.css('[data-testid="webhook-row"]')))
    assert.ok(!(await candidate.getAttribute("textContent")).includes("Forwarded to this computer"));
  await screenshot(session, "45-developers-forward");
  // An event of the sandbox (a test card enrolled) reaches the server here.
  const before = received.length;
  await click(session, "nav-cards");
  await click(session, "open-enroll");
  await find(session, "test-card");
  await type(session, "first-name", "Forward");
  await type(session, "last-name", "Test");
  await click(session, "enroll-submit");
  await waitFor(session, "the receiver gets the forwarded event", async () =>
    received.slice(before).some((delivery) => signedWith(delivery, forwardedSecret)), 30_000);
  await click(session, "nav-developers");
  await click(session, "developers-tab-endpoints");
  await click(session, "forward-switch");
  await waitFor(session, "forwarding stops", async () =>
    (await (await find(session, "forward-switch")).isSelected()) === false, 30_000);
});

/** `YYYY-MM-DD` of the UTC day `days` before today. */
function daysAgo(days) {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

test("a purchase is made from the sandbox tab: backdated by the card, then one the issuer declines", async () => {
  await click(session, "nav-developers");
  await click(session, "developers-tab-sandbox");
  await find(session, "purchase-form", 30_000);
  // The forwarding test's toasts sit over the rows below; this form makes none.
  await dismissToasts();
  // The card the forwarding test enrolled: brand, last four, holder.
  const card = await find(session, "purchase-card");
  assert.match(await card.getAttribute("textContent"), /•••• \d{4} · Forward Test/);
  // The amount and the day are checked before anything is sent, beside their fields.
  await type(session, "purchase-amount", "12.345");
  await type(session, "purchase-date", daysAgo(-3));
  await click(session, "make-purchase");
  assert.match(await text(session, "purchase-amount-error"), /at most 2 decimals/);
  assert.match(await text(session, "purchase-date-error"), /up to today/);
  await waitFor(session, "the keyboard is on the first field to fix", async () =>
    (await session.executeScript("return document.activeElement?.dataset.testid")) === "purchase-amount");
  await screenshot(session, "44j-developers-sandbox-purchase-checks");
  await type(session, "purchase-amount", "12.34");
  await type(session, "purchase-merchant", "E2E Corner Café");
  const day = daysAgo(40);
  await type(session, "purchase-date", day);
  await type(session, "purchase-time", "09:30");
  assert.match(await text(session, "purchase-when"), new RegExp(`${day}T09:30:00Z`));
  await click(session, "make-purchase");
  const made = await waitFor(session, "the purchase is made", async () => {
    const lines = await session.findElements(By.css('[data-testid="purchase-result-line"]'));
    return lines.length > 0 && (await lines[0].getText()).trim();
  }, 30_000);
  assert.match(made, /^Purchase 12\.34 [A-Z]{3} at E2E Corner Café made \(transaction \d+\)$/);
  assert.equal(await text(session, "make-purchase"), "Make purchase");
  await screenshot(session, "44j-developers-sandbox-purchase");

  // The inspector opens on it: made on the day asked for.
  const transactionId = made.match(/transaction (\d+)/)[1];
  await click(session, "purchase-inspect");
  await waitFor(session, "the inspector shows the purchase", async () => {
    const found = await session.findElements(By.css('[data-testid="inspected"]'));
    return found.length > 0 && (await found[0].getText()).includes(`transactionId:${transactionId}`);
  }, 30_000);
  assert.match(await text(session, "inspected-json"), new RegExp(`"createdAt": "${day}T09:30:00Z"`));

  // One the card's issuer declines: an event only, in no list.
  await click(session, "developers-tab-sandbox");
  await find(session, "purchase-form", 30_000);
  await type(session, "purchase-merchant", "E2E Declined Shop");
  await click(session, "purchase-declined");
  await click(session, "make-purchase");
  const declined = await waitFor(session, "the purchase is declined", async () => {
    const lines = await session.findElements(By.css('[data-testid="purchase-result-line"]'));
    return lines.length > 0 && (await lines[0].getText()).trim();
  }, 30_000);
  assert.match(declined, /^Declined: transaction\.declined was sent; it is in no list \(id \d+\)$/);
  assert.equal((await session.findElements(By.css('[data-testid="purchase-inspect"]'))).length, 0);
  await screenshot(session, "44k-developers-sandbox-declined");
});

test("the Developers area follows the OS's dark theme", async () => {
  app = await relaunchDark(app);
  session = app.session;
  await signIn(session);
  await click(session, "nav-developers");
  await click(session, "developers-tab-endpoints");
  await find(session, "webhook-list", 30_000);
  await click(session, "webhook-deliveries");
  await find(session, "delivery-list", 30_000);
  await screenshot(session, "dark-developers");
  await click(session, "developers-tab-inspector");
  await type(session, "inspector-id", webhookRef);
  await click(session, "inspector-go");
  await find(session, "inspected", 30_000);
  await screenshot(session, "dark-developers-inspector");
  await click(session, "developers-tab-shell");
  await choose(session, "shell-operation", "GET /webhooks");
  await click(session, "shell-send");
  await waitFor(session, "the answer", async () => (await text(session, "shell-status")).startsWith("200"), 30_000);
  await screenshot(session, "dark-developers-api-shell");
});

test("the sandbox's purchase form follows the dark theme", async () => {
  await click(session, "developers-tab-sandbox");
  await find(session, "purchase-form", 30_000);
  await type(session, "purchase-amount", "-4.50");
  await type(session, "purchase-merchant", "E2E Night Market");
  await type(session, "purchase-date", daysAgo(400));
  await erase(session, "purchase-time");
  await click(session, "make-purchase");
  const made = await waitFor(session, "the refund is made", async () => {
    const lines = await session.findElements(By.css('[data-testid="purchase-result-line"]'));
    return lines.length > 0 && (await lines[0].getText()).trim();
  }, 30_000);
  assert.match(made, /^Refund 4\.50 [A-Z]{3} at E2E Night Market made \(transaction \d+\)$/);
  await screenshot(session, "dark-developers-sandbox-purchase");
});

test("a snapshot puts the sandbox back as it was, asking first; the card enrolled since is gone", async () => {
  await click(session, "developers-tab-sandbox");
  await find(session, "snapshot-row", 30_000);
  await type(session, "snapshot-name", "With the forwarded card");
  await click(session, "take-snapshot");
  await toastSaying(session, /^Snapshot “With the forwarded card” taken/);
  await waitFor(session, "two snapshots, newest first", async () => {
    const rows = await snapshotRows();
    return rows.length === 2 && /With the forwarded card/.test(rows[0]) && /Before forwarding/.test(rows[1]);
  }, 30_000);
  await dismissToasts();
  await screenshot(session, "dark-developers-sandbox-snapshots");
  // The older one, from before the forwarding test enrolled its card.
  await clickInRow(1, "restore-snapshot");
  const asked = await (await find(session, "restore-snapshot-dialog")).getText();
  assert.match(asked, /Restore “Before forwarding”\?/);
  await screenshot(session, "dark-developers-sandbox-restore");
  await click(session, "restore-snapshot-confirm");
  await toastSaying(session, /^Sandbox restored to “Before forwarding”/, 30_000);
  // Screens load the sandbox as it is now: the card enrolled since is gone.
  await click(session, "nav-cards");
  assert.match(await text(session, "state-empty", 30_000), /No cards yet/);
  // Both snapshots stay; the newer one is deleted from its row.
  await click(session, "nav-developers");
  await click(session, "developers-tab-sandbox");
  await waitFor(session, "both snapshots stay", async () => (await snapshotRows()).length === 2, 30_000);
  await clickInRow(0, "delete-snapshot");
  await toastSaying(session, /^Snapshot deleted/);
  await waitFor(session, "the restored one is left", async () => {
    const rows = await snapshotRows();
    return rows.length === 1 && /Before forwarding/.test(rows[0]);
  }, 30_000);
  await waitFor(session, "the keyboard goes on from the next row's Delete", async () =>
    (await session.executeScript("return document.activeElement?.dataset.testid")) === "delete-snapshot");
  await dismissToasts();
});

test("starting the sandbox again deletes its data, asking first; the account stays", async () => {
  await click(session, "developers-tab-sandbox");
  await click(session, "reset-sandbox");
  await find(session, "reset-sandbox-confirm");
  await screenshot(session, "dark-developers-sandbox-reset");
  await click(session, "reset-sandbox-confirm");
  await toastSaying(session, /^Sandbox data deleted/);
  await click(session, "nav-developers");
  await click(session, "developers-tab-endpoints");
  await find(session, "state-empty", 30_000);
});
