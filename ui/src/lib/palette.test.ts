import { describe, expect, it } from "vitest";
import { baseItems, rank, score, type PaletteItem } from "./palette";

const items: PaletteItem[] = [
  ...baseItems(true),
  { id: "card:1", kind: "card", title: "visa •••• 4242", detail: "Ada Lovelace", keywords: "4242" },
  { id: "card:2", kind: "card", title: "mastercard •••• 4444", detail: "Grace Hopper" },
  {
    id: "location:3",
    kind: "location",
    title: "1022 Valencia St",
    detail: "San Francisco, USA",
    keywords: "SQ *BLUE HERON COFFEE",
  },
  {
    id: "transaction:9",
    kind: "transaction",
    title: "Cafe Max · 7.82 USD",
    keywords: "CAFE MAX LIVERMORE 7.82",
  },
];

describe("the command palette", () => {
  it("finds a card by its last four or its holder, a location by street, a transaction by amount", () => {
    expect(rank(items, "4242", [])[0].id).toBe("card:1");
    expect(rank(items, "grace", [])[0].id).toBe("card:2");
    expect(rank(items, "valencia", [])[0].id).toBe("location:3");
    expect(rank(items, "7.82", [])[0].id).toBe("transaction:9");
    expect(rank(items, "blue heron", [])[0].id).toBe("location:3");
  });

  it("matches loosely: letters in order, any case", () => {
    expect(score("dvlprs", "Developers")).toBeGreaterThan(0);
    expect(rank(items, "dvlprs", [])[0].title).toBe("Developers");
    expect(score("xyz", "Developers")).toBe(0);
    expect(score("dev", "Developers")).toBeGreaterThan(score("dvs", "Developers"));
  });

  it("shows the items used last first, then screens and actions", () => {
    const shown = rank(items, "", ["card:2", "screen:lookup"]);
    expect(shown.slice(0, 2).map((item) => item.id)).toEqual(["card:2", "screen:lookup"]);
    expect(shown.some((item) => item.kind === "action")).toBe(true);
    expect(shown.filter((item) => item.id === "screen:lookup")).toHaveLength(1);
  });

  it("ranks a recent match higher among equals", () => {
    const twins: PaletteItem[] = [
      { id: "a", kind: "card", title: "visa •••• 1111" },
      { id: "b", kind: "card", title: "visa •••• 2222" },
    ];
    expect(rank(twins, "visa", ["b"])[0].id).toBe("b");
  });

  it("offers the sandbox's actions only in the sandbox", () => {
    expect(baseItems(false).some((item) => item.action === "enroll-test-card")).toBe(false);
    expect(baseItems(true).some((item) => item.action === "simulate-purchase")).toBe(true);
  });
});
