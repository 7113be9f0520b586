// The spec's flow through openapi-fetch, typed by the declarations openapi-typescript generated from
// the newest document (generated/schema.d.ts, made by tests/clients/run.py), compiled with strict
// tsc: signup → login → card → its transactions, two pages → merchant, location, a sale there →
// webhook endpoint, a test event received → the same event read back; and the card's live stream,
// read as the `text/event-stream` it is described as.
//
// Usage: node build/flow.js BASE_URL VERSION
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];

const [baseUrl, version] = process.argv.slice(2);
if (!baseUrl || !version) throw new Error("usage: flow.js BASE_URL VERSION");

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The answer of a call that must succeed: its typed body. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  check(result.data !== undefined, `${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  check(result.response.headers.get("Subscriber-Version") === version, `${what}: answered in another version`);
  return result.data;
}

const anonymous = createClient<paths>({ baseUrl, headers: { "Subscriber-Version": version } });
const email = `typescript-${randomUUID()}@example.com`;
const account: Schemas["SignupResponse"] = ok(
  await anonymous.POST("/subscriber/signup", { body: { email } }),
  "signup",
);
check(account.clientId.startsWith("cli_") && account.apiVersion === version, JSON.stringify(account));
const session = ok(
  await anonymous.POST("/subscriber/login", { body: { email, apiKey: account.secret } }),
  "login",
);
check(session.validitySeconds > 0, "a token that lasts");
const client = createClient<paths>({
  baseUrl,
  headers: { "Subscriber-Version": version, Authorization: `Bearer ${session.token}` },
});
const profile: Schemas["SubscriberProfile"] = ok(await client.GET("/subscriber"), "profile");
check(profile.email === email && profile.apiVersion === version, JSON.stringify(profile));

// A sandbox test card and its history, two pages.
const card: Schemas["EnrollCardResponse"] = ok(
  await client.POST("/card", {
    body: {
      pan: "4242424242424242",
      firstName: "Ada",
      lastName: "Lovelace",
      expMonth: 12,
      expYear: 2034,
      countryCode: "USA",
    },
  }),
  "card",
);
const transactions = (cursor?: string) =>
  client.GET("/card/{card_id}/transactions", {
    params: { path: { card_id: card.cardId }, query: cursor ? { limit: 5, cursor } : { limit: 5 } },
  });
const first: Schemas["CardTransactionPage"] = ok(await transactions(), "transactions");
check(first.transactions.length === 5 && typeof first.nextCursor === "string", "a first page of 5");
const second = ok(await transactions(first.nextCursor ?? undefined), "the next page");
const seen = new Set(first.transactions.map((transaction) => transaction.transactionId));
check(!second.transactions.some((item) => seen.has(item.transactionId)), "pages do not overlap");
// What the service found for each: typed fields of the newest document (enums as unions).
const channels: Schemas["Channel"][] = first.transactions.map((item) => item.channel);
check(channels.every((channel) => ["in_store", "online", "other"].includes(channel)), "channels");
const found = first.transactions.find((item) => item.counterparty !== null)?.counterparty;
check(found !== undefined && found !== null && found.brandId.startsWith("brd_"), "a counterparty");
const band: Schemas["Confidence"] = found.confidence;
check(["very_high", "high", "medium", "low"].includes(band), `a band: ${band}`);
const recurring: Schemas["RecurringStreams"] = ok(
  await client.GET("/card/{card_id}/recurring", { params: { path: { card_id: card.cardId } } }),
  "recurring",
);
check(
  recurring.streams.some((stream) => stream.frequency === "monthly" && stream.status === "mature"),
  "the history's bills are monthly streams",
);

// The card's live stream, read as a stream while a sale is made.
const stream = await client.GET("/card/{card_id}/transactions/stream", {
  params: { path: { card_id: card.cardId } },
  parseAs: "stream",
});
const body = stream.data;
check(stream.response.ok && body !== undefined && body !== null, `stream: ${stream.response.status}`);
check(
  stream.response.headers.get("content-type")?.startsWith("text/event-stream") === true,
  "an event stream",
);

// A merchant, a location, a sale there, seen in the merchant's list and on the card's stream.
const merchant: Schemas["EnrollMerchantResponse"] = ok(
  await client.POST("/merchant", {
    body: { name: "Generated Bakery", category: "5462", countryCode: "USA" },
  }),
  "merchant",
);
const location = ok(
  await client.POST("/merchant/location", {
    body: {
      location: {
        countryCode: "USA",
        street: "Valencia St",
        streetNo: "1022",
        city: "San Francisco",
        zip: "94110",
      },
    },
  }),
  "location",
);
const sale: Schemas["SandboxTransactionResponse"] = ok(
  await client.POST("/sandbox/transactions", {
    body: { cardId: card.cardId, locationId: location.locationId, amount: 7.25 },
  }),
  "sale",
);
const sales = ok(
  await client.GET("/merchant/{merchant_id}/transactions", {
    params: { path: { merchant_id: merchant.merchantId } },
  }),
  "merchant transactions",
);
check(
  sales.transactions.some((item) => item.transactionId === sale.transactionId),
  "the sale at the location",
);
const reader = body.pipeThrough(new TextDecoderStream()).getReader();
let streamed = "";
const deadline = Date.now() + 20_000;
while (!streamed.includes(`"transactionId":${sale.transactionId}`) && Date.now() < deadline) {
  const { value, done } = await reader.read();
  if (done) break;
  streamed += value;
}
await reader.cancel();
check(streamed.includes("event: transaction"), `the sale on the stream: ${streamed.slice(0, 300)}`);
const data = streamed.split("\n").find((line) => line.startsWith("data:")) ?? "";
const streamedItem = JSON.parse(data.slice("data:".length)) as Schemas["CardTransaction"];
check(streamedItem.transactionId === sale.transactionId, "the streamed item is the sale");

// A webhook endpoint on this computer, a test event delivered to it, read back from the log.
const received: { headers: IncomingMessage["headers"]; raw: string; body: Schemas["Event"] }[] = [];
const receiver = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    received.push({ headers: request.headers, raw: body, body: JSON.parse(body) as Schemas["Event"] });
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
try {
  const { port } = receiver.address() as AddressInfo;
  const endpoint: Schemas["Webhook"] = ok(
    await client.POST("/webhooks", {
      body: { url: `http://127.0.0.1:${port}/hooks`, events: ["*"] },
    }),
    "webhook",
  );
  check(endpoint.status === "enabled" && endpoint.apiVersion === version, JSON.stringify(endpoint));
  const queued = ok(
    await client.POST("/webhooks/{webhook_id}/test", {
      params: { path: { webhook_id: endpoint.webhookId } },
    }),
    "test event",
  );
  const waitUntil = Date.now() + 30_000;
  while (!received.some((delivery) => delivery.body.id === queued.eventId)) {
    check(Date.now() < waitUntil, "the test event was not delivered in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Standard Webhooks' own library verifies the delivery with the secret as shown, and refuses
  // a tampered body.
  const delivery = received.find((one) => one.body.id === queued.eventId);
  check(delivery !== undefined && endpoint.secret !== undefined && endpoint.secret !== null, "a delivery and a secret");
  const standardHeaders: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    standardHeaders[name] = String(delivery.headers[name] ?? "");
  }
  const verifier = new StandardWebhook(endpoint.secret);
  verifier.verify(delivery.raw, standardHeaders);
  let tamperedVerified = true;
  try {
    verifier.verify(delivery.raw.replace("webhook.test", "webhook.fake"), standardHeaders);
  } catch {
    tamperedVerified = false;
  }
  check(!tamperedVerified, "a tampered delivery verified");
  const event: Schemas["Event"] = ok(
    await client.GET("/events/{event_id}", { params: { path: { event_id: queued.eventId } } }),
    "event",
  );
  const type: Schemas["EventType"] = event.type;
  check(type === "webhook.test", JSON.stringify(event));
  const listed = ok(await client.GET("/events", { params: { query: { type: "webhook.test" } } }), "events");
  check(
    listed.events.some((item) => item.id === queued.eventId),
    "the event in the log",
  );
} finally {
  receiver.close();
}
console.log("typescript: the generated client drove signup, card, transactions, merchant, stream, webhook and event");
