// The dashboard's screens, in one table: the sidebar, the page titles and the screen reopened
// after the next sign-in all read it. (A page with a list has its filters above the list.)
import type { Route } from "./state.svelte";

type Name = Route["name"];

export interface Screen {
  name: Name;
  /** The page title. */
  title: string;
  /** The sidebar's label; screens without one are reached from another. */
  nav?: string;
  /** The sidebar entry lit while this screen shows (a card lights "Cards"). */
  section: Name;
  /** Reopened after the next sign-in (the environment chooser is not). */
  kept: boolean;
}

/** In sidebar order. */
export const screens: readonly Screen[] = [
  { name: "overview", title: "Overview", nav: "Overview", section: "overview", kept: true },
  { name: "cards", title: "Cards", nav: "Cards", section: "cards", kept: true },
  { name: "card", title: "Card", section: "cards", kept: true },
  { name: "merchant", title: "Merchant", nav: "Merchant", section: "merchant", kept: true },
  { name: "lookup", title: "Lookup", nav: "Lookup", section: "lookup", kept: true },
  {
    name: "accounts",
    title: "Bank accounts",
    nav: "Bank accounts",
    section: "accounts",
    kept: true,
  },
  { name: "identity", title: "Identity", nav: "Identity", section: "identity", kept: true },
  // Reached from a user's chip on a card, an account or a person; a section of its own, so no
  // sidebar entry is lit as the current one.
  { name: "user", title: "User", section: "user", kept: false },
  {
    name: "developers",
    title: "Developers",
    nav: "Developers",
    section: "developers",
    kept: true,
  },
  {
    name: "credentials",
    title: "Credentials",
    nav: "Credentials",
    section: "credentials",
    kept: true,
  },
  { name: "settings", title: "Settings", nav: "Settings", section: "settings", kept: true },
  { name: "connect", title: "Environment", section: "connect", kept: false },
];

const byName = new Map(screens.map((screen) => [screen.name, screen]));

/** The screen a route shows. */
export function screenOf(route: Route): Screen {
  return byName.get(route.name) ?? screens[0];
}

/** The sidebar's entries. */
export const sidebar = screens.filter(
  (screen): screen is Screen & { nav: string } => screen.nav !== undefined,
);

/** The name kept for a route ("cards", "card/12"); `null` for screens not worth reopening. An
 *  item a screen was opened on (a location, a webhook) is not kept: the screen is. */
export function screenKey(route: Route): string | null {
  if (route.name === "card") return `card/${route.cardId}`;
  return screenOf(route).kept ? route.name : null;
}

const ID = "([1-9]\\d{0,17})";
/** Route names with an item, as links and notifications name them (see crates/dashboard's
 *  `links`): the item's route. */
const ITEMS: [RegExp, (id: string) => Route][] = [
  [new RegExp(`^card/${ID}$`), (id) => ({ name: "card", cardId: Number(id) })],
  [new RegExp(`^account/${ID}$`), (id) => ({ name: "accounts", accountId: Number(id) })],
  [
    new RegExp(`^merchant/location/${ID}$`),
    (id) => ({ name: "merchant", tab: "locations", locationId: Number(id) }),
  ],
  [
    new RegExp(`^developers/webhook/${ID}$`),
    (id) => ({ name: "developers", tab: "deliveries", webhookId: Number(id) }),
  ],
  [new RegExp(`^person/${ID}$`), (id) => ({ name: "identity", personId: Number(id) })],
  [
    new RegExp(`^event/(evt_${ID.slice(1, -1)})$`),
    (id) => ({ name: "developers", tab: "events", eventId: id }),
  ],
];

/** The route a name stands for (a kept screen, a link's, a notification's); `null` for
 *  anything the app does not know. */
export function routeOf(key: string | null | undefined): Route | null {
  if (!key) return null;
  for (const [pattern, route] of ITEMS) {
    const match = pattern.exec(key);
    if (match) return route(match[1]);
  }
  const screen = byName.get(key as Name);
  return screen?.kept && screen.name !== "card" ? ({ name: screen.name } as Route) : null;
}
