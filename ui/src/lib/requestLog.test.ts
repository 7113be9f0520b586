import { describe, expect, it } from "vitest";
import type { LoggedCall } from "./bindings/LoggedCall";
import { anyRequest, filterRequests, routesIn, statusTone } from "./requestLog";

const now = Date.parse("2026-11-24T12:00:00Z");

function call(
  method: string,
  path: string,
  status: number,
  minutesAgo: number,
  route: string | null,
  background = false,
): LoggedCall {
  return {
    request: {
      method,
      path,
      route,
      status,
      code: status >= 400 ? "not_found" : null,
      requestId: `req_${path}_${minutesAgo}`,
      latencyMs: 2,
      at: new Date(now - minutesAgo * 60_000).toISOString(),
    },
    route,
    background,
    url: `http://127.0.0.1:1${path}`,
    headers: [],
    hasBody: method !== "GET",
    statusText: "",
    curl: "",
  };
}

const log = [
  call("GET", "/webhooks/1/deliveries", 200, 0, "GET /webhooks/{webhook_id}/deliveries", true),
  call("POST", "/webhooks", 201, 1, "POST /webhooks"),
  call("GET", "/card/9", 404, 3, "GET /card/{card_id}"),
  call("GET", "/card/8", 200, 90, "GET /card/{card_id}"),
  call("POST", "/subscriber/login", 200, 120, "POST /subscriber/login", true),
];

describe("the request log's filters", () => {
  it("hide the app's own background requests unless asked", () => {
    expect(filterRequests(log, anyRequest, now)).toHaveLength(3);
    expect(filterRequests(log, { ...anyRequest, background: true }, now)).toHaveLength(5);
  });

  it("keep a status class, a route and a time window", () => {
    const failed = filterRequests(log, { ...anyRequest, status: "4xx" }, now);
    expect(failed.map((entry) => entry.request.path)).toEqual(["/card/9"]);
    const cards = filterRequests(log, { ...anyRequest, route: "GET /card/{card_id}" }, now);
    expect(cards).toHaveLength(2);
    const recent = filterRequests(log, { ...anyRequest, window: "5m" }, now);
    expect(recent.map((entry) => entry.request.path)).toEqual(["/webhooks", "/card/9"]);
  });

  it("offer the routes in use, most used first", () => {
    expect(routesIn(log, false)).toEqual(["GET /card/{card_id}", "POST /webhooks"]);
  });

  it("colour statuses by class", () => {
    expect([200, 302, 404, 503].map(statusTone)).toEqual(["good", "accent", "warn", "bad"]);
  });
});
