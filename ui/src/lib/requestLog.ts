// The request log's filters: the app's own background requests hidden unless asked for, a
// status class, a route, a time window.
import type { LoggedCall } from "./bindings/LoggedCall";

export type StatusClass = "all" | "2xx" | "3xx" | "4xx" | "5xx";
export type TimeWindow = "any" | "5m" | "1h" | "24h";

export interface RequestFilter {
  background: boolean;
  status: StatusClass;
  /** A route (`GET /card/{card_id}`), or "" for all. */
  route: string;
  window: TimeWindow;
}

export const anyRequest: RequestFilter = {
  background: false,
  status: "all",
  route: "",
  window: "any",
};

const WINDOW_MS: Record<TimeWindow, number> = {
  any: Infinity,
  "5m": 5 * 60_000,
  "1h": 60 * 60_000,
  "24h": 24 * 60 * 60_000,
};

export const timeWindows: { id: TimeWindow; label: string }[] = [
  { id: "any", label: "Any time" },
  { id: "5m", label: "Last 5 minutes" },
  { id: "1h", label: "Last hour" },
  { id: "24h", label: "Last 24 hours" },
];

export const statusClasses: { id: StatusClass; label: string }[] = [
  { id: "all", label: "All statuses" },
  { id: "2xx", label: "2xx success" },
  { id: "3xx", label: "3xx redirect" },
  { id: "4xx", label: "4xx client error" },
  { id: "5xx", label: "5xx server error" },
];

/** The route a call is filed under: its template, or its path when no route matches. */
export function routeKey(call: LoggedCall): string {
  return call.route ?? `${call.request.method} ${call.request.path}`;
}

/** How a status reads: success, redirect, a client error, a server error. */
export function statusTone(status: number): "good" | "accent" | "warn" | "bad" {
  if (status >= 500) return "bad";
  if (status >= 400) return "warn";
  if (status >= 300) return "accent";
  return "good";
}

export function filterRequests(
  calls: readonly LoggedCall[],
  filter: RequestFilter,
  now: number,
): LoggedCall[] {
  const since = now - WINDOW_MS[filter.window];
  return calls.filter((call) => {
    if (call.background && !filter.background) return false;
    if (filter.status !== "all" && `${Math.floor(call.request.status / 100)}xx` !== filter.status)
      return false;
    if (filter.route && routeKey(call) !== filter.route) return false;
    if (filter.window !== "any" && !(Date.parse(call.request.at) >= since)) return false;
    return true;
  });
}

/** The routes in the log, for the route filter: most used first. */
export function routesIn(calls: readonly LoggedCall[], background: boolean): string[] {
  const counts = new Map<string, number>();
  for (const call of calls) {
    if (call.background && !background) continue;
    counts.set(routeKey(call), (counts.get(routeKey(call)) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([route]) => route);
}
