import { describe, expect, it } from "vitest";
import { routeOf, screenKey } from "./screens";

describe("the remembered screen", () => {
  it("names every section and a card's transactions", () => {
    expect(screenKey({ name: "accounts" })).toBe("accounts");
    expect(screenKey({ name: "card", cardId: 12 })).toBe("card/12");
    expect(screenKey({ name: "connect" })).toBeNull();
  });

  it("turns a kept name back into the route, and ignores what it does not know", () => {
    expect(routeOf("identity")).toEqual({ name: "identity" });
    expect(routeOf("card/12")).toEqual({ name: "card", cardId: 12 });
    for (const unknown of [null, undefined, "", "connect", "card/", "card/x", "admin"])
      expect(routeOf(unknown)).toBeNull();
  });
});
