// The command palette's model: what it offers (screens, actions, and the subscriber's cards,
// locations, transactions, webhook endpoints, events and requests), fuzzy ranking as the person
// types, and the items used last first.
import type { LoggedCall } from "./bindings/LoggedCall";
import type { PaletteIndex } from "./bindings/PaletteIndex";
import { lastFour, money, when } from "./format";
import { sidebar } from "./screens";
import type { Route } from "./state.svelte";

export type ItemKind =
  "screen" | "action" | "card" | "location" | "transaction" | "webhook" | "event" | "request";

export const KIND_LABELS: Record<ItemKind, string> = {
  screen: "Go to",
  action: "Actions",
  card: "Cards",
  location: "Locations",
  transaction: "Transactions",
  webhook: "Webhook endpoints",
  event: "Events",
  request: "Requests",
};

/** What the palette does with an action (the screen runs it: see CommandPalette). */
export type ActionId =
  "enroll-test-card" | "add-location" | "send-test-event" | "simulate-purchase";

export interface PaletteItem {
  /** Unique, stable across openings: the recent items are kept by it. */
  id: string;
  kind: ItemKind;
  title: string;
  /** Small text beside the title. */
  detail?: string;
  /** What the search looks in besides the title and detail (ids, descriptors). */
  keywords?: string;
  /** Where the item opens. */
  route?: Route;
  action?: ActionId;
  /** The keys that do the same, shown as a hint. */
  shortcut?: string;
}

/** Ctrl on Linux and Windows, ⌘ on macOS. */
export const MOD =
  typeof navigator !== "undefined" && /Mac/.test(navigator.platform) ? "⌘" : "Ctrl";

/** The screens and what can be done from anywhere. */
export function baseItems(sandbox: boolean): PaletteItem[] {
  const screens: PaletteItem[] = sidebar.map((screen, index) => ({
    id: `screen:${screen.name}`,
    kind: "screen",
    title: screen.nav,
    route: { name: screen.name } as Route,
    shortcut: index < 9 ? `${MOD}+${index + 1}` : undefined,
  }));
  const actions: PaletteItem[] = [
    ...(sandbox
      ? [
          {
            id: "action:enroll-test-card",
            kind: "action",
            title: "Enroll a test card",
            keywords: "add card sandbox",
            action: "enroll-test-card",
          } satisfies PaletteItem,
          {
            id: "action:simulate-purchase",
            kind: "action",
            title: "Simulate a purchase",
            detail: "on the newest card",
            keywords: "sandbox sale transaction buy",
            action: "simulate-purchase",
          } satisfies PaletteItem,
        ]
      : []),
    {
      id: "action:add-location",
      kind: "action",
      title: "Add a location",
      keywords: "merchant address store",
      action: "add-location",
    },
    {
      id: "screen:inspector",
      kind: "screen",
      title: "Inspect an id",
      detail: "Developers › Inspector",
      keywords: "inspector id object card transaction event request find",
      route: { name: "developers", tab: "inspector" } as Route,
    },
    {
      id: "screen:api-shell",
      kind: "screen",
      title: "Open the API shell",
      detail: "Developers › API shell",
      keywords: "api shell request send curl httpie python typescript composer",
      route: { name: "developers", tab: "shell" } as Route,
    },
    {
      id: "action:send-test-event",
      kind: "action",
      title: "Send a test event",
      detail: "to the first enabled webhook endpoint",
      keywords: "webhook test",
      action: "send-test-event",
    },
  ];
  return [...screens, ...actions];
}

