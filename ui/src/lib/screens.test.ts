import { describe, expect, it } from "vitest";
import { routeOf, screenKey, screenOf, sidebar } from "./screens";

describe("the remembered screen", () => {
  it("names every section and a card's transactions", () => {
    expect(screenKey({ name: "accounts" })).toBe("accounts");
    expect(screenKey({ name: "card", cardId: 12 })).toBe("card/12");
    expect(screenKey({ name: "connect" })).toBeNull();
  });

  it("turns a kept name back into the route, and ignores what it does not know", () => {
    expect(routeOf("identity")).toEqual({ name: "identity" });
    expect(routeOf("card/12")).toEqual({ name: "card", cardId: 12 });
    for (const unknown of [null, undefined, "", "connect", "card/", "card/x", "card/012", "admin"])
      expect(routeOf(unknown)).toBeNull();
  });

  it("opens the items links and notifications name", () => {
    expect(routeOf("account/5")).toEqual({ name: "accounts", accountId: 5 });
    expect(routeOf("merchant/location/3")).toEqual({
      name: "merchant",
      tab: "locations",
      locationId: 3,
    });
    expect(routeOf("developers/webhook/2")).toEqual({
      name: "developers",
      tab: "deliveries",
      webhookId: 2,
    });
    expect(routeOf("event/evt_41")).toEqual({
      name: "developers",
      tab: "events",
      eventId: "evt_41",
    });
    expect(routeOf("person/7")).toEqual({ name: "identity", personId: 7 });
    expect(routeOf("event/41")).toBeNull();
    expect(routeOf("settings")).toEqual({ name: "settings" });
  });
});

describe("the screen table", () => {
  it("lists the sidebar's sections in order, and a card lights Cards", () => {
    expect(sidebar.map((screen) => screen.nav)).toEqual([
      "Overview",
      "Cards",
      "Merchant",
      "Lookup",
      "Bank accounts",
      "Identity",
      "Developers",
      "Credentials",
      "Settings",
    ]);
    expect(screenOf({ name: "card", cardId: 3 })).toMatchObject({
      title: "Card",
      section: "cards",
    });
    expect(screenOf({ name: "connect" }).title).toBe("Environment");
    // A user's page lights no sidebar entry (it is reached from a chip, not from the sidebar).
    const user = screenOf({ name: "user", clientUserId: "u-1" }).section;
    expect(sidebar.some((screen) => screen.name === user)).toBe(false);
  });
});
