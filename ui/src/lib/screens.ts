// A screen as the settings keep it ("cards", "card/12"), so the app can reopen the screen
// shown last after the next sign-in.
import type { Route } from "./state.svelte";

const simple = [
  "overview",
  "cards",
  "merchant",
  "lookup",
  "accounts",
  "identity",
  "credentials",
] as const;

/** The name kept for a route; `null` for screens not worth reopening (the environment chooser). */
export function screenKey(route: Route): string | null {
  if (route.name === "card") return `card/${route.cardId}`;
  return (simple as readonly string[]).includes(route.name) ? route.name : null;
}

/** The route a kept name stands for; `null` for anything the app does not know. */
export function routeOf(key: string | null | undefined): Route | null {
  if (!key) return null;
  const card = /^card\/(\d{1,15})$/.exec(key);
  if (card) return { name: "card", cardId: Number(card[1]) };
  return (simple as readonly string[]).includes(key) ? ({ name: key } as Route) : null;
}