/** The subscriber's things, as palette items. */
export function dataItems(
  index: PaletteIndex | null,
  requests: LoggedCall[] | null,
): PaletteItem[] {
  const items: PaletteItem[] = [];
  if (index) {
    for (const card of index.cards) {
      items.push({
        id: `card:${card.cardId}`,
        kind: "card",
        title: `${card.brand} •••• ${lastFour(card.lastFour)}`,
        detail: `${card.firstName} ${card.lastName}`,
        keywords: `${card.lastFour} card ${card.cardId}`,
        route: { name: "card", cardId: card.cardId },
      });
    }
    for (const place of index.merchant?.locations ?? []) {
      items.push({
        id: `location:${place.locationId}`,
        kind: "location",
        title: `${place.streetNo} ${place.street}`,
        detail: `${place.city}, ${place.countryCode}`,
        keywords: `${place.zip} ${place.descriptor} location ${place.locationId}`,
        route: { name: "merchant", tab: "locations", locationId: place.locationId },
      });
    }
    for (const tx of index.transactions) {
      items.push({
        id: `transaction:${tx.transactionId}`,
        kind: "transaction",
        title: `${tx.merchantName} · ${money(tx.amount, tx.currency)}`,
        detail: when(Date.parse(tx.createdAt)),
        keywords: `${tx.descriptor} ${tx.amount.toFixed(2)} ${tx.transactionId}`,
        route: { name: "card", cardId: tx.cardId, transactionId: tx.transactionId },
      });
    }
    for (const webhook of index.webhooks) {
      items.push({
        id: `webhook:${webhook.webhookId}`,
        kind: "webhook",
        title: webhook.url,
        detail: webhook.description ?? webhook.status,
        keywords: `webhook endpoint ${webhook.webhookId}`,
        route: { name: "developers", tab: "deliveries", webhookId: webhook.webhookId },
      });
    }
    for (const event of index.events) {
      items.push({
        id: `event:${event.id}`,
        kind: "event",
        title: event.id,
        detail: event.type,
        route: { name: "developers", tab: "events", eventId: event.id },
      });
    }
  }
  for (const call of requests ?? []) {
    items.push({
      id: `request:${call.request.requestId}`,
      kind: "request",
      title: call.request.requestId,
      detail: `${call.request.method} ${call.request.path} · ${call.request.status}`,
      route: { name: "developers", tab: "requests", requestId: call.request.requestId },
    });
  }
  return items;
}

/**
 * How well `query` matches `text` (higher is better), `0` for no match. Every word of the query
 * must be found in order, as a run of characters or spread out (fuzzy): a whole word beats the
 * start of a word, which beats letters picked across words.
 */
export function score(query: string, text: string): number {
  const haystack = text.toLowerCase();
  let total = 0;
  for (const word of query.toLowerCase().split(/\s+/).filter(Boolean)) {
    const at = haystack.indexOf(word);
    if (at !== -1) {
      const wordStart = at === 0 || /[\s\W_]/.test(haystack[at - 1]);
      total += 10 + word.length * 2 + (wordStart ? 8 : 0);
      continue;
    }
    // Letters in order, spread out: worth less the more they are spread.
    let position = -1;
    let gaps = 0;
    for (const letter of word) {
      const next = haystack.indexOf(letter, position + 1);
      if (next === -1) return 0;
      if (position !== -1) gaps += next - position - 1;
      position = next;
    }
    total += Math.max(1, word.length * 2 - gaps / 4);
  }
  return total;
}

const RECENT_KEY = "subscriber-data.palette.recent";
const RECENT_KEPT = 8;

/** The ids chosen last, newest first (no secret: what was opened, by id). */
export function recentIds(): string[] {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
    return Array.isArray(kept) ? kept.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

export function rememberChoice(id: string): void {
  try {
    const kept = [id, ...recentIds().filter((other) => other !== id)].slice(0, RECENT_KEPT);
    localStorage.setItem(RECENT_KEY, JSON.stringify(kept));
  } catch {
    // Private storage may be off: the palette works without recents.
  }
}

/**
 * What the palette shows for `query`: with none, the recent items, then the screens and
 * actions; with one, every match best first (a recent one a little higher), at most `limit`.
 */
export function rank(
  items: readonly PaletteItem[],
  query: string,
  recent: readonly string[],
  limit = 40,
): PaletteItem[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  if (!query.trim()) {
    const recentItems = recent
      .map((id) => byId.get(id))
      .filter((item): item is PaletteItem => !!item);
    const rest = items.filter(
      (item) => (item.kind === "screen" || item.kind === "action") && !recent.includes(item.id),
    );
    return [...recentItems, ...rest].slice(0, limit);
  }
  return items
    .map((item) => {
      const found = score(query, `${item.title} ${item.detail ?? ""} ${item.keywords ?? ""}`);
      const recentAt = recent.indexOf(item.id);
      const boost = found && recentAt !== -1 ? 6 - recentAt * 0.5 : 0;
      return { item, found: found + boost, title: score(query, item.title) };
    })
    .filter((entry) => entry.found > 0)
    .sort((a, b) => b.found - a.found || b.title - a.title)
    .slice(0, limit)
    .map((entry) => entry.item);
}
